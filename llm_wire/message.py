"""
The conversation: messages, assistant turns with tool calls, tool results, and their JSON persistence.

A conversation is a sequence of ``Message``s. An ``AssistantTurn`` keeps every call a model made (admitted
or not, in provider order) with the provider's replay data, so the next request can send it back intact.
``dumps``/``loads`` persist a whole conversation as JSON, each message through the codec ``codec.derive``
makes of its class; loading is strict (unknown members, wrong types and a foreign format are refused) and
returns a typed error, never raises.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from decimal import Decimal
from typing import Any, ClassVar, TypeAlias

from attrs import Attribute, field, fields, frozen

from llm_wire import _deprecated, codec
from llm_wire._described import Described as _Described
from llm_wire._fast import Lean as _Lean
from llm_wire.result import Err, Ok, Result
from llm_wire.value import DEFAULT, Limits, NotJson, ParseError, Value, parse, render

__all__ = [
    "AssistantTurn",
    "ConversationError",
    "Message",
    "Provider",
    "SystemMessage",
    "ToolCall",
    "ToolResult",
    "UserMessage",
    "dumps",
    "loads",
]

#: The format tag written at the top of a persisted conversation.
_FORMAT = "llm_wire.conversation.v1"


class _Providers(type):
    """``Provider``'s class: iterating ``Provider`` gives the built-in APIs, as when it was an enum."""

    def __iter__(cls) -> Iterator[Provider]:
        return iter(_BUILT_IN.values())

    def __len__(cls) -> int:
        return len(_BUILT_IN)


class Provider(metaclass=_Providers):
    """
    The API a turn came from, named by its persisted ``value``: its replay data only makes sense to that API.

    The built-in APIs are constants (``Provider.ANTHROPIC``; iterating ``Provider`` gives them), and a
    built-in value gives its constant back. Another API's wire names its own (``Provider("toy")``): two
    providers are equal when their values are. A value is 1 to 64 lowercase ASCII letters, digits, ``-`` and
    ``.``, starting with a letter; another is a ``ValueError`` (``TypeError`` for one that is not a ``str``).
    """

    __slots__ = ("value",)

    value: str
    OPENAI_RESPONSES: ClassVar[Provider]
    OPENAI_CHAT: ClassVar[Provider]
    ANTHROPIC: ClassVar[Provider]
    GOOGLE: ClassVar[Provider]

    def __new__(cls, value: str) -> Provider:
        if not isinstance(value, str):
            raise TypeError(f"a provider's value must be a str, not {type(value).__name__}")
        built_in = _BUILT_IN.get(value)
        if built_in is not None:
            return built_in
        if not _PROVIDER_NAME.fullmatch(value):
            raise ValueError(_PROVIDER_RULE)
        provider = super().__new__(cls)
        object.__setattr__(provider, "value", value)
        return provider

    @property
    def name(self) -> str:
        """The value in capitals, ``-`` and ``.`` as ``_`` (``OPENAI_CHAT``): a built-in's constant."""
        return self.value.upper().replace("-", "_").replace(".", "_")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Provider cannot be changed")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Provider):
            return NotImplemented
        return self is other or self.value == other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __reduce__(self) -> tuple[type[Provider], tuple[str]]:
        return Provider, (self.value,)

    def __repr__(self) -> str:
        return f"<Provider.{self.name}: {self.value!r}>"

    def __str__(self) -> str:
        return f"Provider.{self.name}"


_PROVIDER_NAME = re.compile(r"[a-z][a-z0-9.-]{0,63}")
_PROVIDER_RULE = (
    "a provider's value is 1 to 64 lowercase ASCII letters, digits, '-' and '.', starting with a letter"
)
#: The built-in APIs by value, in their order.
_BUILT_IN: dict[str, Provider] = {}
Provider.OPENAI_RESPONSES = _BUILT_IN["openai-responses"] = Provider("openai-responses")
Provider.OPENAI_CHAT = _BUILT_IN["openai-chat"] = Provider("openai-chat")
Provider.ANTHROPIC = _BUILT_IN["anthropic"] = Provider("anthropic")
Provider.GOOGLE = _BUILT_IN["google"] = Provider("google")


