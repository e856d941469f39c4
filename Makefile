# Delivery Lab. `make serve` builds the WebAssembly bundle and serves the playground;
# `make test` runs every test: gofmt and vet, the core natively and under WebAssembly
# (Node), and the page in headless Chromium.

GO      ?= go
GOROOT  := $(shell $(GO) env GOROOT)
WASM    := web/main.wasm
# "Find a failure" runs in Web Workers with a WebAssembly binary of its own: the core and
# the search, no ebiten; the page fetches it only when the button is pressed.
EXPLORE_WASM := web/explore.wasm
# wasm_exec refuses a large environment: run the js/wasm test binaries through a
# wrapper that trims it.
WASMEXEC := $(CURDIR)/.ci/go_js_wasm_exec
# chromedp does not build for js/wasm, so the packages tested under Node are listed
# instead of ./...
WASM_TEST_PKGS := ./core/... ./scenes/...

# Real runs per scene in `make conformance` (real timing varies; CI uses 1).
CONFORM_RUNS ?= 3
# CONFORM_SCENES: scene files to run (default: every shipped scene), e.g. the ones a change added
CONFORM_SCENES ?=
# CONFORM_PARALLEL: real runs side by side, each with clusters of its own (conform_parallel.go):
# most of a run waits on timeouts, so two take about half the wall time on two cores.
CONFORM_PARALLEL ?= 2
# The last whole make conformance's table, with the referee's speed that make bench shows
# (a run of some scenes, CONFORM_SCENES, keeps its table apart: its mean is not the
# referee's).
CONFORM_OUT := out/conformance.txt
CONFORM_TABLE = $(if $(CONFORM_SCENES),out/conformance-some.txt,$(CONFORM_OUT))

.PHONY: all wasm canvas-font serve test fmt-check vet test-native fuzz-short test-wasm test-browser browser-deps bench conformance conformance-kafka4 conformance-note clean

all: wasm

# Packages main.wasm runs only at start-up or on a user's action — Ebiten's Kage shader
# compiler (go/parser, go/constant, math/big, text/template, regexp: it compiles Ebiten's
# built-in shaders once), the scene parser's YAML, the share link's deflate, the glyph
# rasteriser, the SVG diagram — are compiled without inlining: inlined copies of their
# code were about 150 KB of gzipped main.wasm, and none of it runs per frame or per
# simulated event. So are the session (core/play: it steers the kernel, the kernel does
# the work) and the words (core/fate), 30 KB more, and the state's JSON for the page
# (encoding/json, base64), Unicode's tables and the configuration tables (core/props),
# read when the page asks, at parse time or on a click: 22 KB more, which Kafka 4's
# transactions had used up. Kafka 4's consumer group protocol added 69 KB (4.07 MB): the
# scene layer and the ledger's checks (core/scene, core/check), the protocol packages
# (core/kafka/..., core/flink, core/apps) and the page's bridge (./wasm) are compiled without
# inlining too, 148 KB less (3.92 MB), for 3 % of the kernel's speed under WebAssembly
# (measured with BenchmarkKernelEventsPerSecond under Node, 322 → 313 thousand events/s).
# The kernel (core/sim), the canvas's drawing and Ebiten's keep inlining. The page's seek
# benchmark under Node is built the same way.
COLD_PKGS := github.com/hajimehoshi/ebiten/v2/internal/shader... \
	github.com/hajimehoshi/ebiten/v2/internal/shaderir... \
	github.com/hajimehoshi/ebiten/v2/internal/builtinshader \
	go/... text/... math/big regexp... go.yaml.in/... compress/... archive/zip \
	golang.org/x/image/... image/... deliverylab/core/diagram \
	deliverylab/core/play deliverylab/core/fate \
	encoding/json encoding/base64 unicode/... deliverylab/core/props \
	deliverylab/core/scene deliverylab/core/check deliverylab/core/kafka/... \
	deliverylab/core/flink deliverylab/core/apps deliverylab/wasm
WASM_GCFLAGS := $(foreach p,$(COLD_PKGS),-gcflags=$(p)=-l)

