"""
Undoing a strict projection on the arguments a model sent, and the schema-node readers the walk shares.

Strict OpenAI requires every property and sends an optional one as nullable; ``restore`` turns each ``null``
the model sent for such a property back into an absent member, following the wire schema (``$ref`` into
``$defs``, the one ``anyOf`` branch a value fits, properties, ``items`` and ``prefixItems``). Used by
``projection.Projection.restore``.
"""

from __future__ import annotations

from collections.abc import Set
from decimal import Decimal

from llm_wire.value import Path, Value

__all__ = ["is_null", "json_type", "restore", "unescape"]


def restore(value: Value, document: Value, nullable: Set[Path], max_depth: int) -> Value:
    """
    ``value`` with each ``null`` sent for a property at a path in ``nullable`` (paths in ``document``, the
    wire schema) removed; everything else unchanged. Deeper than ``max_depth`` is left as it is. Never raises.
    """

    def walk(value: Value, node: Value, path: Path, depth: int) -> Value:
        if depth > max_depth or not isinstance(node, dict):
            return value
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = _lookup(document, ref)
            if target is not None:
                return walk(value, target[0], target[1], depth + 1)
        branches = node.get("anyOf")
        if isinstance(branches, list) and value is not None and "properties" not in node:
            fits = [n for n, b in enumerate(branches) if isinstance(b, dict) and _fits(value, b)]
            if len(fits) == 1:
                return walk(value, branches[fits[0]], (*path, "anyOf", fits[0]), depth + 1)
        if isinstance(value, dict):
            props = node.get("properties")
            if not isinstance(props, dict):
                return value
            out: dict[str, Value] = {}
            for key, member in value.items():
                where = (*path, "properties", key)
                if member is None and where in nullable:
                    continue
                sub = props.get(key)
                out[key] = member if sub is None else walk(member, sub, where, depth + 1)
            return out
        if isinstance(value, list):
            items = node.get("items")
            prefix = node.get("prefixItems")
            restored: list[Value] = []
            for n, element in enumerate(value):
                if isinstance(prefix, list) and n < len(prefix):
                    restored.append(walk(element, prefix[n], (*path, "prefixItems", n), depth + 1))
                elif items is not None:
                    restored.append(walk(element, items, (*path, "items"), depth + 1))
                else:
                    restored.append(element)
            return restored
        return value

    return walk(value, document, (), 0)


def unescape(token: str) -> str:
    """A JSON Pointer reference token unescaped (``~1`` is ``/``, ``~0`` is ``~``)."""
    return token.replace("~1", "/").replace("~0", "~")


def json_type(value: Value) -> str:
    """The JSON Schema type of ``value`` (``integer`` for a whole decimal)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, Decimal):
        return "integer" if value == value.to_integral_value() else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def is_null(schema: Value) -> bool:
    """Whether ``schema`` is exactly ``{"type": "null"}`` (or ``["null"]``)."""
    return isinstance(schema, dict) and schema.get("type") in ("null", ["null"]) and len(schema) == 1


def _fits(value: Value, branch: dict[str, Value]) -> bool:
    """Whether ``branch`` can hold ``value`` by its JSON type (or is a reference we cannot judge)."""
    if is_null(branch):
        return False
    kind = branch.get("type")
    actual = json_type(value)
    if isinstance(kind, str):
        kinds = [kind]
    elif isinstance(kind, list):
        kinds = [k for k in kind if isinstance(k, str)]
    else:
        return True
    return actual in kinds or (actual == "integer" and "number" in kinds)


def _lookup(document: Value, ref: str) -> tuple[Value, Path] | None:
    if not isinstance(document, dict):
        return None
    for defs in ("$defs", "definitions"):
        prefix = f"#/{defs}/"
        if ref.startswith(prefix):
            name = unescape(ref[len(prefix) :])
            table = document.get(defs)
            if isinstance(table, dict) and name in table:
                return table[name], (defs, name)
    if ref == "#":
        return document, ()
    return None
