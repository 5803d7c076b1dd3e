"""
A catalogue of pydantic model shapes (and TypedDicts) for the comparison of ``codec.derive`` with pydantic:
each entry is one shape a user's tool input may take, from plain scalars to discriminated unions, aliases,
validators and recursion; and ``values``, JSON values for the schemas ``derive`` renders.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import math
import uuid
from decimal import Decimal
from typing import Annotated, Any, Literal, NotRequired, Optional, Union

import annotated_types
import pydantic
from hypothesis import strategies as st
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    RootModel,
    Strict,
    StringConstraints,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel
from strategies import json_values
from typing_extensions import TypedDict  # pydantic takes only this one before Python 3.12

__all__ = ["MODELS", "TYPED_DICTS", "values"]


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Colour(enum.StrEnum):
    RED = "red"
    GREEN = "green"


class Scalars(BaseModel):
    text: str
    count: int
    ratio: float
    flag: bool


class Defaults(BaseModel):
    count: int = 3
    text: str = "x"
    flag: bool = False
    ratio: float = 0.5


class IntBounds(BaseModel):
    days: int = Field(ge=1, le=14)
    offset: int = Field(gt=-5, lt=5)


class FloatBounds(BaseModel):
    latitude: float = Field(ge=-90, le=90)
    share: float = Field(gt=0, lt=1)


class Multiples(BaseModel):
    even: int = Field(multiple_of=2)
    half: float = Field(multiple_of=0.5)


class StringLengths(BaseModel):
    code: str = Field(min_length=2, max_length=3)
    name: str = Field(min_length=1)


class Patterns(BaseModel):
    sku: str = Field(pattern=r"^[A-Z]{2}[0-9]{2}$")
    word: str = Field(pattern=r"^[a-z]+$", max_length=6)


class AnnotatedTypes(BaseModel):
    small: Annotated[int, annotated_types.Ge(0), annotated_types.Lt(10)]
    short: Annotated[str, annotated_types.MaxLen(4)]
    some: Annotated[list[int], annotated_types.MinLen(1)]
    within: Annotated[int, annotated_types.Interval(ge=1, le=3)]


class AnnotatedFields(BaseModel):
    level: Annotated[int, Field(ge=1, le=5, description="From 1 to 5.")]
    label: Annotated[str, Field(min_length=1)] = "a"


class ConstrainedTypes(BaseModel):
    small: pydantic.conint(ge=1, le=5)  # type: ignore[valid-type]
    word: pydantic.constr(min_length=1, max_length=5)  # type: ignore[valid-type]
    items: pydantic.conlist(int, min_length=1, max_length=2)  # type: ignore[valid-type]


class SignedTypes(BaseModel):
    positive: pydantic.PositiveInt
    negative: pydantic.NegativeInt
    share: pydantic.NonNegativeFloat


class Constraints(BaseModel):
    code: Annotated[str, StringConstraints(min_length=2, max_length=4, pattern=r"^[a-z]+$")]


class Literals(BaseModel):
    mode: Literal["fast", "slow"]
    only: Literal["on"]
    level: Literal[1, 2, 3]


class Enums(BaseModel):
    unit: Unit
    priority: Priority = Priority.LOW
    colour: Colour = Colour.RED


class Nullable(BaseModel):
    needed: Optional[int]  # noqa: UP045 - the spelling a user writes
    maybe: str | None = None
    bounded: int | None = Field(default=None, ge=1)


class Lists(BaseModel):
    numbers: list[int]
    names: list[str] = Field(min_length=1, max_length=3)
    positive: list[Annotated[int, Field(gt=0)]] = []


class Maps(BaseModel):
    counts: dict[str, int]
    groups: dict[str, list[str]] = {}


class Tuples(BaseModel):
    pair: tuple[int, str]
    many: tuple[int, ...] = ()


class Location(BaseModel):
    """A place on Earth."""

    city: str = Field(min_length=1)
    country: str = Field(min_length=2, max_length=2, description="ISO 3166 code.")


class Nested(BaseModel):
    location: Location
    days: int = 1


class NestedOptional(BaseModel):
    home: Location | None = None
    work: Optional[Location] = Field(default=None, description="Where you work.")  # noqa: UP045


class NestedList(BaseModel):
    stops: list[Location] = Field(min_length=1)


class NestedMap(BaseModel):
    offices: dict[str, Location]


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int = Field(ge=1, le=9)


class Dog(BaseModel):
    kind: Literal["dog"]
    name: str


class Bird(BaseModel):
    kind: Literal["bird", "parrot"]
    talks: bool = False


class Discriminated(BaseModel):
    pet: Cat | Dog = Field(discriminator="kind")


class DiscriminatedList(BaseModel):
    pets: list[Annotated[Cat | Dog | Bird, Field(discriminator="kind")]]


class DiscriminatedOptional(BaseModel):
    pet: Annotated[Union[Cat, Dog], Field(discriminator="kind")] | None = None  # noqa: UP007


class Tree(BaseModel):
    name: str
    children: list[Tree] = []


class Aliases(BaseModel):
    model_config = ConfigDict(validate_by_name=False)

    first_name: str = Field(alias="firstName")
    age: int = Field(alias="years", ge=0)


class CamelCase(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel)

    first_name: str
    last_name: str = ""


class Forbid(BaseModel):
    model_config = ConfigDict(extra="forbid")

    city: str
    days: int = 1


class Allow(BaseModel):
    model_config = ConfigDict(extra="allow")

    city: str


class TypedExtras(BaseModel):
    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, int] = Field(init=False)

    city: str


class Described(BaseModel):
    """Book a table.

    At most twelve guests.
    """

    guests: int = Field(ge=1, le=12, description="How many people.")
    name: str = Field(description="Under whose name.")


class Factories(BaseModel):
    tags: list[str] = Field(default_factory=list)
    settings: dict[str, str] = Field(default_factory=dict)


class FieldValidator(BaseModel):
    tags: list[str] = []

    @field_validator("tags")
    @classmethod
    def distinct(cls, tags: list[str]) -> list[str]:
        if len(set(tags)) != len(tags):
            raise ValueError("tags repeat")
        return tags


class ModelValidator(BaseModel):
    low: int
    high: int

    @model_validator(mode="after")
    def ordered(self) -> ModelValidator:
        if self.low > self.high:
            raise ValueError("low above high")
        return self


class BeforeValidator(BaseModel):
    word: str

    @field_validator("word", mode="before")
    @classmethod
    def lower(cls, word: object) -> object:
        return word.lower() if isinstance(word, str) else word


class AfterAnnotated(BaseModel):
    even: Annotated[int, AfterValidator(lambda n: n if n % 2 == 0 else _odd())]


def _odd() -> int:
    raise ValueError("odd")


class ScalarUnions(BaseModel):
    either: int | str
    items: list[int] | str = "none"


class Formats(BaseModel):
    day: datetime.date
    at: datetime.datetime | None = None
    id: uuid.UUID | None = None


class Decimals(BaseModel):
    price: Decimal = Field(ge=0)
    cents: Decimal = Decimal("0")


class Anything(BaseModel):
    payload: Any
    extra: dict[str, Any] = {}


class Strictly(BaseModel):
    model_config = ConfigDict(strict=True)

    count: Annotated[int, Strict()]
    text: pydantic.StrictStr


class Squares(RootModel[list[int]]):
    pass


class WithRoot(BaseModel):
    squares: Squares


class Point(TypedDict):
    x: int
    y: int


class WithTypedDict(BaseModel):
    point: Point


@dataclasses.dataclass
class Span:
    start: int
    end: int = 0


class WithDataclass(BaseModel):
    span: Span


class AttributeDocs(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    city: str
    """The city to look up."""


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    value: int = 0


class Deep(BaseModel):
    """Everything at once."""

    location: Location
    stops: list[Location] = []
    pet: Cat | Dog | None = Field(default=None, discriminator="kind")
    unit: Unit = Unit.CELSIUS
    tags: Annotated[list[Annotated[str, Field(min_length=1)]], Field(max_length=4)] = []


#: Every pydantic model shape of the catalogue.
MODELS: list[type[BaseModel]] = [
    Scalars,
    Defaults,
    IntBounds,
    FloatBounds,
    Multiples,
    StringLengths,
    Patterns,
    AnnotatedTypes,
    AnnotatedFields,
    ConstrainedTypes,
    SignedTypes,
    Constraints,
    Literals,
    Enums,
    Nullable,
    Lists,
    Maps,
    Tuples,
    Location,
    Nested,
    NestedOptional,
    NestedList,
    NestedMap,
    Discriminated,
    DiscriminatedList,
    DiscriminatedOptional,
    Tree,
    Aliases,
    CamelCase,
    Forbid,
    Allow,
    TypedExtras,
    Described,
    Factories,
    FieldValidator,
    ModelValidator,
    BeforeValidator,
    AfterAnnotated,
    ScalarUnions,
    Formats,
    Decimals,
    Anything,
    Strictly,
    WithRoot,
    WithTypedDict,
    WithDataclass,
    AttributeDocs,
    Frozen,
    Deep,
]


class Movie(TypedDict):
    """A film."""

    title: str
    year: int


class Partial(TypedDict, total=False):
    title: str
    year: int


class Mixed(TypedDict):
    title: Annotated[str, Field(min_length=1)]
    year: NotRequired[Annotated[int, annotated_types.Ge(1888)]]
    tags: NotRequired[list[str]]


class Shelf(TypedDict):
    movies: list[Movie]
    best: NotRequired[Movie]


class Square(TypedDict):
    shape: Literal["square"]
    side: int


class Circle(TypedDict):
    shape: Literal["circle"]
    radius: float


class Drawing(TypedDict):
    figure: Annotated[Square | Circle, Field(discriminator="shape")]


#: Every TypedDict shape of the catalogue (compared with ``pydantic.TypeAdapter``).
TYPED_DICTS: list[type] = [Movie, Partial, Mixed, Shelf, Drawing]


# ---------------------------------------------------------------------------------------------------------
# Values for a rendered schema: mostly valid ones, to be mutated by the tests.

_DEPTH = 3


def values(document: Any) -> st.SearchStrategy[Any]:
    """JSON values for a schema document of the shapes ``derive`` renders (the defs at its root)."""
    return _values(document, document.get("$defs", {}), 0)


def _values(node: Any, defs: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
    if node is True or node == {}:
        return json_values(max_leaves=4)
    if "$ref" in node:
        return st.deferred(lambda: _values(defs[node["$ref"].rsplit("/", 1)[1]], defs, depth + 1))
    if "enum" in node:
        return st.sampled_from(node["enum"])
    if "anyOf" in node:
        return st.one_of([_values(member, defs, depth) for member in node["anyOf"]])
    kind = node.get("type")
    if kind == "object":
        return _objects(node, defs, depth)
    if kind == "array":
        return _arrays(node, defs, depth)
    if kind == "string":
        return _strings(node)
    if kind in ("integer", "number"):
        return _numbers(node, kind == "integer")
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    raise AssertionError(f"no values for {node}")


def _objects(node: Any, defs: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
    properties = node.get("properties", {})
    required = set(node.get("required", []))
    rest = node.get("additionalProperties", True)
    members = {name: _values(sub, defs, depth + 1) for name, sub in properties.items() if name in required}
    optional = {
        name: _values(sub, defs, depth + 1) for name, sub in properties.items() if name not in required
    }
    fixed = st.fixed_dictionaries(members, optional=optional)
    if rest is False or depth > _DEPTH:
        return fixed
    keys = st.text("abcxyz", min_size=1, max_size=3).filter(lambda key: key not in properties)
    extra = st.dictionaries(keys, _values(rest, defs, depth + 1), max_size=2)
    return st.builds(lambda known, more: {**more, **known}, fixed, extra)


def _arrays(node: Any, defs: dict[str, Any], depth: int) -> st.SearchStrategy[Any]:
    if "prefixItems" in node:
        return st.tuples(*(_values(item, defs, depth + 1) for item in node["prefixItems"])).map(list)
    low = node.get("minItems", 0)
    high = node.get("maxItems", low + 3)
    if depth > _DEPTH:
        high = low
    return st.lists(_values(node.get("items", {}), defs, depth + 1), min_size=low, max_size=high)


def _strings(node: Any) -> st.SearchStrategy[str]:
    kind = node.get("format")
    if kind == "date":
        return st.dates().map(datetime.date.isoformat)
    if kind == "date-time":
        return st.datetimes(timezones=st.just(datetime.UTC)).map(datetime.datetime.isoformat)
    if kind == "uuid":
        return st.uuids().map(str)
    low, high = node.get("minLength", 0), node.get("maxLength", 8)
    if "pattern" in node:
        return st.from_regex(node["pattern"]).filter(lambda s: low <= len(s) <= high)
    return st.text(st.characters(codec="utf-8"), min_size=low, max_size=high)


def _numbers(node: Any, integral: bool) -> st.SearchStrategy[Any]:
    step = Decimal(str(node.get("multipleOf", 1 if integral else "0.25")))
    low = node.get("minimum", node.get("exclusiveMinimum"))
    high = node.get("maximum", node.get("exclusiveMaximum"))
    low = high - 200 if low is None and high is not None else -100 if low is None else low
    high = low + 200 if high is None else high
    first, last = math.ceil(Decimal(str(low)) / step), math.floor(Decimal(str(high)) / step)
    multiples = st.integers(first, last).map(lambda n: n * step)
    if "exclusiveMinimum" in node:
        multiples = multiples.filter(lambda n: n > Decimal(str(node["exclusiveMinimum"])))
    if "exclusiveMaximum" in node:
        multiples = multiples.filter(lambda n: n < Decimal(str(node["exclusiveMaximum"])))
    return multiples.map(lambda n: int(n) if integral or n == n.to_integral_value() else n)
