"""
What a contract is and does: ``Contract`` (loaded once, compiled once), ``load``, ``parse`` and
``from_schema``, the ``Validated`` witness, ``validate``, ``first_failure``, ``validate_all`` and
``decode``. ``llm_wire.contract`` is its face.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterable
from decimal import Decimal
from typing import Any, NoReturn, Protocol, TypeVar

from attrs import field, frozen

from llm_wire import value as _value
from llm_wire._regex import MAX_PATTERN_COST
from llm_wire.codec import ContractMismatch, DecodeError
from llm_wire.contract._checks import Budget, Check, Memo, Out, Res
from llm_wire.contract._compile import compile_plan, plain_plan
from llm_wire.contract._errors import LoadError, ValidationError
from llm_wire.contract._formats import FORMATS
from llm_wire.contract._keywords import KEYWORDS
from llm_wire.contract._load import Dialect, Plan, Rules, plain_document, prepare_document, prepare_schema
from llm_wire.contract._quick import WARM_UP, quickened
from llm_wire.contract._reasons import (
    InvalidShape,
)
from llm_wire.reasons import InvalidJson, TooDeep
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import Schema
from llm_wire.value import DEFAULT, Limits, Path, Value

__all__ = [
    "Contract",
    "Decoder",
    "Validated",
    "decode",
    "first_failure",
    "from_schema",
    "load",
    "parse",
    "validate",
    "validate_all",
]

T = TypeVar("T", covariant=True)


#: The keywords a contract enforces.
_SUPPORTED = frozenset(KEYWORDS)


def _no_init(*_: object, **__: object) -> NoReturn:
    msg = "contracts come from contract.load, parse or from_schema; witnesses from contract.validate"
    raise TypeError(msg)


#: The key only this module's constructors hold.
_MADE_HERE = object()


class _Checker:
    """
    The check a contract runs (``run``): its compiled check counting uses, then from the ``WARM_UP``-th use
    the fast path ``_quick`` writes in front of it, or the compiled check alone when the schema has none.
    A plain document's check is compiled on its first use (``compiled``): its load refused all that the
    compile could refuse (``Plan.plain``). The one mutable part of a contract, owned by it.
    """

    __slots__ = ("__weakref__", "_compiled", "assert_formats", "memo", "run", "schema")

    def __init__(self, compiled: Check | None, schema: Schema, assert_formats: bool, memo: Memo) -> None:
        self._compiled = compiled
        self.schema = schema
        self.assert_formats = assert_formats
        #: The memo the compiled check shares its results in (``Contract._memo``).
        self.memo = memo
        owner = weakref.ref(self)
        self.run = (
            _compiling(owner) if compiled is None else _warming(owner, compiled, schema, assert_formats)
        )

    @property
    def compiled(self) -> Check:
        """The compiled check: the slow twin of the fast path, and what ``run`` falls back on."""
        compiled = self._compiled
        if compiled is None:
            made = compile_plan(
                plain_plan(self.schema),
                KEYWORDS,
                assert_formats=self.assert_formats,
                max_nodes=0,
                max_ref_depth=0,
                memo=self.memo,
            )
            if not isinstance(made, Ok):  # pragma: no cover - a plain plan holds nothing the compile refuses
                raise AssertionError(f"a plain contract did not compile: {made.error.describe()}")
            compiled = self._compiled = made.value[0]
        return compiled


def _compiling(owner: weakref.ref[_Checker]) -> Check:
    """The first ``run`` of a plain contract: compile it, put the warming check in place, and run that."""

    def compiling(v: Any, out: Out) -> Res:
        checker = owner()
        assert checker is not None  # the contract calling this holds its checker
        run = _warming(owner, checker.compiled, checker.schema, checker.assert_formats)
        checker.run = run
        return run(v, out)

    return compiling


def _warming(owner: weakref.ref[_Checker], check: Check, schema: Schema, assert_formats: bool) -> Check:
    """
    ``check``, counting its uses: at the ``WARM_UP``-th it writes the fast path and makes it the owner's
    ``run``, or makes ``check`` itself ``run`` when the schema has none. (The owner is held weakly: no
    reference cycle, so a dropped contract is freed at once.)
    """
    uses = 0
    written = False

    def warming(v: Any, out: Out) -> Res:
        nonlocal uses, written
        uses += 1
        if uses >= WARM_UP and not written:  # not ``==``: threads may count past it together
            written = True
            checker = owner()
            if checker is not None:
                checker.run = quickened(schema, assert_formats, check) or check
        return check(v, out)

    return warming


@frozen(eq=False, repr=False)
class Contract:
    """
    A loaded, checked and compiled schema. Only ``load``, ``parse`` and ``from_schema`` make one.
    """

    #: The schema as loaded (annotations kept; draft-07 rewritten in Draft 2020-12 terms; no root $schema).
    schema: Schema
    #: The dialect the document was written in.
    dialect: Dialect
    #: Whether ``format`` is asserted.
    assert_formats: bool
    _checker: _Checker = field(alias="_checker")
    _keywords: int = field(alias="_keywords")
    #: Shared results of one validation, and the count of results computed (read by tests).
    _memo: Memo = field(alias="_memo")
    _key: object = field(alias="_key")

    def __attrs_post_init__(self) -> None:
        if self._key is not _MADE_HERE:
            _no_init()

    def __repr__(self) -> str:
        return f"<Contract {self.dialect.value}, {self._keywords} keywords>"


class Validated(tuple[Value, Contract]):
    """
    A value that ``validate`` found inside ``contract``: only ``validate`` makes one. Do not mutate ``value``.

    (A tuple underneath, so that making one costs a single allocation on the hot path; it compares and
    hashes by identity, like the opaque witness it is.)
    """

    __slots__ = ()

    def __new__(cls, *_: object, **__: object) -> Validated:
        _no_init()

    @property
    def value(self) -> Value:
        """The value that passed."""
        return self[0]

    @property
    def contract(self) -> Contract:
        """The contract it passed."""
        return self[1]

    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"<Validated by {self.contract!r}>"


_witness = tuple.__new__


def _expect(name: str, given: object, kind: type | tuple[type, ...], words: str) -> None:
    """Raise ``TypeError`` naming the parameter when ``given`` is not of ``kind`` (a mistake in code)."""
    if not isinstance(given, kind) or (kind is int and isinstance(given, bool)):
        msg = f"{name} must be {words}, not {type(given).__name__}"
        raise TypeError(msg)


def _options(assert_formats: object, annotations: object, **bounds: object) -> frozenset[str]:
    """Check ``load``'s options; the declared annotation names."""
    _expect("assert_formats", assert_formats, bool, "a bool")
    for name, bound in bounds.items():
        _expect(name, bound, int, "an int")
    words = "an iterable of str"
    if isinstance(annotations, str | bytes) or not isinstance(annotations, Iterable):
        raise TypeError(f"annotations must be {words}, not {type(annotations).__name__}")
    declared = frozenset(annotations)
    for name in declared:
        _expect("annotations", name, str, words)
    return declared


