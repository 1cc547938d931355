# One-liners that CI (.ci/run) also calls.
GO ?= go

# The version stamped into the binary (brine --version).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS := -X brine/internal/version.Version=$(VERSION)

MANDIR ?= /usr/local/share/man

.PHONY: all build install install-man check test race bench fuzz conformance

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

# Per-stage benchmarks (render, compile, pillar, engine, outputters) on
# generated trees of 1k, 10k and 100k states, as a table of ns/state and
# allocs/state; BENCH narrows them: make bench BENCH='Stages/.*/1k$$'.
BENCH ?= Stages
bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime 1x -timeout 60m -json ./internal/highstate | $(GO) run ./tools/benchreport

# Every fuzz target for FUZZTIME each (CI: 3s); FUZZ narrows them by
# "package/FuzzName" regexp: make fuzz FUZZTIME=1h FUZZ=jinja.
FUZZTIME ?= 3s
FUZZ ?= .
fuzz:
	tools/fuzz.sh -t $(FUZZTIME) '$(FUZZ)'

conformance: build
	../shared/conformance/run --bin ./brine
