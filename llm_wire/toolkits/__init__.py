"""
Governed toolkits: filesystem and process tools an agent can be given without handing it the machine.

``llm_wire.toolkits.filesystem`` keeps every path inside one root; ``llm_wire.toolkits.process`` runs
allowlisted executables by argv, never through a shell unless a host opts in twice. Both enforce their policy
where the effect happens, ask an ``EffectApprover`` for what needs approval, and record audit events
(``llm_wire.toolkits.governance``). ``llm_wire.toolkits.tools`` exposes both as agent ``ToolProvider``s.
Every name lives in one of those modules; this package lists none.
"""

from __future__ import annotations

# Old names, importable for one release (``llm_wire._deprecated.ALIASES``), not listed.
from llm_wire.toolkits.filesystem import FilesystemPolicy, FilesystemRuntime  # noqa: F401
from llm_wire.toolkits.process import ProcessPolicy, ProcessRuntime  # noqa: F401
from llm_wire.toolkits.tools import FilesystemTools, ProcessTools  # noqa: F401

__all__: list[str] = []
