# One-liners that CI (.ci/run) also calls.
GO ?= go

# The version stamped into the binary (brine --version).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS := -X brine/internal/version.Version=$(VERSION)

.PHONY: all build install check test race bench conformance

all: check test build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o brine ./cmd/brine

install:
	$(GO) install -ldflags "$(LDFLAGS)" ./cmd/brine

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