def _text(instance: object, attribute: Attribute[str], value: object) -> None:
    if type(value) is not str and not isinstance(value, str):
        msg = f"{type(instance).__name__}.{attribute.name} must be a str, not {type(value).__name__}"
        raise TypeError(msg)


def _optional_text(instance: object, attribute: Attribute[str | None], value: object) -> None:
    if value is not None and not isinstance(value, str):
        msg = f"{type(instance).__name__}.{attribute.name} must be a str or None, not {type(value).__name__}"
        raise TypeError(msg)


@frozen
class ToolCall(_Lean):
    """
    One call a model made: its id, the tool name, and the argument text exactly as the provider sent it,
    with what else the provider said about it (its item id, replay state, namespace and caller).
    """

    #: The id that pairs the call with its result (a provider's ``call_id`` / ``tool_use`` id).
    id: str = field(validator=_text)
    name: str = field(validator=_text)
    #: The arguments as JSON text, byte-exact where the provider sends text.
    arguments_json: str = field(validator=_text)
    #: The provider's own id for the call item, when it differs from ``id`` (OpenAI Responses ``fc_...``).
    provider_id: str | None = None
    #: Opaque replay data the provider needs back (Gemini ``thoughtSignature``), as a JSON value.
    provider_state: Value = field(default=None, eq=False, hash=False)
    #: The namespace the tool was called in (OpenAI Responses ``namespace``); ``None`` for a plain call.
    namespace: str | None = field(default=None, validator=_optional_text)
    #: Who made the call, as the provider sent it (OpenAI Responses and Anthropic ``caller``, such as
    #: ``{"type": "direct"}`` or a program's ``{"type": "program", "caller_id": ...}``); ``None`` when absent.
    caller: Value = field(default=None, hash=False)

    def __getstate__(self) -> dict[str, Value]:
        return {name: getattr(self, name) for name in _CALL_FIELDS}

    def __setstate__(self, state: dict[str, Value]) -> None:
        # A call pickled before ``namespace`` and ``caller`` existed has neither: they read as ``None``.
        for name in _CALL_FIELDS:
            object.__setattr__(self, name, state.get(name))

    @property
    def by_program(self) -> bool:
        """
        Whether code the model ran made the call (programmatic tool calling), not the model itself: a
        ``caller`` other than ``{"type": "direct", ...}``.
        """
        caller = self.caller
        return caller is not None and not (isinstance(caller, dict) and caller.get("type") == "direct")


_CALL_FIELDS = tuple(a.name for a in fields(ToolCall))


@frozen
class SystemMessage(_Lean):
    """Instructions for the model."""

    text: str


@frozen
class UserMessage(_Lean):
    """What the user said."""

    text: str


@frozen
class AssistantTurn(_Lean):
    """
    What the model said in one response: its text and every call it made, in provider order.
    """

    text: str = ""
    calls: tuple[ToolCall, ...] = ()
    #: The API that produced the turn; ``None`` for a turn the application wrote.
    provider: Provider | None = None
    #: The provider's response id, when it has one.
    response_id: str | None = None
    #: Opaque replay data for the whole turn (reasoning items, thinking blocks), as a JSON value.
    provider_data: Value = field(default=None, eq=False, hash=False)


@frozen
class ToolResult(_Lean):
    """
    The answer to one call: text for the model, and whether it reports an error.
    """

    call_id: str
    content: str
    is_error: bool = False
    #: The tool's name; Gemini pairs results by name, so the request layer fills it from the call.
    name: str | None = None


Message: TypeAlias = SystemMessage | UserMessage | AssistantTurn | ToolResult

_ROLES: dict[type[Any], str] = {
    SystemMessage: "system",
    UserMessage: "user",
    AssistantTurn: "assistant",
    ToolResult: "tool",
}
_BY_ROLE = {role: cls for cls, role in _ROLES.items()}


@frozen
class ConversationError(_Described):
    """
    A persisted conversation that ``loads`` refused: not JSON, another format, or a malformed message.
    """

    #: Index of the offending message, when the problem is inside one.
    index: int | None
    problem: str
    parse_error: ParseError | None = None

    def describe(self) -> str:
        """The problem as text; never repeats the input."""
        if self.parse_error is not None:
            return f"conversation is not valid JSON: {self.parse_error.describe()}"
        where = "conversation" if self.index is None else f"message {self.index}"
        return f"{where}: {self.problem}"