# wasm_exec.js must come from the Go that built main.wasm, so it is copied, not committed.
wasm:
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' $(WASM_GCFLAGS) -o $(WASM) ./wasm
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $(EXPLORE_WASM) ./wasm/explorer
	install -m 644 "$(GOROOT)/lib/wasm/wasm_exec.js" web/wasm_exec.js
	gzip -k -9 -f $(WASM) $(EXPLORE_WASM)

# The canvas's Chinese glyphs: a subset of Noto Sans CJK SC (font 2 of the collection,
# Debian's fonts-noto-cjk) with exactly the runes of wasm/view's words table, plus what
# pyftsubset needs (pip install fonttools). The subset is committed; TestFontHasEveryWord
# fails when a word needs a rune it lacks.
CJK_TTC ?= /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
canvas-font:
	$(GO) run ./wasm/font/gen > wasm/font/canvas-zh.txt
	pyftsubset "$(CJK_TTC)" --font-number=2 --text-file=wasm/font/canvas-zh.txt \
		--layout-features='*' --no-hinting --desubroutinize --output-file=wasm/font/canvas-zh.otf

serve: wasm
	$(GO) run ./cmd/deliverylab serve

test: fmt-check vet test-native test-wasm test-browser conformance-note

fmt-check:
	@unformatted="$$(gofmt -l .)"; \
	if [ -n "$$unformatted" ]; then echo "gofmt -l: these files need gofmt -w:"; echo "$$unformatted"; exit 1; fi

vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./wasm/...

# Everything but the browser tests, which test-browser runs after building the bundle;
# then a short pass of each fuzz target.
test-native:
	$(GO) test $$($(GO) list ./... | grep -v '/browsertest$$')
	$(MAKE) fuzz-short

# A short pass of each fuzz target (plain `go test` runs only their seeds). One line per
# target: go test fuzzes one target of one package at a time, and writes any failing
# input to core/scene/testdata/fuzz/<target>. A new input that finds something is
# minimized for at most -fuzzminimizetime, so the pass stays short.
# FuzzParseScene: scene text into scene.Parse (core/scene/fuzz_parse_test.go).
# FuzzFaultSchedule: bytes into a fault schedule over a shipped scene (fuzz_faults_test.go).
# The budgets are counts of inputs, not durations: Go 1.26's fuzz coordinator can fail a
# duration budget with "context deadline exceeded" as it runs out while a worker is in the
# middle of an input (golang/go#75804, fixed in Go 1.27), which a run of fault schedules,
# some of them seconds long, hit here. About 10 s and 20 s on this machine.
FUZZ_PARSE ?= 5000x
FUZZ_FAULTS ?= 2500x
fuzz-short:
	$(GO) test -run '^$$' -fuzz '^FuzzParseScene$$' -fuzztime $(FUZZ_PARSE) -fuzzminimizetime 5s ./core/scene
	$(GO) test -run '^$$' -fuzz '^FuzzFaultSchedule$$' -fuzztime $(FUZZ_FAULTS) -fuzzminimizetime 5s ./core/scene

test-wasm:
	GOOS=js GOARCH=wasm $(GO) test -exec "$(WASMEXEC)" $(WASM_TEST_PKGS)

# -count=1: the result depends on web/main.wasm and on Chromium, which the test cache
# does not see.
test-browser: wasm browser-deps
	DELIVERYLAB_REQUIRE_BROWSER=1 $(GO) test -count=1 -v -timeout 30m ./browsertest/

# Chromium drives the browser tests; fonts-noto-cjk lets screenshots show the Chinese UI.
browser-deps:
	@if { [ -x "$${CHROMIUM:-}" ] || command -v chromium >/dev/null 2>&1; } && fc-list :lang=zh 2>/dev/null | grep -q .; then \
		exit 0; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-noto-cjk; \
	else \
		echo "browser tests need Chromium and a CJK font: install the Debian packages chromium and fonts-noto-cjk"; \
		echo "  (sudo apt-get install --no-install-recommends chromium fonts-noto-cjk), or point CHROMIUM at a Chromium binary"; \
		exit 1; \
	fi

