"""
Public faces name their types' public home: a class defined in a private module prints the face it is
exported from (``llm_wire.codec.DecodeError``, not ``llm_wire.codec._errors.DecodeError``), as httpx does.
A face whose names load on first use (``lazy_face``: the package's root, and where a heavy optional dependency
would load) keeps import cheap.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Collection, Iterable, Mapping, MutableMapping
from typing import Any

__all__ = ["lazy_face", "rehome"]


def rehome(face: str, names: Iterable[str], namespace: Mapping[str, object]) -> None:
    """
    Set ``__module__`` to ``face`` on each class that ``names`` bind in ``namespace`` and that lives in a
    private module of the package. A face already loaded gets the names too, as its look-up would bind them
    on first use: a record's annotations (``typing.get_type_hints``, cattrs) are read in its home module.
    """
    loaded = sys.modules.get(face)
    published = vars(loaded) if loaded is not None and vars(loaded) is not namespace else None
    for name in names:
        obj = namespace[name]
        home = getattr(obj, "__module__", "")
        if isinstance(obj, type) and home.startswith("llm_wire") and "._" in home:
            obj.__module__ = face
        if published is not None:
            published.setdefault(name, obj)


def lazy_face(
    face: str,
    homes: Mapping[str, str],
    namespace: MutableMapping[str, Any],
    *,
    submodules: Collection[str] = (),
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """
    The module ``__getattr__`` and ``__dir__`` of the face ``face``, whose names load on first use: ``homes``
    maps each name to the module that defines it, ``submodules`` are modules of the face found by name, and a
    name once found is kept in ``namespace`` (the face's globals), so it costs a plain look-up after.
    """

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            if name in submodules:
                return importlib.import_module(f"{face}.{name}")
            msg = f"module {face!r} has no attribute {name!r}"
            raise AttributeError(msg)
        found = getattr(importlib.import_module(home), name)
        namespace[name] = found
        return found

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(namespace["__all__"]))

    return __getattr__, __dir__
