# The two commands of the README: `make serve` and `make test`. Both install what is missing.
PORT ?= 8000
export CHROMEDRIVER ?= /usr/bin/chromedriver

.PHONY: setup wasm serve dist fmt test test-native test-wasm test-wasm-relaxed bench

# The page's, the tests' and the scripts' JavaScript, in prettier's format (.prettierrc.json:
# 100 columns; .prettierignore leaves out what is built). `make fmt` writes it; `make test`
# checks it first, so the file-size limit counts formatted lines.
JS := 'www/**/*.js' 'tests/**/*.mjs' 'scripts/*.mjs'
PRETTIER := node_modules/.bin/prettier

fmt: setup
	$(PRETTIER) --write --log-level=warn $(JS)

setup:
	bash scripts/setup

wasm: setup
	bash scripts/build-wasm

serve: wasm
	@echo "DP-SGD Lab: open http://127.0.0.1:$(PORT)/ (Ctrl-C stops the server)"
	/usr/bin/python3 scripts/serve.py $(PORT)

# The lab as one folder to copy to any static host (see docs/teaching.md).
dist: wasm
	bash scripts/dist dist

# Each wasm flavour is compiled once: scripts/build-wasm's release builds (simd128 and relaxed
# SIMD in target/relaxed, at once) are the libraries the two wasm-bindgen-test runs link
# against (the same features: Cargo.toml's serde_json), and scripts/build-wasm-tests compiles
# both test binaries at once before they run. On a fresh machine the native tests compile while
# scripts/setup downloads the browsers, the npm tools and Fashion-MNIST (--while). The
# end-to-end files that time anything run first, one after another, the others then two at a
# time (scripts/test-e2e). Beside the first, at nice 19, the work that needs no page: the
# type check (10 s, alone on the cores before), the native tests' run, then the browser
# tests' build and their two runs (after make's end-to-end files they took 20-30 s alone).
# Those files leave 30% of the two cores idle, which this fills (a fresh clone, quiet: 1,126
# s, run 92). The native build beside them too filled it all and gained nothing (1,123 s, run
# 94): the suite is then CPU-bound throughout. The browser tests time nothing, so at nice 19
# wasm-bindgen-test-runner's limits (20 s for the tests, 5 s for ChromeDriver to answer) are
# raised: busy cores beside them may hold them back that long.
BESIDE_WASM := WASM_BINDGEN_TEST_TIMEOUT=1200 WASM_BINDGEN_TEST_DRIVER_TIMEOUT=120
test:
	bash scripts/setup --while cargo test --profile release-test --no-run
	$(PRETTIER) --check --log-level=warn $(JS)
	bash scripts/build-wasm
	node --test tests/unit/ tests/docs/
	bash scripts/test-e2e --beside bash -c 'status=0; bash scripts/typecheck || status=1; \
	  cargo test --profile release-test || status=1; \
	  if bash scripts/build-wasm-tests; then $(BESIDE_WASM) $(MAKE) -k test-wasm test-wasm-relaxed \
	  || status=1; else status=1; fi; exit $$status'

test-native:
	cargo test --profile release-test

# The browser tests on the simd128 build, in release mode like scripts/build-wasm's first
# build, whose compiled library they reuse.
test-wasm:
	cargo test --release --target wasm32-unknown-unknown --test web

# The same browser tests on the relaxed-SIMD build (its fused multiply-add kernel), in release
# mode with scripts/build-wasm's target dir, whose dependencies it reuses.
test-wasm-relaxed:
	RUSTFLAGS="-C target-feature=+simd128,+relaxed-simd" CARGO_TARGET_DIR=target/relaxed \
	  cargo test --release --target wasm32-unknown-unknown --test web

# Benchmarks (figures, not tests): native, then the same code in wasm in headless Chromium.
bench: setup
	cargo run --release --bin dpsgd -- bench
	cargo test --release --target wasm32-unknown-unknown --test web_bench -- --nocapture
	bash scripts/build-wasm
	node scripts/bench-kernels.mjs
	node scripts/bench-parallel.mjs
	node scripts/bench-audit.mjs
	node scripts/bench-load.mjs
	node scripts/bench-engines.mjs
	node scripts/bench-paper.mjs
