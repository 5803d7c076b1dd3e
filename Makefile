PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test fuzz demo bench lint typecheck install clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# The suite on every core (pytest-xdist); `$(BIN)/pytest path` runs a part serially, with its printed tallies.
test: lint typecheck
	$(BIN)/pytest -n auto

# The differential test against jsonschema at length (not part of `test`): FUZZ_EXAMPLES schemas per test,
# two tests; prints the tally of schemas, verdicts and refusals.
FUZZ_EXAMPLES ?= 100000
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz LLM_WIRE_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/pytest -s tests/contract/test_differential.py

demo: $(STAMP)
	$(BIN)/python -m llm_wire demo

bench: $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
