"""
The projection walk: one function, ``project_schema``, rewriting a schema into any ``Profile``'s dialect.

Public through ``llm_wire.providers.projection`` and each ``Wire.project_schema``; the records it returns are
in ``llm_wire.providers._profiles``.
"""

from __future__ import annotations

import enum
import re
from typing import TypeAlias

from llm_wire._keywords import Role, Shape, keyword
from llm_wire.providers._profiles import (
    MAX_DEPTH,
    MAX_NODES,
    Action,
    Loss,
    Optionals,
    Profile,
    Projection,
    ProjectionError,
    Refs,
    Values,
)
from llm_wire.providers._restore import is_null, json_type, unescape
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import Schema, to_value
from llm_wire.value import Path, Value

__all__ = ["project_schema"]


def project_schema(schema: Schema, profile: Profile) -> Result[Projection, ProjectionError]:
    """
    ``schema`` (a tool's input, an object) in ``profile``'s dialect; ``Err`` when it cannot be expressed.
    """
    walker = _Walker(profile, to_value(schema))
    try:
        wire = walker.root()
    except _Refused as refused:
        return Err(refused.error)
    except RecursionError:  # pragma: no cover - MAX_DEPTH keeps the walk well inside the limit
        return Err(ProjectionError((), None, "the schema is nested too deeply"))
    unique = tuple(dict.fromkeys(walker.losses))
    return Ok(Projection(wire, unique, profile, frozenset(walker.nullable), walker.deepest))


#: Where each member of a node sits in the user's document, when not inside that node (a merged allOf
#: branch, an inlined $ref, oneOf sent as anyOf): member name to the member's path.
Homes: TypeAlias = dict[str, Path]
_COMBINATORS = ("anyOf", "oneOf", "allOf")
#: What a root ``allOf`` branch may hold to be merged into the root exactly.
_MERGEABLE = frozenset({"type", "properties", "required", "title", "description", "$comment"})
#: Root members that count the root's own properties: with one of them, merging a branch's would change
#: what they allow.
_OTHER_MEMBERS = ("additionalProperties", "patternProperties", "unevaluatedProperties")
#: Keyword values that accept every instance: a keyword so spelt means what its absence means.
_ACCEPT_ALL: dict[str, tuple[Value, ...]] = {
    **dict.fromkeys(("additionalProperties", "items", "propertyNames", "then", "else"), (True, {})),
    **dict.fromkeys(("unevaluatedItems", "unevaluatedProperties"), (True, {})),
    **dict.fromkeys(("properties", "patternProperties", "dependentSchemas", "dependentRequired"), ({},)),
    **dict.fromkeys(("minLength", "minItems", "minProperties"), (0,)),
    "uniqueItems": (False,),
    "required": ([],),
}
_OPENAPI_TYPES = {t: t.upper() for t in ("string", "number", "integer", "boolean", "array", "object", "null")}
_ANY = "accepts any value and the provider needs a type here"
_REF_ALONE = "moved into anyOf: the provider takes no keywords beside it"


class _Drop(enum.Enum):
    DROP = "drop"


_DROP = _Drop.DROP


class _Refused(Exception):
    def __init__(self, error: ProjectionError) -> None:
        super().__init__(error.reason)
        self.error = error


def _refuse(path: Path, name: str | None, reason: str) -> _Refused:
    return _Refused(ProjectionError(path, name, reason))