#: The rules of a load whose options are all left at their defaults, made once.
_DEFAULT_RULES = Rules(_SUPPORTED, frozenset(), False, FORMATS, 10_000, 128, MAX_PATTERN_COST)


def _rules(
    assert_formats: bool,
    annotations: Iterable[str],
    max_nodes: int,
    max_depth: int,
    max_ref_depth: int,
    max_pattern_cost: int,
) -> Rules:
    """
    The rules ``load``'s options make, after ``_options`` checked them (``TypeError`` naming a wrong one);
    the options left at their defaults give ``_DEFAULT_RULES``, with nothing to check or make.
    """
    if (
        assert_formats is False
        and annotations.__class__ is tuple
        and not annotations
        and max_nodes.__class__ is int
        and max_nodes == 10_000
        and max_depth.__class__ is int
        and max_depth == 128
        and max_ref_depth.__class__ is int
        and max_pattern_cost.__class__ is int
        and max_pattern_cost == MAX_PATTERN_COST
    ):
        return _DEFAULT_RULES
    declared = _options(
        assert_formats,
        annotations,
        max_nodes=max_nodes,
        max_depth=max_depth,
        max_ref_depth=max_ref_depth,
        max_pattern_cost=max_pattern_cost,
    )
    return Rules(_SUPPORTED, declared, assert_formats, FORMATS, max_nodes, max_depth, max_pattern_cost)


