"""
The governed process toolkit: allowlisted executables run by argv, with bounded input, output and time.

``ProcessRuntime(ProcessPolicy(working_directory_root=..., allowed_executables=(...)))`` checks every request
before launch: the executable must be an allowlisted absolute file (a bare name only through the configured
search paths), the environment is built from ``base_environment`` plus allowlisted overrides (nothing is
inherited), stdin is written to a pipe (no shell), the workdir stays inside the root, and every limit is
bounded (0 means the policy maximum, never unbounded). On timeout or cancellation the whole process tree
is killed. ``run_shell`` works only when the policy allows a shell; it is critical and asks for approval by
default.

It is not a sandbox: an allowed program may still read files and use the network.
"""

from __future__ import annotations

from llm_wire import _public
from llm_wire.toolkits.process._records import (
    ProcessLimits,
    ProcessPolicy,
    ProcessResult,
    TerminationReason,
)
from llm_wire.toolkits.process._runtime import ProcessRuntime

__all__ = [
    "TerminationReason",
    "ProcessLimits",
    "ProcessPolicy",
    "ProcessResult",
    "ProcessRuntime",
]

_public.rehome(__name__, __all__, globals())