class _Walker:
    def __init__(self, profile: Profile, document: Value) -> None:
        self.profile = profile
        self.document = document
        self.losses: list[Loss] = []
        self.nullable: set[Path] = set()
        self.nodes = 0
        #: The deepest level written (``Projection.depth``).
        self.deepest = 0
        # Properties merged from several places (a root allOf), found by the object: each key's place.
        self.key_homes: dict[int, tuple[Value, dict[str, Path]]] = {}
        self.inlining: list[str] = []
        # Nodes walked away from where they sit in the user's document (written by the walk in place of
        # one, or left in a list that lost a member), found by the object itself: each with its place and
        # its members' homes.
        self.placed: dict[int, tuple[Value, Path, Homes]] = {}

    def loss(self, path: Path, name: str, action: Action, reason: str) -> None:
        self.losses.append(Loss(path, name, action, reason))

    def made(self, node: dict[str, Value], src: Path, homes: Homes | None = None) -> dict[str, Value]:
        """``node``, walked as the document's node at ``src`` whose members sit at ``homes``."""
        self.placed[id(node)] = (node, src, homes or {})
        return node

    # The root: a tool's arguments are always an object.

    def root(self) -> Value:
        raw = self.document
        if raw is True:
            raw = {}
        if not isinstance(raw, dict):
            raise _refuse((), None, "the schema accepts no arguments at all")
        raw = dict(raw)
        homes: Homes = {}
        seen: set[str] = set()
        while isinstance(ref := raw.get("$ref"), str):
            if ref == "#" or ref in seen:
                raise _refuse((), "$ref", "refers back to itself at the root")
            seen.add(ref)
            target, where = self.resolve(ref, ())
            del raw["$ref"]
            if isinstance(target, dict):
                homes.update({k: (*where, k) for k in target if k not in raw})
                raw = {**{k: v for k, v in target.items() if k not in raw}, **raw}
            self.loss((), "$ref", Action.REWRITTEN, "the referenced root schema is inlined")
        if not self.profile.root_combinators:
            raw = self.merge_root(raw, homes)
            for name in _COMBINATORS:
                if name in raw:
                    del raw[name]
                    self.loss(
                        homes.get(name, (name,))[:-1],
                        name,
                        Action.DROPPED,
                        "the provider refuses it at the root of a tool schema",
                    )
        kind = raw.get("type")
        if kind is None:
            raw = {"type": "object", **raw}
            self.loss((), "type", Action.REWRITTEN, '"object" added: tool arguments are always an object')
        elif isinstance(kind, list) and "object" in kind and kind != ["object"]:
            raw["type"] = "object"
            self.loss((), "type", Action.REWRITTEN, 'only "object" kept: tool arguments are always an object')
        elif kind != "object" and kind != ["object"]:
            raise _refuse((), "type", "must allow an object: tool arguments are always an object")
        if self.profile.refs is Refs.KEEP and not self.profile.recursion:
            self.refuse_recursion(raw)
        return self.node(raw, (), (), 0, homes)

    def merge_root(self, raw: dict[str, Value], homes: Homes) -> dict[str, Value]:
        """
        ``raw`` with a root ``allOf`` (or a ``oneOf``/``anyOf`` of one branch) merged into it, where that
        keeps the meaning exactly: each branch only adds properties (``type`` object, ``properties`` the root
        and the other branches do not hold with another schema, ``required``, an annotation the root lacks),
        and nothing counts the root's own properties (no ``additionalProperties``, ``patternProperties`` or
        ``unevaluatedProperties`` but one that accepts everything). Anything else is left as it is (and
        dropped with a loss by ``root``).
        """
        if "allOf" not in raw and "oneOf" not in raw and "anyOf" not in raw:
            return raw
        if any(name in raw and raw[name] not in _ACCEPT_ALL[name] for name in _OTHER_MEMBERS):
            return raw
        merged = raw
        for name in _COMBINATORS:
            branches = raw.get(name)
            if not isinstance(branches, list) or (name != "allOf" and len(branches) != 1):
                continue
            done = self.merged_branches(merged, name, branches, homes)
            if done is not None:
                merged = done
                why = "its branches are merged into it" if name == "allOf" else "its one branch is the root"
                where = homes.get(name, (name,))[:-1]
                self.loss(where, name, Action.REWRITTEN, f"{why}: the provider refuses it at the root")
        return merged

    def merged_branches(
        self, raw: dict[str, Value], name: str, branches: list[Value], homes: Homes
    ) -> dict[str, Value] | None:
        """``raw`` without ``name``, its ``branches`` merged in; ``None`` when that would not be exact."""
        props = raw.get("properties", {})
        required = raw.get("required", [])
        if not isinstance(props, dict) or not isinstance(required, list):
            return None
        props, required = dict(props), list(required)
        mine = homes.get("properties", ("properties",))
        origins: dict[str, Path] = {key: (*mine, key) for key in props}
        annotations: dict[str, Value] = {}
        at = homes.get(name, (name,))
        for n, branch in enumerate(branches):
            if branch is True:
                continue
            if not isinstance(branch, dict):
                return None
            # A member spelling its default means what its absence means.
            branch = {k: v for k, v in branch.items() if v not in _ACCEPT_ALL.get(k, ())}
            if not branch.keys() <= _MERGEABLE:
                return None
            if branch.get("type", "object") not in ("object", ["object"]):
                return None
            extra, names = branch.get("properties", {}), branch.get("required", [])
            if not isinstance(extra, dict) or not isinstance(names, list):
                return None
            for key, sub in extra.items():
                if key in props and props[key] != sub:
                    return None
                if key not in props:
                    origins[key] = (*at, n, "properties", key)
                    props[key] = sub
            required += [key for key in names if key not in required]
            for key in branch.keys() - {"type", "properties", "required"}:
                if key in raw or annotations.get(key, branch[key]) != branch[key]:
                    return None
                annotations[key] = branch[key]
                homes[key] = (*at, n, key)
        merged = {k: v for k, v in raw.items() if k != name}
        merged.update(annotations)
        if props:
            merged["properties"] = props
            self.key_homes[id(props)] = (props, origins)
        if required:
            merged["required"] = required
        return merged

    def refuse_recursion(self, root: dict[str, Value]) -> None:
        graph: dict[str, set[str]] = {}
        for defs in ("$defs", "definitions"):
            table = root.get(defs)
            if isinstance(table, dict):
                for name, sub in table.items():
                    graph[f"#/{defs}/{_escape(name)}"] = _refs_in(sub)
        if "#" in _refs_in(root):
            raise _refuse((), "$ref", "is recursive (refers to the root) and the provider takes no recursion")
        for start in graph:
            seen: set[str] = set()
            stack = list(graph[start])
            while stack:
                ref = stack.pop()
                if ref == start:
                    raise _refuse((), "$ref", "is recursive and the provider takes no recursive schemas")
                if ref not in seen:
                    seen.add(ref)
                    stack.extend(graph.get(ref, ()))

    def resolve(self, ref: str, src: Path) -> tuple[Value, Path]:
        if ref == "#":
            return self.document, ()
        for defs in ("$defs", "definitions"):
            prefix = f"#/{defs}/"
            if ref.startswith(prefix) and isinstance(self.document, dict):
                name = unescape(ref[len(prefix) :])
                table = self.document.get(defs)
                if isinstance(table, dict) and name in table:
                    return table[name], (defs, name)
        raise _refuse(src, "$ref", "does not point into this schema's $defs")

    # One node.

    def node(self, raw: Value, src: Path, out: Path, depth: int, homes: Homes | None = None) -> Value:
        """
        ``raw``, the document's node at ``src`` (its members at ``homes``, where not inside it), projected.
        """
        placed = self.placed.get(id(raw))
        if placed is not None and placed[0] is raw:
            src, homes = placed[1], placed[2]
        homes = dict(homes or {})
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _refuse(src, None, f"the projected schema would have more than {MAX_NODES} nodes")
        if depth > MAX_DEPTH:
            raise _refuse(src, None, f"the projected schema would nest deeper than {MAX_DEPTH}")
        # An inlined $ref walks its target one level down, though the wire nests it where the $ref was.
        level = depth - len(self.inlining) if self.inlining else depth
        if level > self.deepest:
            self.deepest = level
        if isinstance(raw, bool):
            if self.profile.typed:
                raise _refuse(
                    src, None, _ANY if raw else "accepts nothing, which the provider cannot express"
                )
            return raw
        if not isinstance(raw, dict):
            return raw
        raw = dict(raw)
        profile = self.profile
        raw = self.combinators(raw, src, homes)
        ref = raw.get("$ref")
        if isinstance(ref, str):
            if profile.refs is Refs.INLINE:
                return self.inline(raw, ref, src, out, depth, homes)
            if profile.ref_siblings is not None and any(
                k != "$ref" and k not in profile.ref_siblings for k in raw
            ):
                del raw["$ref"]
                if "anyOf" in raw:
                    self.loss(src, "$ref", Action.DROPPED, "no keywords beside it, and anyOf is taken")
                else:
                    raw = {
                        "anyOf": [self.made({"$ref": ref}, src, {"$ref": homes.get("$ref", (*src, "$ref"))})],
                        **raw,
                    }
                    self.loss(src, "$ref", Action.REWRITTEN, _REF_ALONE)
        if profile.openapi:
            raw = self.openapi_nullable(raw, src, homes)
        if profile.typed and "type" not in raw:
            raw = self.infer_type(raw, src)
        dropped = profile.keep is not None and "prefixItems" not in profile.keep
        if dropped and "prefixItems" in raw and "items" not in raw:
            home = homes.pop("prefixItems", (*src, "prefixItems"))
            raw["items"] = self.made({"anyOf": raw.pop("prefixItems")}, src, {"anyOf": home})
            self.loss(src, "prefixItems", Action.WIDENED, "sent as items with anyOf of the positions")
        result: dict[str, Value] = {}
        for name, value in raw.items():
            self.member(result, name, value, homes.get(name, (*src, name)), out, depth)
        branches = result.get("allOf")
        if not profile.all_of_refs and isinstance(branches, list) and any(_is_ref(b) for b in branches):
            del result["allOf"]
            self.loss(src, "allOf", Action.DROPPED, "a branch is a $ref, which the provider refuses in allOf")
        if _has_type(result, "object") or "properties" in result:
            origins = self.merged_homes(raw.get("properties")) if self.key_homes else None
            self.object_rules(result, src, out, homes.get("properties", (*src, "properties")), origins)
        if _has_type(result, "array"):
            self.array_rules(result, src)
        if profile.openapi:
            self.openapi_types(result, src)
        return result

    def member(
        self, result: dict[str, Value], name: str, value: Value, here: Path, out: Path, depth: int
    ) -> None:
        """One member of a node, the document's member at ``here`` (in its node, or in a merged one)."""
        profile = self.profile
        src = here[:-1]
        if name in ("$defs", "definitions"):
            if profile.refs is Refs.INLINE:
                self.loss(src, name, Action.REWRITTEN, "inlined where referenced: the provider takes no $ref")
                return
            if isinstance(value, dict):
                result[name] = {
                    k: self.node(v, (*here, k), (*out, name, k), depth + 1) for k, v in value.items()
                }
            return
        if profile.keep is not None and name not in profile.keep:
            if value in _ACCEPT_ALL.get(name, ()):
                self.loss(src, name, Action.REWRITTEN, "left out: its value accepts everything")
            else:
                self.loss(src, name, Action.DROPPED, "the provider does not take it")
            return
        if name == "additionalProperties" and value in (True, False, {}):
            result[name] = value
            return
        if name == "properties" and isinstance(value, dict):
            props: dict[str, Value] = {}
            origins = self.merged_homes(value) if self.key_homes else None
            for key, sub in value.items():
                place = origins[key] if origins else (*here, key)
                if sub is False and (profile.typed or profile.close_objects):
                    self.loss(place, "false", Action.REWRITTEN, "a forbidden property is left out")
                    continue
                props[key] = self.node(sub, place, (*out, name, key), depth + 1)
            result[name] = props
            return
        kept = self.check_value(name, value, src)
        if kept is not _DROP:
            result[name] = self.children(name, kept, here, (*out, name), depth)

    def children(self, name: str, value: Value, src: Path, out: Path, depth: int) -> Value:
        shape = keyword(name).shape
        if shape is Shape.SCHEMA:
            return self.node(value, src, out, depth + 1)
        if shape is Shape.SCHEMA_LIST and isinstance(value, list):
            return [self.node(v, (*src, n), (*out, n), depth + 1) for n, v in enumerate(value)]
        if shape is Shape.SCHEMA_MAP and isinstance(value, dict):
            return {k: self.node(v, (*src, k), (*out, k), depth + 1) for k, v in value.items()}
        return value

    def check_value(self, name: str, value: Value, src: Path) -> Value | _Drop:
        """``value`` as the provider takes it, or ``_DROP``."""
        profile = self.profile
        if name == "format" and profile.formats is not None and value not in profile.formats:
            self.loss(src, name, Action.DROPPED, "the provider does not take this format")
            return _DROP
        refused = profile.refused_pattern
        if name == "pattern" and refused is not None and isinstance(value, str) and re.search(refused, value):
            self.loss(src, name, Action.DROPPED, "uses a construct the provider refuses")
            return _DROP
        if name == "enum" and isinstance(value, list):
            if profile.enum_values is Values.PRIMITIVE and any(isinstance(v, list | dict) for v in value):
                self.loss(src, name, Action.DROPPED, "the provider takes only primitive enum values")
                return _DROP
            if profile.enum_values is Values.STRING and not all(isinstance(v, str) for v in value):
                self.loss(src, name, Action.DROPPED, "the provider takes only string enum values")
                return _DROP
        limit = profile.max_min_items
        if name == "minItems" and limit is not None and isinstance(value, int) and value > limit:
            self.loss(src, name, Action.WIDENED, f"sent as {limit}, the most the provider takes")
            return limit
        return value

    def inline(
        self, raw: dict[str, Value], ref: str, src: Path, out: Path, depth: int, homes: Homes
    ) -> Value:
        if ref in self.inlining or ref == "#":
            raise _refuse(src, "$ref", "is recursive and cannot be inlined for a provider that takes no $ref")
        target, where = self.resolve(ref, src)
        del raw["$ref"]
        inlined: Homes = {name: homes.get(name, (*src, name)) for name in raw}
        if isinstance(target, bool):
            merged: Value = target if not raw else ({} if target else {"not": {}})
            if isinstance(merged, dict):
                merged.update(raw)
        else:
            assert isinstance(target, dict)
            inlined = {**{name: (*where, name) for name in target}, **inlined}
            merged = dict(target)
            for name, value in raw.items():
                if name in merged and merged[name] != value and keyword(name).role is not Role.ANNOTATION:
                    self.loss(
                        src, name, Action.DROPPED, "the referenced schema's value is replaced by this one"
                    )
                merged[name] = value
        self.inlining.append(ref)
        try:
            return self.node(merged, src, out, depth + 1, inlined)
        finally:
            self.inlining.pop()

    def combinators(self, raw: dict[str, Value], src: Path, homes: Homes) -> dict[str, Value]:
        profile = self.profile
        if "oneOf" in raw and not profile.one_of:
            if "anyOf" in raw:
                del raw["oneOf"]
                self.loss(
                    src, "oneOf", Action.DROPPED, "the provider takes no oneOf and anyOf is already present"
                )
            else:
                homes["anyOf"] = homes.pop("oneOf", (*src, "oneOf"))
                raw = {("anyOf" if k == "oneOf" else k): v for k, v in raw.items()}
                self.loss(src, "oneOf", Action.WIDENED, "sent as anyOf: the provider takes no oneOf")
        branches = raw.get("allOf")
        if isinstance(branches, list):
            has_ref = any(isinstance(b, dict) and "$ref" in b for b in branches)
            if not profile.all_of or (has_ref and not profile.all_of_refs):
                raw = self.merge_all_of(raw, branches, src, homes)
        return raw

    def merge_all_of(
        self, raw: dict[str, Value], branches: list[Value], src: Path, homes: Homes
    ) -> dict[str, Value]:
        del raw["allOf"]
        merged = dict(raw)
        for branch in branches:
            if branch is True:
                continue
            if not isinstance(branch, dict) or any(k in merged for k in branch):
                self.loss(
                    src, "allOf", Action.DROPPED, "the provider takes no allOf here and it cannot be merged"
                )
                return raw
            merged.update(branch)
        if self.profile.refs is Refs.KEEP and "$ref" in merged and len(merged) > 1:
            self.loss(src, "allOf", Action.DROPPED, "a $ref branch cannot be merged for this provider")
            return raw
        at = homes.pop("allOf", (*src, "allOf"))
        for n, branch in enumerate(branches):
            if isinstance(branch, dict):
                homes.update({name: (*at, n, name) for name in branch})
        self.loss(src, "allOf", Action.REWRITTEN, "its branches are merged into the schema")
        return merged

    def infer_type(self, raw: dict[str, Value], src: Path) -> dict[str, Value]:
        if any(k in raw for k in ("anyOf", "$ref")):
            return raw
        kind: str | None = None
        if any(k in raw for k in ("properties", "additionalProperties", "required")):
            kind = "object"
        elif "items" in raw or "prefixItems" in raw:
            kind = "array"
        else:
            values = raw.get("enum") if "enum" in raw else ([raw["const"]] if "const" in raw else None)
            if isinstance(values, list) and values:
                kinds = {json_type(v) for v in values}
                if kinds == {"integer", "number"}:
                    kinds = {"number"}
                kind = kinds.pop() if len(kinds) == 1 else None
        if kind is None:
            raise _refuse(src, None, _ANY)
        self.loss(src, "type", Action.REWRITTEN, f'"{kind}" added: the provider needs a type on every node')
        return {"type": kind, **raw}

    def merged_homes(self, properties: Value) -> dict[str, Path] | None:
        """Where each of ``properties`` sits, when a root ``allOf`` merged them from several places."""
        merged = self.key_homes.get(id(properties))
        return merged[1] if merged is not None and merged[0] is properties else None

    def object_rules(
        self,
        result: dict[str, Value],
        src: Path,
        out: Path,
        properties: Path,
        origins: dict[str, Path] | None = None,
    ) -> None:
        profile = self.profile
        props = result.get("properties")
        names: list[Value] = list(props) if isinstance(props, dict) else []
        required = result.get("required")
        if isinstance(required, list) and (profile.openapi or profile.optionals is Optionals.NULLABLE):
            known: list[Value] = [r for r in required if r in names]
            if len(known) != len(required):
                result["required"] = known
                self.loss(src, "required", Action.WIDENED, "names without a property are left out")
        if profile.close_objects:
            # Absent, true or a schema: the object takes members beyond its properties, and the wire none.
            if result.get("additionalProperties") is not False:
                self.loss(src, "additionalProperties", Action.NARROWED, "sent as false: no free-form members")
            result["additionalProperties"] = False
            if "properties" not in result:
                result["properties"] = {}
        if profile.optionals is Optionals.NULLABLE and isinstance(props, dict):
            present = result.get("required")
            optional = [n for n in props if not (isinstance(present, list) and n in present)]
            for name in optional:
                sub, made = _make_nullable(props[name])
                props[name] = sub
                if made:
                    self.nullable.add((*out, "properties", name))
                    reason = "sent as required and nullable; a null is restored to absent on admission"
                else:
                    reason = "sent as required (it already accepts null, so null stays null)"
                place = origins[name] if origins else (*properties, name)
                self.loss(place, "required", Action.REWRITTEN, reason)
            if props or "required" in result:
                result["required"] = list(props)

    def array_rules(self, result: dict[str, Value], src: Path) -> None:
        if "items" not in result and self.profile.array_items:
            if self.profile.typed:
                raise _refuse(src, "items", "is missing and the provider needs typed array items")
            result["items"] = {}
            self.loss(src, "items", Action.REWRITTEN, "{} added: the provider needs items on every array")

    # Gemini's OpenAPI subset.

    def openapi_nullable(self, raw: dict[str, Value], src: Path, homes: Homes) -> dict[str, Value]:
        kind = raw.get("type")
        if isinstance(kind, list):
            rest = [t for t in kind if t != "null"]
            if len(rest) != len(kind):
                raw["nullable"] = True
            if len(rest) == 1:
                raw["type"] = rest[0]
            elif len(rest) > 1:
                del raw["type"]
                raw = {"anyOf": [self.made({"type": t}, src) for t in rest], **raw}
            else:
                raw["type"] = "null"
            self.loss(src, "type", Action.REWRITTEN, "a type array is sent as nullable / anyOf")
        branches = raw.get("anyOf")
        if isinstance(branches, list) and any(is_null(b) for b in branches):
            at = homes.get("anyOf", (*src, "anyOf"))
            for n, branch in enumerate(branches):
                if isinstance(branch, dict) and id(branch) not in self.placed:
                    self.made(branch, (*at, n))  # the branches after a null one move up
            rest_branches = [b for b in branches if not is_null(b)]
            raw["nullable"] = True
            del raw["anyOf"]
            if (
                len(rest_branches) == 1
                and isinstance(rest_branches[0], dict)
                and not any(k in raw for k in rest_branches[0])
            ):
                only = rest_branches[0]
                assert isinstance(only, dict)
                _, place, inner = self.placed[id(only)]
                homes.update({name: inner.get(name, (*place, name)) for name in only})
                raw = {**only, **raw}
            elif rest_branches:
                raw["anyOf"] = rest_branches
            self.loss(src, "anyOf", Action.REWRITTEN, "a null branch is sent as nullable")
        if "const" in raw:
            const = raw.pop("const")
            if isinstance(const, str) and "enum" not in raw:
                raw["enum"] = [const]
                self.loss(src, "const", Action.REWRITTEN, "sent as a one-value enum")
            else:
                self.loss(src, "const", Action.DROPPED, "the provider takes only string enums")
        values = raw.get("enum")
        if isinstance(values, list) and "" in values and all(isinstance(v, str) for v in values):
            raw["enum"] = [v for v in values if v != ""]
            self.loss(src, "enum", Action.NARROWED, "the empty string is left out: the provider refuses it")
            if not raw["enum"]:
                del raw["enum"]
        return raw

    def openapi_types(self, result: dict[str, Value], src: Path) -> None:
        kind = result.get("type")
        if isinstance(kind, str):
            result["type"] = _OPENAPI_TYPES.get(kind, kind)
        if "nullable" in result and "type" in result:
            result["nullable"] = True
        elif "nullable" in result and "anyOf" not in result:
            del result["nullable"]
            result["type"] = "NULL"


