"""
Public faces name their types' public home: a class defined in a private module prints the face it is
exported from (``llm_wire.codec.DecodeError``, not ``llm_wire.codec._errors.DecodeError``), as httpx does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["rehome"]


def rehome(face: str, names: Iterable[str], namespace: Mapping[str, object]) -> None:
    """
    Set ``__module__`` to ``face`` on each class that ``names`` bind in ``namespace`` and that lives in a
    private module of the package.
    """
    for name in names:
        obj = namespace[name]
        home = getattr(obj, "__module__", "")
        if isinstance(obj, type) and home.startswith("llm_wire") and "._" in home:
            obj.__module__ = face
