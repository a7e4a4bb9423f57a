# Build, run and test fisk-mcp. `make test` is what CI runs: it needs only Go
# and the Go module proxy (where npm is installed, the end-to-end tests also
# run the official MCP conformance suite from the npm registry; where Debian's
# chromium is installed, `make chromium`, the browser tests run in it).

GO       ?= go
BIN      := bin
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS  := -X main.version=$(VERSION)

# `make install` puts fisk-mcp in $(PREFIX)/bin: by default the person's
# own ~/.local/bin, which needs no root and is on PATH in most desktop
# setups; `sudo make install PREFIX=/usr/local` for every user.
PREFIX ?= $(HOME)/.local

# `make release` builds fisk-mcp for each of these (GOOS/GOARCH, or "host")
# into dist/, with a SHA256SUMS file, and checks them.
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
DIST      := dist

# `make run` serves fisk-demo on this address, with its inventory kept here.
ADDR      ?= 127.0.0.1:8080
DEMO_STATE ?= $(CURDIR)/.cache/fisk-demo

# The whole `go test ./...` run, the NATS end-to-end test included (it builds
# natscli on its first run), must end within this.
TEST_TIMEOUT ?= 15m
# Each fuzz target runs this long in `make fuzz` (and so in `make test`).
FUZZTIME ?= 10s
# `make test` records here which optional suites (Chromium, npm, the nats
# CLI, Hydra, root) ran or were skipped, and prints it at the end.
OPTIONAL_LOG := $(CURDIR)/.cache/optional-suites.log
# The main packages many test packages run, built once per `make test`
# into TEST_BINARIES and handed to the tests through FISK_MCP_TEST_BINARIES.
TEST_BINARIES := $(CURDIR)/.cache/test-binaries
TEST_MAINS    := ./cmd/fisk-mcp ./cmd/fisk-demo ./internal/testsupport/fixture/cmd/fisk-fixture ./internal/testsupport/fixture/cmd/fisk-dbctl
# Fuzz targets as PACKAGE:TARGET. Each must exist: a renamed target fails
# loudly instead of silently no longer being fuzzed.
FUZZ_TARGETS := ./execrunner:FuzzRingBuffer ./execrunner:FuzzRedactedCapture ./execrunner:FuzzSanitizedCapture ./execrunner:FuzzDisplayCommandLine ./schema:FuzzRender ./clients:FuzzMerge ./server:FuzzResponseID

# Pinned linter, installed through the module proxy into bin/ by `make lint`.
STATICCHECK_VERSION := v0.8.2

# vet, fuzzing and the tests run in this order even under make -j.
.NOTPARALLEL:

.PHONY: jaeger all build install release release-check run test modules vet unit fuzz bench lint docker clean chromium

all: build

# One go build for both binaries, so that their dependencies compile in
# parallel; the first build says why it is slow.
build:
	@GOPROXY=off $(GO) list -deps ./cmd/fisk-mcp ./cmd/fisk-demo >/dev/null 2>&1 || \
		echo 'first build: downloading and compiling the dependencies (minutes on a busy machine; later builds take seconds)' >&2
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/fisk-mcp ./cmd/fisk-demo

install: build
	install -d '$(DESTDIR)$(PREFIX)/bin'
	install -m 0755 $(BIN)/fisk-mcp '$(DESTDIR)$(PREFIX)/bin/fisk-mcp'
	@echo 'installed $(DESTDIR)$(PREFIX)/bin/fisk-mcp ($(VERSION))'
	@case ":$$PATH:" in *':$(PREFIX)/bin:'*) ;; *) echo 'note: $(PREFIX)/bin is not on PATH; add it, or give clients the full path' >&2;; esac

