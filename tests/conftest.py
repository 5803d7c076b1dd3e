"""
Shared test setup: hypothesis profiles.

``HYPOTHESIS_PROFILE`` picks one (``.ci/run`` exports ``ci``); without it the quicker ``dev`` profile runs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest
from hypothesis import settings

#: CI runs every property 300 times; the parser's properties pin 2,000 (``strategies.PARSER_EXAMPLES``).
settings.register_profile("ci", max_examples=300, deadline=None)
#: ``make fuzz``: the differential tests take this many schemas each (``LLM_WIRE_FUZZ_EXAMPLES``, 100,000).
settings.register_profile(
    "fuzz", max_examples=int(os.environ.get("LLM_WIRE_FUZZ_EXAMPLES", "100000")), deadline=None, database=None
)
#: Local runs stay quick.
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

#: ``postgres``: a throwaway PostgreSQL server for the tests that need one (``tests/postgres_fixture.py``).
pytest_plugins = ["postgres_fixture"]


@pytest.fixture(autouse=True)
def _recursion_limit() -> Iterator[None]:
    """Each test ends with the recursion limit it began with.

    ``mypy.api.run`` raises the limit to 16,384 and leaves it so; a later test that builds a value nested
    deeper than the stack (the refusals of values built too deep) would then overflow the C stack instead
    of raising ``RecursionError``.
    """
    limit = sys.getrecursionlimit()
    yield
    sys.setrecursionlimit(limit)
