"""
The official JSON Schema Test Suite, Draft 2020-12, against ``llm_wire.contract``.

Every group of every required file (``tests/draft2020-12/*.json``) is loaded from the file text by our strict
parser. Either ``load`` refuses the schema (with a reason), or every test's verdict must match ``valid``: no
wrong verdict is allowed, and at least 90 % of the groups must load. The optional files that exercise what
this contract claims (format assertion for the formats it knows, big numbers) must also give no wrong
verdict. ``pytest -s`` shows the figures.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import attrs
import pytest

from llm_wire import contract
from llm_wire.contract._formats import FORMATS
from llm_wire.result import Err, Ok
from llm_wire.value import parse

SUITE = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "json-schema-test-suite"
REQUIRED = SUITE / "tests" / "draft2020-12"
OPTIONAL = REQUIRED / "optional"

pytestmark = pytest.mark.skipif(
    not REQUIRED.is_dir(), reason=f"JSON Schema Test Suite not found at {REQUIRED} (../shared/corpora)"
)

#: Optional files whose every loaded group must be right: formats this contract asserts, exact numbers.
OPTIONAL_FILES = [
    *(f"format/{name}.json" for name in FORMATS),
    "bignum.json",
    "float-overflow.json",
    "non-bmp-regex.json",
    "ecmascript-regex.json",
    "no-schema.json",
    "anchor.json",
    "id.json",
]


@attrs.define
class Figures:
    """What one run over a set of suite files found."""

    groups: int = 0
    loaded: int = 0
    checked: int = 0
    refused: Counter[str] = attrs.field(factory=Counter)
    wrong: list[str] = attrs.field(factory=list)


def run(paths: list[Path], *, assert_formats: bool = False) -> Figures:
    """Load every group of ``paths`` and check every test of the groups that load."""
    figures = Figures()
    for path in paths:
        groups: Any = parse(path.read_text(encoding="utf-8")).value  # type: ignore[union-attr]
        for group in groups:
            figures.groups += 1
            match contract.load(group["schema"], assert_formats=assert_formats):
                case Err(error):
                    figures.refused[f"{type(error.reason).__name__} ({error.keyword})"] += 1
                case Ok(compiled):
                    figures.loaded += 1
                    for test in group["tests"]:
                        figures.checked += 1
                        verdict = isinstance(contract.validate(compiled, test["data"]), Ok)
                        if verdict != test["valid"]:
                            figures.wrong.append(
                                f"{path.name}: {group['description']} / {test['description']}"
                            )
    return figures


@pytest.fixture(scope="module")
def required() -> Figures:
    figures = run(sorted(REQUIRED.glob("*.json")))
    print(f"\nJSON Schema Test Suite, draft2020-12 (required): {figures.groups} groups")
    print(
        f"  loaded {figures.loaded} ({figures.loaded / figures.groups:.1%}),"
        f" refused {sum(figures.refused.values())}"
    )
    for reason, count in figures.refused.most_common():
        print(f"    refused {count:3} x {reason}")
    print(f"  verdicts checked {figures.checked}, wrong {len(figures.wrong)}")
    return figures


class TestSuite:
    """The JSON Schema Test Suite: every verdict, refusals listed."""

    def test_the_suite_is_all_there(self, required: Figures) -> None:
        """The snapshot holds the 383 required groups the issue counts."""
        assert required.groups == 383

    def test_no_wrong_verdict(self, required: Figures) -> None:
        """Every loaded group agrees with the suite on every test."""
        assert required.wrong == []

    def test_at_least_ninety_percent_of_groups_load(self, required: Figures) -> None:
        """Refusals are the exception: remote references, foreign dialects, patterns RE2 cannot run."""
        assert required.loaded >= 0.9 * required.groups
        assert required.checked >= 1150

    def test_refusals_are_for_reasons_that_cannot_be_honoured(self, required: Figures) -> None:
        """Only remote documents, custom meta-schemas and non-linear patterns are refused."""
        allowed = {"RemoteReference ($ref)", "UnsupportedDialect ($schema)", "UnsupportedPattern (pattern)"}
        allowed.add("UnsupportedPattern (patternProperties)")
        assert set(required.refused) <= allowed

    @pytest.mark.parametrize("name", OPTIONAL_FILES)
    def test_optional_files_that_this_contract_claims(self, name: str) -> None:
        """Format assertion (with ``assert_formats``), big numbers, ECMA-262 patterns: every group, right."""
        figures = run([OPTIONAL / name], assert_formats=name.startswith("format/"))
        print(f"\n  optional {name}: {figures.loaded}/{figures.groups} loaded, {figures.checked} checked")
        assert figures.loaded == figures.groups
        assert figures.checked > 0
        assert figures.wrong == []

    def test_optional_formats_this_contract_does_not_know_are_refused(self) -> None:
        """With ``assert_formats``, an unknown format is refused at load rather than ignored."""
        figures = run(
            [OPTIONAL / "format" / "duration.json", OPTIONAL / "format" / "unknown.json"], assert_formats=True
        )
        assert figures.loaded == 0
        assert set(figures.refused) == {"UnknownFormat (format)"}