# Plain binaries rather than archives: each is the one file a person needs,
# SHA256SUMS checks the very file that runs, and nothing else (no license
# or docs) would go beside it. After a download: chmod +x.
release:
	@case '$(VERSION)' in *dirty*) echo 'warning: building a release from a tree with uncommitted changes ($(VERSION))' >&2;; esac
	rm -rf $(DIST) && mkdir -p $(DIST)
	@set -e; host=$$($(GO) env GOOS)/$$($(GO) env GOARCH); \
	for p in $(PLATFORMS); do [ "$$p" = host ] && p=$$host; os=$${p%/*}; arch=$${p#*/}; \
		echo "building $(DIST)/fisk-mcp-$(VERSION)-$$os-$$arch"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '-s -w $(LDFLAGS)' \
			-o $(DIST)/fisk-mcp-$(VERSION)-$$os-$$arch ./cmd/fisk-mcp; \
	done
	cd $(DIST) && sha256sum fisk-mcp-* > SHA256SUMS
	@$(MAKE) -s release-check VERSION='$(VERSION)'

# The checksums verify, and the binary for this machine runs and names the
# version it was built as.
release-check:
	cd $(DIST) && sha256sum --check --strict SHA256SUMS
	@bin=$(DIST)/fisk-mcp-$(VERSION)-$$($(GO) env GOOS)-$$($(GO) env GOARCH); \
	out=$$($$bin version) || { echo "$$bin version failed" >&2; exit 1; }; \
	case "$$out" in "fisk-mcp $(VERSION) ("*) echo "$$out";; \
		*) echo "$$bin version says '$$out', want fisk-mcp $(VERSION) (...)" >&2; exit 1;; esac

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
test: modules vet fuzz unit

# The first run downloads every module the build and the tests need; say
# so instead of leaving only go's own lines on screen.
modules:
	@if ! GOPROXY=off $(GO) list -deps -test ./... >/dev/null 2>&1; then \
		echo 'downloading the Go modules the build and tests need (first run only; a minute or more)' >&2; \
		$(GO) mod download; fi

vet:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then \
		echo "not gofmt-formatted (run gofmt -w on them):" >&2; echo "$$unformatted" >&2; exit 1; fi
	$(GO) vet ./...

# The summary of the optional suites ends the run, whatever its outcome.
unit:
	@mkdir -p .cache && rm -rf '$(OPTIONAL_LOG)' '$(TEST_BINARIES)'
	@if [ ! -d "$${FISK_MCP_TEST_TOOLS:-$${XDG_CACHE_HOME:-$$HOME/.cache}/fisk-mcp-test-tools}" ]; then \
		echo 'first run: the end-to-end tests build the nats CLI and Hydra and install MCP clients from npm into the test tool cache; this takes several minutes once' >&2; fi
	$(GO) build -o '$(TEST_BINARIES)/' $(TEST_MAINS)
	@status=0; FISK_MCP_OPTIONAL_LOG='$(OPTIONAL_LOG)' FISK_MCP_TEST_BINARIES='$(TEST_BINARIES)' \
		$(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./... || status=$$?; \
	echo; echo 'Optional suites:'; \
	if [ -s '$(OPTIONAL_LOG)' ]; then sort -u '$(OPTIONAL_LOG)' | awk -F '\t' \
		'{ k = $$1 FS $$2 FS $$4; if (k in pkgs) pkgs[k] = pkgs[k] ", " $$3; else pkgs[k] = $$3 } \
		END { for (k in pkgs) { split(k, f, FS); printf "  %-8s %s (%s)%s\n", f[1], f[2], pkgs[k], f[3] == "" ? "" : ": " f[3] } }' | sort; \
		grep -q '^skipped' '$(OPTIONAL_LOG)' || echo '  all optional suites ran'; \
	else echo '  none was reached'; fi; \
	exit $$status

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

# Jaeger, the trace test's backend, built once into the test tool cache
# (ten minutes or more); until then that test skips outside CI.
jaeger:
	FISK_MCP_BUILD_JAEGER=1 $(GO) test -count=1 -timeout 80m -run '^TestJaegerInstalls$$' ./integration/e2e/

clean:
	rm -rf $(BIN) $(DIST)
