PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test fuzz demo demo-workers bench lint typecheck install install-conformance install-postgres conformance clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

# The editable install puts the checkout on sys.path through a plain .pth entry (setuptools' compat mode), as a
# wheel install puts the package in site-packages: the default mode's import hook costs every interpreter start
# about 15 ms (it loads pathlib and importlib.util), a cost no user of the wheel pays.
$(STAMP): $(BIN)/python pyproject.toml Makefile
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]' --config-settings editable_mode=compat
	touch $(STAMP)

install: $(STAMP)

# Test-only Node.js packages, pinned in conformance/package-lock.json: the MCP conformance suite, the reference
# server `server-everything`, and the Node.js 22 the suite needs (machines have 20). Without npm, the tests
# that need them are skipped, and say so.
NPM_STAMP := conformance/node_modules/.installed

$(NPM_STAMP): conformance/package.json conformance/package-lock.json
	cd conformance && npm ci --no-audit --no-fund --loglevel=error
	touch $(NPM_STAMP)

install-conformance:
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory $(NPM_STAMP); \
	else echo "install-conformance: npm is not on PATH: the MCP conformance and reference-server tests are skipped"; fi

# PostgreSQL's server binaries for the tests, the demo and the benchmarks that start a throwaway server
# (`llm_wire/demo/postgres_server.py`): Debian's package when initdb is missing. Without them those tests are
# skipped, and say so.
install-postgres:
	@if command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		echo "install-postgres: apt-get install postgresql"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	else echo "install-postgres: no initdb, and no apt-get as root: the PostgreSQL tests are skipped"; fi

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# The suite on every core (pytest-xdist); `$(BIN)/pytest path` runs a part serially, with its printed tallies.
test: lint typecheck install-conformance install-postgres
	$(BIN)/pytest -n auto

# The MCP client conformance suite against llm_wire.mcp, held to conformance/baseline.md (also run by `test`).
conformance: $(STAMP) install-conformance
	$(BIN)/python conformance/run.py

# The differential test against jsonschema at length (not part of `test`): FUZZ_EXAMPLES schemas per test,
# two tests; prints the tally of schemas, verdicts and refusals.
FUZZ_EXAMPLES ?= 100000
fuzz: $(STAMP)
	HYPOTHESIS_PROFILE=fuzz LLM_WIRE_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/pytest -s tests/contract/test_differential.py

# `make demo DEMO_FLAGS=--trace` prints the agent section's OpenTelemetry spans.
demo: $(STAMP)
	$(BIN)/python -m llm_wire demo $(DEMO_FLAGS)

# A throwaway PostgreSQL server, three durable workers over a dozen runs, one killed mid-run: the others finish.
demo-workers: $(STAMP) install-postgres
	$(BIN)/python -m llm_wire.demo.workers

bench: $(STAMP)
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis conformance/node_modules conformance/results
