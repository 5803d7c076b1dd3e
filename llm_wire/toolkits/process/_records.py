"""
The process toolkit's records: its limits and policy, how a request ended, and what it returns.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence

from attrs import field, frozen

from llm_wire.toolkits._common import positive_limit
from llm_wire.toolkits.governance import _MetadataValue, _path

__all__ = [
    "RESERVED_PROCESS_METADATA",
    "ProcessLimits",
    "ProcessPolicy",
    "ProcessResult",
    "TerminationReason",
]

_KiB = 1 << 10
_MiB = 1 << 20

#: Metadata keys only the runtime sets; a caller's values for them are dropped.
RESERVED_PROCESS_METADATA = frozenset(
    {"operation_id", "operation", "shell", "executable", "launch_error", "wait_error", "signal"}
)


class TerminationReason(enum.Enum):
    """How a process request ended; a non-zero exit is still ``EXITED``, a successful tool result."""

    EXITED = "exited"
    TIMED_OUT = "timed_out"
    CANCELLED = "cancelled"
    LAUNCH_FAILED = "launch_failed"
    #: The policy refused the request: executable, workdir, environment key or shell.
    POLICY_DENIED = "policy_denied"
    APPROVAL_DENIED = "approval_denied"
    #: The request itself is malformed or over a limit (NUL in an argument, too many arguments, ...).
    INVALID_REQUEST = "invalid_request"
    BACKEND_ERROR = "backend_error"


@frozen
class ProcessLimits:
    """The policy maxima; a request's limit of 0 means the maximum, and a larger one is clamped to it."""

    timeout_ms: int = field(default=30_000, validator=positive_limit)
    max_stdout_bytes: int = field(default=_MiB, validator=positive_limit)
    max_stderr_bytes: int = field(default=_MiB, validator=positive_limit)
    max_stdin_bytes: int = field(default=_MiB, validator=positive_limit)
    max_argument_bytes: int = field(default=256 * _KiB, validator=positive_limit)
    max_arguments: int = field(default=256, validator=positive_limit)
    max_environment_bytes: int = field(default=64 * _KiB, validator=positive_limit)
    max_environment_entries: int = field(default=256, validator=positive_limit)


def _strings(value: object) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence | frozenset | set):
        raise TypeError("expected a sequence of str")
    items = tuple(value)
    if not all(isinstance(item, str) for item in items):
        raise TypeError("expected a sequence of str")
    return items


def _environment(value: object) -> Mapping[str, str]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise TypeError("expected a mapping of str to str")
    return dict(value)


def _bool(instance: object, attribute: object, value: object) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"ProcessPolicy.{getattr(attribute, 'name', 'flag')} must be a bool")


def _str(instance: object, attribute: object, value: object) -> None:
    if not isinstance(value, str):
        raise TypeError(f"ProcessPolicy.{getattr(attribute, 'name', 'setting')} must be a str")


def _limits(instance: object, attribute: object, value: object) -> None:
    if not isinstance(value, ProcessLimits):
        raise TypeError("ProcessPolicy.limits must be a ProcessLimits")


def _key_set(value: object) -> frozenset[str]:
    return frozenset(_strings(value))


@frozen
class ProcessPolicy:
    """
    What the runtime may run. ``allowed_executables`` holds absolute paths (each authorizes exactly that
    canonical file) or bare names (found only in ``executable_search_paths``); ``base_environment`` is the
    whole environment a process starts from, and a request may set only ``allowed_environment_overrides``.
    The shell is off; turned on, it still asks for approval unless ``require_approval_for_shell`` is off.
    """

    working_directory_root: str = field(converter=_path)
    allowed_executables: tuple[str, ...] = field(default=(), converter=_strings)
    executable_search_paths: tuple[str, ...] = field(default=(), converter=_strings)
    default_workdir: str = field(default=".", validator=_str)
    base_environment: Mapping[str, str] = field(factory=dict, converter=_environment)
    allowed_environment_overrides: frozenset[str] = field(default=frozenset(), converter=_key_set)
    allow_shell: bool = field(default=False, validator=_bool)
    require_approval_for_process: bool = field(default=False, validator=_bool)
    require_approval_for_shell: bool = field(default=True, validator=_bool)
    shell_executable: str = field(default="/bin/sh", validator=_str)
    limits: ProcessLimits = field(default=ProcessLimits(), validator=_limits)


@frozen
class ProcessResult:
    """
    How a request ended. ``stdout``/``stderr`` are the kept bytes as UTF-8 text (bad bytes replaced);
    ``exit_code`` is set for ``EXITED`` only; ``error`` is our text (never input) when the request failed.
    """

    termination_reason: TerminationReason
    stdout: str = ""
    stderr: str = ""
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    elapsed_ms: int = 0
    exit_code: int | None = None
    process_id: int | None = None
    metadata: Mapping[str, _MetadataValue] = field(factory=dict)
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the process ran to its own exit (with any exit code)."""
        return self.termination_reason is TerminationReason.EXITED

    def to_plain(self) -> dict[str, object]:
        """The result as JSON-ready data (what a model sees)."""
        plain: dict[str, object] = {
            "termination_reason": self.termination_reason.value,
            "exit_code": self.exit_code,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "stdout_truncated": self.stdout_truncated,
            "stderr_truncated": self.stderr_truncated,
            "elapsed_ms": self.elapsed_ms,
            "process_id": self.process_id,
            "metadata": dict(self.metadata),
        }
        if self.error is not None:
            plain["error"] = self.error
        return plain