def _exact(document: Value) -> Result[Value, LoadError]:
    """
    ``document`` with every finite ``float`` read exactly (``Decimal(repr(f))``), the same object when it
    holds none; ``InvalidShape`` at the keyword holding a NaN or an infinity.
    """
    found: list[Path] = []
    stack: list[tuple[Any, Path]] = [(document, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, float):
            found.append(path)
        elif isinstance(node, dict | list):
            items = node.items() if isinstance(node, dict) else enumerate(node)
            stack.extend((item, (*path, key)) for key, item in items if isinstance(item, float | dict | list))
    if not found:
        return Ok(document)
    for at in found:
        number: Any = document
        for segment in at:
            number = number[segment]
        if not math.isfinite(number):
            keys = [n for n, segment in enumerate(at) if isinstance(segment, str)]
            cut = keys[-1] if keys else 0
            keyword = str(at[cut]) if keys else None
            return Err(LoadError(at[:cut], keyword, InvalidShape("must be a finite number")))
    return Ok(_copy_exact(document))


def _copy_exact(document: Any) -> Any:
    """``document`` with each finite ``float`` as ``Decimal(repr(f))``; iterative, so any depth is copied."""
    root: list[Any] = [document]
    stack: list[tuple[list[Any] | dict[str, Any], Any]] = [(root, 0)]
    while stack:
        into, at = stack.pop()
        node = into[at]
        if isinstance(node, float):
            into[at] = Decimal(repr(node))
        elif isinstance(node, dict):
            copied: dict[str, Any] = dict(node)
            into[at] = copied
            stack.extend((copied, key) for key in copied)
        elif isinstance(node, list):
            items = list(node)
            into[at] = items
            stack.extend((items, n) for n in range(len(items)))
    return root[0]


def load(
    document: Value,
    *,
    assert_formats: bool = False,
    annotations: Iterable[str] = (),
    max_nodes: int = 10_000,
    max_depth: int = 128,
    max_ref_depth: int = 32,
    max_pattern_cost: int = MAX_PATTERN_COST,
) -> Result[Contract, LoadError]:
    """
    Load a schema document (a parsed JSON value); ``Err(LoadError)`` names the path and keyword refused.

    ``annotations`` names extra keywords to keep as annotations (unknown keywords are refused otherwise).
    ``max_nodes`` bounds the schema objects, ``max_depth`` their nesting, ``max_ref_depth`` the references
    followed in a row without descending into the value, ``max_pattern_cost`` the RE2 program a ``pattern``
    may run on (``_regex.pattern_cost``: what counted repetitions such as ``{1000}`` add). Finite ``float``s
    are read exactly through their shortest repr; NaN and infinities are refused.
    """
    rules = _rules(assert_formats, annotations, max_nodes, max_depth, max_ref_depth, max_pattern_cost)
    plain = plain_document(document, rules)  # no float in it: ``_exact`` would return it as it is
    if plain is not None:
        return _compiled(plain[1], plain[0], assert_formats, max_nodes, max_ref_depth)
    match _exact(document):
        case Err(error):
            return Err(error)
        case Ok(document):
            pass
    match prepare_document(document, rules):
        case Err(error):
            return Err(error)
        case Ok((dialect, plan)):
            return _compiled(plan, dialect, assert_formats, max_nodes, max_ref_depth)


def parse(
    text: str | bytes,
    limits: Limits = DEFAULT,
    *,
    assert_formats: bool = False,
    annotations: Iterable[str] = (),
) -> Result[Contract, LoadError]:
    """
    Parse a schema document strictly within ``limits``, then ``load`` it; bad JSON is ``InvalidJson``.
    """
    _expect("text", text, (str, bytes), "a str or bytes")
    _expect("limits", limits, Limits, "a Limits")
    match _value.parse(text, limits):
        case Err(error):
            return Err(LoadError((), None, InvalidJson(error)))
        case Ok(document):
            return load(document, assert_formats=assert_formats, annotations=annotations)


def from_schema(
    schema: Schema,
    *,
    assert_formats: bool = False,
    annotations: Iterable[str] = (),
    max_nodes: int = 10_000,
    max_depth: int = 128,
    max_ref_depth: int = 32,
    max_pattern_cost: int = MAX_PATTERN_COST,
) -> Result[Contract, LoadError]:
    """
    Compile a ``Schema`` built in code (a codec's, say) as ``load`` compiles a document.
    """
    _expect("schema", schema, Schema, "a Schema")
    rules = _rules(assert_formats, annotations, max_nodes, max_depth, max_ref_depth, max_pattern_cost)
    match prepare_schema(schema, rules):
        case Err(error):
            return Err(error)
        case Ok(plan):
            return _compiled(plan, Dialect.DRAFT_2020_12, assert_formats, max_nodes, max_ref_depth)


def _compiled(
    plan: Plan, dialect: Dialect, assert_formats: bool, max_nodes: int, max_ref_depth: int
) -> Result[Contract, LoadError]:
    keywords = plan.keywords
    if plan.plain and plan.root.boolean is None:  # nothing to refuse: compiled on first use
        checker = _Checker(None, plan.root, assert_formats, Memo())
    else:
        match compile_plan(
            plan, KEYWORDS, assert_formats=assert_formats, max_nodes=max_nodes, max_ref_depth=max_ref_depth
        ):
            case Err(error):
                return Err(error)
            case Ok((check, memo)):
                checker = _Checker(check, plan.root, assert_formats, memo)
    made = Contract(
        plan.root,
        dialect,
        assert_formats,
        _checker=checker,
        _keywords=keywords,
        _memo=checker.memo,
        _key=_MADE_HERE,
    )
    return Ok(made)


_TOO_DEEP = ValidationError((), TooDeep())


def validate(contract: Contract, value: Value) -> Result[Validated, ValidationError]:
    """
    ``Ok(Validated)`` when ``value`` satisfies the contract, else the first failure in the documented order.
    """
    if type(contract) is not Contract:
        _expect("contract", contract, Contract, "a Contract")
    try:
        found = contract._checker.run(value, None)
    except RecursionError:
        return Err(_TOO_DEEP)
    if found is None:
        return Ok(_witness(Validated, (value, contract)))
    return Err(found)  # type: ignore[arg-type]  # one failure without a budget, its path settled on first use


def first_failure(contract: Contract, value: Value) -> ValidationError | None:
    """
    ``validate`` without the ``Result`` or the witness: the first failure, or ``None`` when ``value``
    satisfies the contract. For hot loops such as admission, which checks every call's arguments.
    """
    if type(contract) is not Contract:
        _expect("contract", contract, Contract, "a Contract")
    try:
        return contract._checker.run(value, None)  # type: ignore[return-value]  # one failure without a budget
    except RecursionError:
        return _TOO_DEEP


def validate_all(contract: Contract, value: Value, *, limit: int = 20) -> tuple[ValidationError, ...]:
    """
    Up to ``limit`` failures in the documented order (the first is ``validate``'s); empty when valid.
    """
    _expect("contract", contract, Contract, "a Contract")
    _expect("limit", limit, int, "an int")
    if limit < 1:
        return ()
    try:
        found = contract._checker.run(value, Budget(limit))
    except RecursionError:
        return (_TOO_DEEP,)
    if found is None:
        return ()
    fails = found if isinstance(found, list) else [found]
    return tuple(fails[:limit])


class Decoder(Protocol[T]):
    """What ``decode`` needs from a codec: its schema and a strict decode."""

    @property
    def schema(self) -> Schema | None: ...

    def decode(self, value: Value) -> Result[T, DecodeError]: ...


def decode(codec: Decoder[T], validated: Validated) -> Result[T, DecodeError]:
    """
    Decode a witness with a codec whose schema equals the contract's; else ``ContractMismatch`` at ``$``.
    """
    _expect("validated", validated, Validated, "a Validated")
    schema = codec.schema
    try:
        same = schema is not None and schema == validated.contract.schema
    except RecursionError:  # schemas holding JSON values nested deeper than the stack: not comparable
        same = False
    if not same:
        return Err(DecodeError((), ContractMismatch()))
    return codec.decode(validated.value)
