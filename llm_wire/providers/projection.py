"""
Schema projection: a schema rewritten into one provider's dialect, with a report of what it cost.

Each provider dialect is a ``Profile``, a frozen record of rules (data, not a subclass); one function,
``project_schema``, reads any profile (each ``Wire`` holds its API's profiles, and ``Wire.project_schema``
picks one). The result is a ``Projection``: the wire schema (a JSON value: Gemini's OpenAPI dialect is not
JSON Schema), every ``Loss`` (a keyword dropped or rewritten, with its path and what it costs), whether it
keeps the schema's meaning (``Projection.qualifies``), and what admission needs to undo it:
``Projection.restore`` turns a ``null`` the model sent for a property that strict mode made nullable back
into an absent member. Admission always validates against the original schema, so a dropped constraint is
still enforced. A schema a dialect cannot express at all is a ``ProjectionError``.
"""

from __future__ import annotations

from llm_wire import _deprecated, _public
from llm_wire.providers._profiles import (
    Action,
    Loss,
    Optionals,
    Profile,
    Projection,
    ProjectionError,
    Refs,
    Values,
)
from llm_wire.providers._project import project_schema
from llm_wire.value import Path, Value  # noqa: F401 - resolves the records' annotations here

__all__ = [
    "Action",
    "Loss",
    "Optionals",
    "Profile",
    "Projection",
    "ProjectionError",
    "Refs",
    "Values",
    "project_schema",
]

_public.rehome(__name__, __all__, globals())


# Old names, importable for one release (``llm_wire._deprecated.ALIASES``), not listed.
def _qualifies(projection: Projection) -> bool:
    return projection.qualifies


qualifies = _deprecated.renamed(_qualifies, "llm_wire.providers.projection.qualifies")
