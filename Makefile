# Rulecraft: `make build` builds every ruleset into output/, `make test` runs the tests,
# `make fuzz` fuzzes the compiler for longer than the tests do (HYPOTHESIS_PROFILE=fuzz).
# Both create .venv and install the project on first use; nothing else is needed.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: build test lint check fuzz clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

build: $(STAMP)
	$(BIN)/rulecraft build

test: $(STAMP)
	$(BIN)/ruff check compiler tests
	$(BIN)/mypy
	$(BIN)/rulecraft fmt --check
	$(BIN)/pytest

check: $(STAMP)
	$(BIN)/rulecraft check

fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz $(BIN)/pytest tests/test_fuzz.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
