"""
A real PostgreSQL server for the tests (a pytest plugin, loaded by ``conftest.py``): ``postgres`` is a
throwaway cluster made with ``initdb`` and started with ``pg_ctl`` once per test session (per xdist worker),
stopped at the end (``llm_wire.demo.postgres_server``). Never assumed to be running: where no server can
be started, the tests that need one are skipped, saying why.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from llm_wire.demo.postgres_server import Cluster, ClusterUnavailable, start

_names = itertools.count()


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    """A running PostgreSQL cluster for this session."""
    try:
        cluster = start()
    except ClusterUnavailable as exc:
        pytest.skip(f"no PostgreSQL server for this test: {exc}")
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def postgres_database(postgres: Cluster) -> str:
    """The URL of a new, empty database on the session's cluster."""
    return postgres.create_database(f"test_{next(_names)}")
