# One-liners that CI (.ci/run) also calls.
GO ?= go

.PHONY: all build check test race bench conformance

all: check test build

build:
	$(GO) build -o brine ./cmd/brine

check:
	@test -z "$$(gofmt -l cmd internal)" || (gofmt -l cmd internal; exit 1)
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

test:
	$(GO) test ./...

race:
	$(GO) test -race ./internal/engine/... ./internal/cli/... ./internal/fleet/...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 1x ./...

conformance: build
	../shared/conformance/run --bin ./brine
