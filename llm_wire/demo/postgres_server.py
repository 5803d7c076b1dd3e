"""
A throwaway PostgreSQL server for the demo, the tests and the benchmarks: ``initdb`` makes a cluster in a
temporary folder, ``pg_ctl`` starts it on a free loopback port (its socket in that folder too) and stops it,
and the folder goes with it. Nothing is assumed to be running.

PostgreSQL refuses to run as root: run as root, the cluster belongs to the unprivileged user ``nobody``
(the server runs as that user; the caller connects over TCP, trusted on loopback).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["Cluster", "ClusterUnavailable", "find_binaries", "start"]

#: The superuser the cluster is made with (trust authentication on loopback).
USER = "llm_wire"

#: Settings for a server that must be quick and holds nothing worth keeping (tests, the demo).
THROWAWAY: Mapping[str, str] = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}


class ClusterUnavailable(Exception):
    """No PostgreSQL server could be started here; the message says why."""


def find_binaries() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl``: on ``PATH``, or Debian's ``/usr/lib/postgresql/N/bin``."""
    found = shutil.which("initdb")
    if found is not None and shutil.which("pg_ctl") is not None:
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version_of, reverse=True)
    return Path(versions[0]).parent if versions else None


def _version_of(path: str) -> int:
    number = Path(path).parent.parent.name
    return int(number) if number.isdigit() else 0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Cluster:
    """A running throwaway cluster: ``url(database)`` to connect, ``stop()`` (idempotent) to end it."""

    def __init__(self, folder: Path, binaries: Path, port: int, owner: pwd.struct_passwd | None) -> None:
        self.folder = folder
        self.port = port
        self._binaries = binaries
        self._owner = owner
        self._running = True

    def __repr__(self) -> str:
        return f"<Cluster 127.0.0.1:{self.port}>"

    def url(self, database: str = "postgres") -> str:
        """A libpq URL of ``database`` on this cluster."""
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """Create the database ``name`` (letters, digits, ``_``) and return its URL."""
        if not name.replace("_", "").isalnum():
            raise ValueError("a database name here is letters, digits and _")
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        """Stop the server at once and remove its folder."""
        if self._running:
            self._running = False
            _run(
                self._binaries / "pg_ctl",
                "-D",
                str(self.folder / "data"),
                "-m",
                "immediate",
                "-w",
                "stop",
                owner=self._owner,
                check=False,
            )
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _run(*command: str | Path, owner: pwd.struct_passwd | None, check: bool = True) -> str:
    """Run ``command`` (as ``owner`` when given); its output, or ``ClusterUnavailable`` with its end."""
    options: dict[str, Any] = {}
    if owner is not None:
        options = {"user": owner.pw_uid, "group": owner.pw_gid, "extra_groups": []}
    done = subprocess.run(
        [str(part) for part in command],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "LC_ALL": "C"},
        cwd="/",
        **options,
    )
    if check and done.returncode != 0:
        raise ClusterUnavailable(f"{Path(command[0]).name} failed: {(done.stderr or done.stdout)[-500:]}")
    output: str = done.stdout
    return output


def start(settings: Mapping[str, str] = THROWAWAY, *, max_connections: int = 300) -> Cluster:
    """
    Make and start a cluster with ``settings`` (``postgres -c`` options); raises ``ClusterUnavailable`` when
    the server binaries are missing or the server does not start.
    """
    binaries = find_binaries()
    if binaries is None:
        raise ClusterUnavailable(
            "PostgreSQL's initdb is not installed (`apt-get install postgresql`, or `make install-postgres`)"
        )
    owner = None
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("nobody")
        except KeyError:
            raise ClusterUnavailable(
                "running as root, and there is no user `nobody` to run PostgreSQL"
            ) from None
    folder = Path(tempfile.mkdtemp(prefix="llm_wire-pg-"))
    try:
        if owner is not None:
            os.chown(folder, owner.pw_uid, owner.pw_gid)
        data = folder / "data"
        _run(
            binaries / "initdb",
            "-D",
            data,
            "-U",
            USER,
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
            "--no-instructions",
            owner=owner,
        )
        port = _free_port()
        options = [
            f"-p {port}",
            f"-k {folder}",
            "-c listen_addresses=127.0.0.1",
            f"-c max_connections={max_connections}",
        ]
        options += [f"-c {key}={value}" for key, value in settings.items()]
        _run(
            binaries / "pg_ctl",
            "-D",
            data,
            "-l",
            folder / "server.log",
            "-w",
            "-t",
            "60",
            "-o",
            " ".join(options),
            "start",
            owner=owner,
        )
    except (ClusterUnavailable, OSError, subprocess.SubprocessError) as exc:
        log = folder / "server.log"
        tail = log.read_text(errors="replace")[-500:] if log.exists() else ""
        shutil.rmtree(folder, ignore_errors=True)
        raise ClusterUnavailable(f"PostgreSQL did not start: {exc} {tail}".strip()) from None
    return Cluster(folder, binaries, port, owner)