# ---------------------------------------------------------------------------------------------------------
# Helpers.


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _refs_in(value: Value) -> set[str]:
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str):
                found.add(ref)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _has_type(node: dict[str, Value], kind: str) -> bool:
    found = node.get("type")
    return found == kind or (isinstance(found, list) and kind in found)


def _is_ref(schema: Value) -> bool:
    return isinstance(schema, dict) and "$ref" in schema


def _accepts_null(node: Value) -> bool:
    if node is True:
        return True
    if not isinstance(node, dict):
        return False
    kind = node.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    branches = node.get("anyOf")
    if isinstance(branches, list) and any(_accepts_null(b) for b in branches if isinstance(b, dict)):
        return "type" not in node
    return False


def _make_nullable(node: Value) -> tuple[Value, bool]:
    """``node`` widened to accept null, and whether it had to be."""
    if _accepts_null(node) or not isinstance(node, dict):
        return node, False
    kind = node.get("type")
    if isinstance(kind, str | list) and "const" not in node:
        widened = dict(node)
        widened["type"] = [*kind, "null"] if isinstance(kind, list) else [kind, "null"]
        values = widened.get("enum")
        if isinstance(values, list) and None not in values:
            widened["enum"] = [*values, None]
        return widened, True
    branches = node.get("anyOf")
    if isinstance(branches, list) and "type" not in node:
        return {**node, "anyOf": [*branches, {"type": "null"}]}, True
    return {"anyOf": [node, {"type": "null"}]}, True
