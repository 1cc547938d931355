# One-liners that CI (.ci/run) also calls.
GO ?= go

# The version stamped into the binary (brine --version).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS := -X brine/internal/version.Version=$(VERSION)

MANDIR ?= /usr/local/share/man

.PHONY: all build install install-man check test race bench conformance

all: check test build

# CGO_ENABLED=0: one static binary, with no libc to match on the target.
build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o brine ./cmd/brine

install:
	CGO_ENABLED=0 $(GO) install -ldflags "$(LDFLAGS)" ./cmd/brine

install-man:
	mkdir -p $(MANDIR)/man1
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/brine man > $(MANDIR)/man1/brine.1

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
