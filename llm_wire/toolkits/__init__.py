"""
Governed toolkits: filesystem and process tools an agent can be given without handing it the machine.

``llm_wire.toolkits.filesystem`` keeps every path inside one root; ``llm_wire.toolkits.process`` runs
allowlisted executables by argv, never through a shell unless a host opts in twice. Both enforce their policy
where the effect happens, ask an ``EffectApprover`` for what needs approval, and record audit events
(``llm_wire.toolkits.governance``).
"""

from __future__ import annotations

from llm_wire.toolkits.filesystem import FilesystemPolicy, FilesystemRuntime

__all__ = ["FilesystemPolicy", "FilesystemRuntime"]
