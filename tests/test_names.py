"""Wire names: mangling, the reversible table and refused collisions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_wire import tool
from llm_wire.message import Provider
from llm_wire.names import _NAME_RULES as NAME_RULES
from llm_wire.names import InvalidPrefix, NameCollision, Named, mangle, wire_names
from llm_wire.names import _passes_every_rule as passes_every_rule
from llm_wire.result import Err, Ok, unwrap
from llm_wire.tool import EmptyName

#: Names as MCP servers and BFCL write them: dots, slashes, spaces, any Unicode, and long ones.
NAMES = st.text(
    alphabet=st.sampled_from("abcXYZ019_-./: é€") | st.characters(codec="utf-8"), min_size=1, max_size=90
)
PREFIXES = st.none() | st.from_regex(r"[a-zA-Z][a-zA-Z0-9-]{0,19}", fullmatch=True)


class TestMangle:
    """A name every provider takes stays; any other becomes one."""

    @pytest.mark.parametrize("name", ["get_weather", "search-web", "_x", "A" * 64])
    def test_valid_names_stay(self, name: str) -> None:
        """A name every provider takes, with no prefix, is its own wire name."""
        assert mangle(name) == Ok(name)

    @pytest.mark.parametrize(
        ("name", "prefix", "wire"),
        [
            ("github.create_issue", None, "github_2e_create__issue"),
            ("fs/read", "fs", "fs_fs_2f_read"),
            ("get_current_time", "time", "time_get_current_time"),
            ("1password", None, "_31_password"),
            ("-x", None, "_2d_x"),
        ],
    )
    def test_mangled(self, name: str, prefix: str | None, wire: str) -> None:
        """Characters outside the rule become hex escapes, ``_`` doubles; a prefix joins by ``_``."""
        assert mangle(name, prefix) == Ok(wire)

    def test_long_names_end_in_a_digest(self) -> None:
        """Over 64 bytes: the first 55 kept, then ``_`` and 8 hex digits of the original's digest."""
        first, second = unwrap(mangle("a" * 80)), unwrap(mangle("a" * 81))
        assert len(first) == 64
        assert first[:56] == "a" * 55 + "_"
        assert first != second

    def test_refusals(self) -> None:
        """An empty name and a prefix outside its rule are typed errors whose text repeats neither."""
        assert mangle("") == Err(EmptyName())
        refused = mangle("x", "my_server")
        assert refused == Err(InvalidPrefix("my_server"))
        assert "my_server" not in str(refused.error)

    def test_wrong_type(self) -> None:
        """A name that is not a str is a ``TypeError`` naming the parameter."""
        with pytest.raises(TypeError, match="name must be a str"):
            mangle(3)  # type: ignore[arg-type]

    @given(NAMES, PREFIXES)
    def test_every_wire_name_passes_every_rule(self, name: str, prefix: str | None) -> None:
        """Every mangled name passes each provider's rule and the library's own."""
        wire = unwrap(mangle(name, prefix))
        for provider, rule in NAME_RULES.items():
            assert rule.fullmatch(wire), provider
        assert tool.check_name(wire) == Ok(None)
        assert passes_every_rule(wire)


class TestWireNames:
    """The table maps each tool to its wire name and back, and refuses a shared wire name."""

    def test_round_trip(self) -> None:
        """``original(wire(tool))`` is the tool."""
        tools = [Named("time", "get_current_time"), Named("fs", "read.file"), Named(None, "a/b")]
        table = unwrap(wire_names(tools))
        assert len(table) == 3
        for named in tools:
            wire = table.wire(named.name, named.prefix)
            assert wire is not None
            assert table.original(wire) == named
        assert table.original("nothing") is None
        assert repr(table) == "<WireNames (3 tools)>"

    def test_collision_refused(self) -> None:
        """A mangled name equal to another tool's name is refused, naming only the wire name."""
        refused = wire_names([Named(None, "a.b"), Named(None, "a_2e_b")])
        assert refused == Err(NameCollision("a_2e_b", Named(None, "a.b"), Named(None, "a_2e_b")))
        assert str(refused.error).startswith("two tools would both be sent as a_2e_b")

    def test_listed_twice(self) -> None:
        """The same tool twice is a collision too."""
        assert isinstance(wire_names([Named("s", "x"), Named("s", "x")]), Err)

    def test_prefixes_keep_servers_apart(self) -> None:
        """One tool name under two prefixes gets two wire names."""
        table = unwrap(wire_names([Named("a", "search"), Named("b", "search")]))
        assert table.wire("search", "a") != table.wire("search", "b")

    @settings(max_examples=150)
    @given(st.lists(st.tuples(PREFIXES, NAMES), unique=True, max_size=12))
    def test_reversible_and_collision_free(self, tools: list[tuple[str | None, str]]) -> None:
        """Over generated names the table always builds, is one to one, and reverses every wire name."""
        named = [Named(prefix, name) for prefix, name in tools]
        table = unwrap(wire_names(named))
        wires = [table.wire(n.name, n.prefix) for n in named]
        assert len(set(wires)) == len(named)
        for n, wire in zip(named, wires, strict=True):
            assert wire is not None
            assert table.original(wire) == n

    @given(NAMES, NAMES)
    def test_escaped_names_never_collide(self, first: str, second: str) -> None:
        """Two different names that both need escaping never share a wire name short of the digest."""
        wires = unwrap(mangle(first)), unwrap(mangle(second))
        escaped = not passes_every_rule(first) and not passes_every_rule(second)
        if first != second and escaped and max(map(len, wires)) < 64:
            assert wires[0] != wires[1]

    def test_provider_rules_are_listed(self) -> None:
        """Every provider has a rule."""
        assert set(NAME_RULES) == set(Provider)
