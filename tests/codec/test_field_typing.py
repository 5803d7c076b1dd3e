"""
The documented ways to give a field codec metadata pass ``mypy --strict``, and the checker still sees what
they declare: a field without a default takes ``Annotated[T, codec.meta(...)]``, a field with one takes
``codec.field(default=...)`` (``codec.dataclass_field`` for dataclasses), typed as its default.
"""

from __future__ import annotations

from pathlib import Path

from typecheck import mypy_strict

#: The documented forms, attrs and dataclass, each a required field after a field with codec metadata.
DOCUMENTED = """
import dataclasses
from typing import Annotated

import attrs

from llm_wire import codec


@attrs.frozen
class Route:
    origin: Annotated[str, codec.meta(codec=codec.string(min_length=3), description="From.")]
    destination: str
    days: int = codec.field(default=1, minimum=1, maximum=14)
    stops: list[str] = codec.field(factory=list, max_items=3)


@dataclasses.dataclass(frozen=True)
class Leg:
    origin: Annotated[str, codec.meta(min_length=3)]
    destination: str
    seats: int = codec.dataclass_field(default=1, minimum=1)
    notes: list[str] = codec.dataclass_field(factory=list)


route = Route("OSL", "BER")
leg = Leg("OSL", "BER", seats=2)
reveal_type(codec.derive(Route))
reveal_type(codec.derive(Leg))
"""

#: What the checker must still refuse in those forms.
MISTAKES = """
import attrs
from typing import Annotated

from llm_wire import codec


@attrs.frozen
class Route:
    origin: Annotated[str, codec.meta(min_length=3)]
    destination: str
    days: int = codec.field(default="one")
    stops: list[str] = codec.field(factory=list, max_itmes=3)


Route("OSL")
"""


class TestFieldTyping:
    """codec.field and Annotated metadata under mypy --strict."""

    def test_documented_forms_type_check(self, tmp_path: Path) -> None:
        """A required field after one with metadata, and defaults typed as their field: no error."""
        lines = mypy_strict(tmp_path, DOCUMENTED)
        assert lines == [
            '28: note: Revealed type is "llm_wire.codec._core.Codec[user_code.Route]"',
            '29: note: Revealed type is "llm_wire.codec._core.Codec[user_code.Leg]"',
        ]

    def test_mistakes_are_seen(self, tmp_path: Path) -> None:
        """A default of the wrong type, an unknown setting and a missing argument are mypy errors."""
        lines = mypy_strict(tmp_path, MISTAKES)
        assert sorted({line.split(": ")[0] for line in lines if ": error: " in line}) == ["12", "13", "16"]
        assert any("[call-overload]" in line for line in lines if line.startswith("13:"))
        assert any('Missing positional argument "destination"' in line for line in lines)