def _provider_codec() -> codec.Codec[Provider]:
    """A provider as its stable string form (its value): the one place persistence reads a provider."""
    return codec.enum_of({provider.value: provider for provider in Provider})


@functools.cache
def _message_codec() -> codec.Codec[Message]:
    """
    A message as an object tagged with its ``role``, each kind derived from its class; built on first use.
    Replay data is a JSON value kept as it is (a finite Python float in it is written as ``render`` does).
    """
    hints: dict[Any, codec.Codec[Any]] = {Provider: _provider_codec(), Value: codec.json_value(floats=True)}
    hints[ToolCall] = _call_codec()
    kinds = [
        codec.variant(role, codec.derive(cls, namespace={"Decimal": Decimal}, codecs=hints), cls=cls)
        for cls, role in _ROLES.items()
    ]
    return codec.internal_union(*kinds, tag="role")


#: The members of a persisted call written only when set, so a call without them is written as before.
_WHEN_SET = ("namespace", "caller")


@functools.cache
def _call_codec() -> codec.Codec[ToolCall]:
    """
    A call as the object ``codec.derive`` makes of it, ``namespace`` and ``caller`` left out when ``None``
    (absent, they read as ``None``: documents written before them still load). Conversations and a durable
    run's rounds persist calls through it; built on first use.
    """
    derived = codec.derive(ToolCall, codecs={Value: codec.json_value(floats=True)})

    def encode(call: ToolCall) -> Result[Value, codec.EncodeError]:
        match derived.encode(call):
            case Ok(dict() as document):
                return Ok({k: v for k, v in document.items() if v is not None or k not in _WHEN_SET})
            case other:
                return other

    return codec.custom(derived.decode, encode, schema=derived.schema)


def dumps(messages: tuple[Message, ...] | list[Message]) -> str:
    """
    The conversation as compact JSON text, tagged with its format. Raises ``TypeError`` for an item that is
    no message, and ``NotJson`` (a ``TypeError``) for replay data that is no JSON value.
    """
    items: list[Value] = []
    persisted = _message_codec()
    for message in messages:
        if type(message) not in _ROLES:
            raise TypeError(f"messages must hold messages, not {type(message).__name__}")
        match persisted.encode(message):
            case Ok(item):
                items.append(item)
            case Err(error):
                raise NotJson(error.path, error.reason.describe())
    return render({"format": _FORMAT, "messages": items})


def loads(text: str | bytes, limits: Limits = DEFAULT) -> Result[tuple[Message, ...], ConversationError]:
    """
    A conversation written by ``dumps``; ``Err(ConversationError)`` for anything else.
    """
    match parse(text, limits):
        case Err(parse_error):
            return Err(ConversationError(None, "not valid JSON", parse_error))
        case Ok(document):
            pass
    if not isinstance(document, dict) or set(document) != {"format", "messages"}:
        return Err(ConversationError(None, 'expected an object with "format" and "messages"'))
    if document["format"] != _FORMAT:
        return Err(ConversationError(None, f"unsupported format (expected {_FORMAT})"))
    raw_messages = document["messages"]
    if not isinstance(raw_messages, list):
        return Err(ConversationError(None, '"messages" must be an array'))
    messages: list[Message] = []
    persisted = _message_codec()
    for index, raw in enumerate(raw_messages):
        if not isinstance(raw, dict):
            return Err(ConversationError(index, "a message must be an object"))
        role = raw.get("role")
        if not isinstance(role, str) or role not in _BY_ROLE:
            return Err(ConversationError(index, "unknown or missing role"))
        match persisted.decode(raw):
            case Ok(loaded):
                messages.append(loaded)
            case Err():
                return Err(ConversationError(index, f"not a valid {role} message"))
    return Ok(tuple(messages))


# Old names, importable for one release (``llm_wire._deprecated.ALIASES``), not listed.
tool_call = _deprecated.renamed(ToolCall, "llm_wire.message.tool_call")
