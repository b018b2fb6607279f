# Rulecraft: `make build` builds every ruleset into output/ (each one's player's sheet, core sheet and designer's
# proof), `make test` runs the tests but the whole-sheet PDF renders, which `make test-pdf` runs (CI runs both),
# `make fuzz` fuzzes the compiler for longer than the tests do (HYPOTHESIS_PROFILE=fuzz). Each creates .venv and
# installs the project on first use; nothing else is needed.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: build test test-pdf lint check fuzz clean bench

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# An editable install is not byte-compiled as a wheel's is; compiling the package here spares every command
# from compiling it again in memory where Python may not write its cache (PYTHONDONTWRITEBYTECODE).
build: $(STAMP)
	$(BIN)/python -m compileall -q compiler
	$(BIN)/rulecraft build --one-page --proof

# The tests run on every core (pytest-xdist; idle workers take tests from busy ones, as the fuzz tests take
# seconds and most others milliseconds; PYTEST_WORKERS=0 for one process), but those marked `pdf`:
# whole sheets rendered with WeasyPrint, a minute and a half on two cores. `make test-pdf` runs those in one
# process, which renders the sheets on every core itself (an xdist worker each would render them all again).
PYTEST_WORKERS ?= auto

test: $(STAMP)
	$(BIN)/ruff check compiler tests bench
	$(BIN)/mypy
	$(BIN)/rulecraft fmt --check
	$(BIN)/pytest -m "not pdf" -n $(PYTEST_WORKERS) --dist worksteal

test-pdf: $(STAMP)
	$(BIN)/pytest -m pdf

check: $(STAMP)
	$(BIN)/rulecraft check

# `make fuzz` also runs the semantic fuzzer (tests/semantic_fuzz.py): FUZZ_N rulesets from FUZZ_SEED, each in a
# forked child with a time budget; each distinct failure is written, shrunk, to FUZZ_OUT (ignored by git).
FUZZ_N ?= 10000
FUZZ_SEED ?= 1
FUZZ_OUT ?= tmp/fuzz-failures

fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz $(BIN)/pytest tests/test_fuzz.py
	$(BIN)/python -m tests.semantic_fuzz -n $(FUZZ_N) --seed $(FUZZ_SEED) --out $(FUZZ_OUT)

# `make bench`: the benchmark suite (bench/README.md); writes bench/REPORT.md. Its comparison libraries live in
# bench/.venv only: d20 pins lark-parser 0.9, which installs into lark's folder, so it goes in without its
# dependencies (it runs on lark 1.x) and the project's lark stays.
BENCH_VENV := bench/.venv
BENCH_STAMP := $(BENCH_VENV)/.installed

$(BENCH_STAMP): pyproject.toml
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install --quiet --upgrade pip
	$(BENCH_VENV)/bin/pip install --quiet -e . icepool numpy cachetools
	$(BENCH_VENV)/bin/pip install --quiet --no-deps d20
	touch $(BENCH_STAMP)

bench: $(STAMP) $(BENCH_STAMP)
	$(BIN)/python -m compileall -q compiler
	$(BENCH_VENV)/bin/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
