# Build, run and test fisk-mcp. `make test` is what CI runs: it needs only Go
# and the Go module proxy (where npm is installed, the end-to-end tests also
# run the official MCP conformance suite from the npm registry; where Debian's
# chromium is installed, `make chromium`, the browser tests run in it).

GO       ?= go
BIN      := bin
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo development)
LDFLAGS  := -X main.version=$(VERSION)

# `make run` serves fisk-demo on this address, with its inventory kept here.
ADDR      ?= 127.0.0.1:8080
DEMO_STATE ?= $(CURDIR)/.cache/fisk-demo

# The whole `go test ./...` run, the NATS end-to-end test included (it builds
# natscli on its first run), must end within this.
TEST_TIMEOUT ?= 15m
# Each fuzz target runs this long in `make fuzz` (and so in `make test`).
FUZZTIME ?= 10s
# Fuzz targets as PACKAGE:TARGET. Each must exist: a renamed target fails
# loudly instead of silently no longer being fuzzed.
FUZZ_TARGETS := ./execrunner:FuzzRingBuffer ./execrunner:FuzzRedactedCapture ./execrunner:FuzzSanitizedCapture ./execrunner:FuzzDisplayCommandLine ./schema:FuzzRender ./clients:FuzzMerge ./server:FuzzResponseID

# Pinned linter, installed through the module proxy into bin/ by `make lint`.
STATICCHECK_VERSION := v0.8.2

# vet, fuzzing and the tests run in this order even under make -j.
.NOTPARALLEL:

.PHONY: all build run test vet unit fuzz bench lint docker clean chromium

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/fisk-mcp ./cmd/fisk-mcp
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/fisk-demo ./cmd/fisk-demo

run: build
	@mkdir -p '$(DEMO_STATE)'
	@echo 'Serving bin/fisk-demo (inventory in $(DEMO_STATE)) at http://$(ADDR)/mcp'
	@echo 'Add it to Claude Code with:'
	@echo '  claude mcp add --transport http fisk-demo http://$(ADDR)/mcp'
	@echo 'Ctrl-C to stop.'
	FISK_DEMO_STATE_DIR='$(DEMO_STATE)' $(BIN)/fisk-mcp serve --http $(ADDR) \
		--read-only-tag impact:ro --global-flag format $(BIN)/fisk-demo

# Fuzzing runs before the test suite so that the run ends on the suite's own
# summary lines.
test: vet fuzz unit

vet:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then \
		echo "not gofmt-formatted (run gofmt -w on them):" >&2; echo "$$unformatted" >&2; exit 1; fi
	$(GO) vet ./...

unit:
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./...

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		GO='$(GO)' scripts/fuzz.sh "$${t%%:*}" "$${t##*:}" '$(FUZZTIME)'; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint: vet
	GOBIN='$(CURDIR)/$(BIN)' $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(BIN)/staticcheck ./...

# The browser tests run Debian's Chromium. As root on a machine without it,
# install it (quietly; the log stays in .cache/). A failed install does not
# fail make: the browser tests then skip, or fail under CI=true, saying why.
chromium:
	@if [ -x /usr/bin/chromium ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then \
		echo "chromium: not installed and cannot install it here (needs root and apt-get); browser tests will skip" >&2; exit 0; fi; \
	mkdir -p .cache; log=.cache/chromium-install.log; start=$$(date +%s); \
	if { timeout 600 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq --no-install-recommends chromium; } >$$log 2>&1; then \
		echo "chromium: installed $$(/usr/bin/chromium --version 2>/dev/null) in $$(( $$(date +%s) - start ))s"; \
	else \
		echo "chromium: apt-get install failed (see $$log); browser tests will skip, or fail under CI=true" >&2; \
	fi

docker:
	docker build --build-arg VERSION=$(VERSION) -t fisk-mcp .

clean:
	rm -rf $(BIN)