# The conformance suite is not part of `make test`: it starts a real Kafka cluster and
# takes minutes. Say so, and whether this machine could run it.
conformance-note:
	@if command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1; then \
		echo "conformance suite: not part of make test (it runs every scene against a real Kafka cluster): run make conformance"; \
	else \
		echo "conformance suite skipped: it needs a JDK 17 and Maven (.ci/run installs them); the tests above need neither"; \
	fi

# Every shipped scene in the simulator and against a real Apache Kafka 3.9 cluster
# (conformance/README.md): first the harness's own tests, then the comparison table.
conformance: SHELL := bash
conformance:
	@command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1 || { echo "make conformance needs a JDK 17 and Maven (Debian: openjdk-17-jdk-headless maven)"; exit 1; }
	mvn -q -B -f conformance/pom.xml package
	@# The runner's Kafka 4 build (make conformance-kafka4) compiles from the same sources: keep it compiling.
	mvn -q -B -f conformance/kafka-4/pom.xml package -DskipTests
	@mkdir -p out
	set -o pipefail; $(GO) run ./cmd/deliverylab conform --runs $(CONFORM_RUNS) --parallel $(CONFORM_PARALLEL) $(CONFORM_SCENES) | tee $(CONFORM_TABLE)

# Every scene tried on Kafka 4.x, simulated and against a real Kafka 4.4 cluster (the
# runner built against Kafka 4's jars, conformance/kafka-4/pom.xml), whether its expect
# holds there or not: a survey of what Kafka 4 changes (conform --try). Not part of CI:
# make conformance already runs each scene on every release it holds for.
conformance-kafka4: SHELL := bash
conformance-kafka4:
	@command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1 || { echo "make conformance-kafka4 needs a JDK 17 and Maven"; exit 1; }
	mvn -q -B -f conformance/kafka-4/pom.xml package -DskipTests
	@mkdir -p out
	set -o pipefail; $(GO) run ./cmd/deliverylab conform --kafka 4.x --try --runs $(CONFORM_RUNS) $(CONFORM_SCENES) | tee out/conformance-kafka4.txt

# make bench: every benchmark, natively, under WebAssembly in Node and in headless
# Chromium, then one table of figures beside their budgets (cmd/benchtable). The raw
# output stays in out/bench.txt.
BENCH_OUT := out/bench.txt
bench: SHELL := bash
bench: wasm browser-deps
	@mkdir -p out && : > $(BENCH_OUT)
	set -o pipefail; $(GO) test -run '^$$' -bench . ./core/... ./wasm/view/ ./cmd/deliverylab/ | tee -a $(BENCH_OUT)
	set -o pipefail; GOOS=js GOARCH=wasm $(GO) test $(WASM_GCFLAGS) -exec "$(WASMEXEC)" -run '^$$' -bench 'KernelEventsPerSecond|ScrubberSeek' ./core/scene/ ./core/play/ | tee -a $(BENCH_OUT)
	set -o pipefail; DELIVERYLAB_REQUIRE_BROWSER=1 $(GO) test -run '^$$' -bench 'PausedPageCPU|PlayingPageCPU|FindAFailureInPage|PageLoad|DrawWithManyInFlight|LearningARunToTheEventLimit' -benchtime 1x -timeout 30m ./browsertest/ | tee -a $(BENCH_OUT)
	@for f in $(WASM) $(WASM).gz $(EXPLORE_WASM).gz; do echo "size: $$(basename $$f) $$(stat -c %s $$f)"; done >> $(BENCH_OUT)
	@echo "size: main.wasm.br $$(node -e 'const z = require("zlib"); process.stdout.write(String(z.brotliCompressSync(require("fs").readFileSync(process.argv[1]), {params: {[z.constants.BROTLI_PARAM_QUALITY]: 11}}).length))' $(WASM))" >> $(BENCH_OUT)
	@echo
	@# The referee's figures come from the last make conformance (an hour of real clusters is
	@# no benchmark to run again here), when there is one.
	@cat $(BENCH_OUT) $(wildcard $(CONFORM_OUT)) | $(GO) run ./cmd/benchtable

clean:
	rm -f $(WASM) $(WASM).gz $(EXPLORE_WASM) $(EXPLORE_WASM).gz web/wasm_exec.js
	rm -rf browsertest/out conformance/target out
