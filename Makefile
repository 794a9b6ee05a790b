# Every target creates or reuses .venv and installs schedlab into it first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TRACES ?= ../shared/traces
# Slow tests (full real traces, a few minutes) run in CI; `make test PYTEST_ARGS=` runs them here too.
PYTEST_ARGS ?= -m "not slow"

.PHONY: demo test lint bench clean browser

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The editable install compiles the Rust core (rust/) with maturin; a change to it reinstalls.
$(VENV)/.installed: $(BIN)/activate pyproject.toml rust/Cargo.toml rust/Cargo.lock $(wildcard rust/src/*.rs)
	$(BIN)/pip install --quiet -e ".[test]"
	touch $@

# The HPC2N log by name: from $(TRACES) when it holds it, else downloaded once into the cache (checksum verified).
demo: $(VENV)/.installed
	SCHEDLAB_TRACES=$(TRACES) $(BIN)/schedlab simulate pwa:HPC2N-2002-2.2-cln --policy easy --out runs/demo-hpc2n-easy --force

# The compiled core's own unit tests (the tree profile against a list profile), then the Python suite.
test: browser $(VENV)/.installed
	cd rust && cargo test --release --quiet
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# Static checks: lint, formatting, the layers of docs/architecture.md, types; then the compiled core's
# lints where the toolchain has clippy (rustup's default profile does).
lint: $(VENV)/.installed
	$(BIN)/ruff check src tests benchmarks scripts examples
	$(BIN)/ruff format --check src tests benchmarks scripts examples
	$(BIN)/lint-imports
	$(BIN)/mypy src/schedlab
	if cargo clippy --version >/dev/null 2>&1; then cd rust && cargo clippy --quiet -- -D warnings; else echo "cargo clippy not installed: Rust lints skipped"; fi

# Headless Chromium + chromedriver for tests/test_browser.py: installed with apt as root, else that test skips.
browser:
	bash scripts/install-browser.sh

bench: $(VENV)/.installed
	$(BIN)/python benchmarks/bench_rigid.py --traces $(TRACES)

clean:
	rm -rf $(VENV) runs build src/*.egg-info rust/target src/schedlab/native/_core*.so
