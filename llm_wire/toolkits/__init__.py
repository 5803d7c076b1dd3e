"""
Governed toolkits: filesystem and process tools an agent can be given without handing it the machine.

``llm_wire.toolkits.filesystem`` keeps every path inside one root; ``llm_wire.toolkits.process`` runs
allowlisted executables by argv, never through a shell unless a host opts in twice. Both enforce their policy
where the effect happens, ask an ``EffectApprover`` for what needs approval, and record audit events
(``llm_wire.toolkits.governance``). ``llm_wire.toolkits.tools`` exposes both as agent ``ToolProvider``s.
"""

from __future__ import annotations

from llm_wire.toolkits.filesystem import FilesystemPolicy, FilesystemRuntime
from llm_wire.toolkits.process import ProcessPolicy, ProcessRuntime
from llm_wire.toolkits.tools import FilesystemTools, ProcessTools

__all__ = [
    "FilesystemPolicy",
    "FilesystemRuntime",
    "FilesystemTools",
    "ProcessPolicy",
    "ProcessRuntime",
    "ProcessTools",
]
