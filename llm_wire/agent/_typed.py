"""
Typed tools: an attrs class or dataclass whose fields are the arguments and whose ``invoke`` does the work
(sync or async, with or without an ``InvocationContext``), or a plain function with annotated parameters.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import sys
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar, cast, get_type_hints

import attrs
from attrs import frozen

from llm_wire import _public
from llm_wire import codec as _codec
from llm_wire import tool as _tool
from llm_wire.admission import ValueFailure, decode_arguments
from llm_wire.agent._descriptor import ProviderCapabilities, ToolContract, ToolDescriptor, check_capabilities
from llm_wire.agent._face import FACE as _FACE
from llm_wire.agent._invocation import InvocationContext, ToolInvocation
from llm_wire.agent._threads import in_thread
from llm_wire.agent._tool_outcome import ToolOutcome, no_compensation, tool_outcome_of
from llm_wire.codec import Codec
from llm_wire.message import ToolCall
from llm_wire.result import Err, Ok, Result
from llm_wire.schema import DefinitionError
from llm_wire.value import Value, render

__all__ = [
    "TypedTool",
    "function_tool",
    "invoke_typed_tool",
    "make_tool",
    "parse_tool_arguments",
    "snake_case",
]

A = TypeVar("A")

_WORD = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def snake_case(name: str) -> str:
    """``GetWeather`` is ``get_weather``, ``HTTPFetch`` is ``http_fetch``."""
    return _WORD.sub("_", name).lower()


@frozen(eq=False)
class TypedTool(Generic[A]):
    """
    A typed tool: its argument class ``cls`` (decoded by ``codec``), its ``descriptor`` (the model-visible
    tool and its contract), and how its ``invoke`` is called. Make one with ``make_tool`` or
    ``function_tool``.
    """

    cls: type[A]
    codec: Codec[A] = attrs.field(repr=False)
    descriptor: ToolDescriptor = attrs.field(repr=False)
    #: What the tool does with its invocation beyond running (declared, never inferred from ``invoke``).
    capabilities: ProviderCapabilities = attrs.field(repr=False)
    _invoke: Callable[[A, InvocationContext], Awaitable[object] | object] = attrs.field(
        alias="_invoke", repr=False
    )
    _is_async: bool = attrs.field(alias="_is_async", repr=False)
    _compensate: Callable[[A, InvocationContext, ToolOutcome], object] | None = attrs.field(
        alias="_compensate", repr=False
    )
    _compensate_async: bool = attrs.field(default=False, alias="_compensate_async", repr=False)

    @property
    def name(self) -> str:
        """The tool name."""
        return self.descriptor.name

    @property
    def tool(self) -> _tool.Tool[A]:
        """The model-visible tool, typed by the argument class (``AdmittedCall.decoded_as(typed.tool)``)."""
        return self.descriptor.tool

    @property
    def is_async(self) -> bool:
        """Whether ``invoke`` is a coroutine function (a sync one runs in a worker thread)."""
        return self._is_async

    def with_contract(self, contract: ToolContract) -> TypedTool[A]:
        """A copy under ``contract`` (the argument class is untouched)."""
        descriptor = self.descriptor.with_contract(contract)
        check_capabilities(descriptor, self.capabilities)
        return attrs.evolve(self, descriptor=descriptor)

    async def run(self, arguments: A, context: InvocationContext) -> ToolOutcome:
        """
        Call ``invoke`` on ``arguments`` (in a worker thread when it is sync) and make its result an
        outcome; an exception becomes a sanitized failure (``ToolOutcome.from_exception``), never escapes.
        """
        try:
            if self._is_async:
                result = await cast(Awaitable[object], self._invoke(arguments, context))
            else:
                result = await in_thread(self._invoke, arguments, context)
        except Exception as exc:
            return ToolOutcome.from_exception(exc, self.name)
        return tool_outcome_of(result, self.name)

    def arguments_of(self, invocation: ToolInvocation) -> A | ToolOutcome:
        """
        The invocation's arguments as this tool's class: the decoded value the runner admitted, or the
        JSON arguments decoded here (an invocation built by hand); the ``invalid_input`` outcome if refused.
        """
        decoded = invocation.decoded
        if isinstance(decoded, self.cls):
            return decoded
        match parse_tool_arguments(self, invocation.arguments):
            case Err(failure):
                return ToolOutcome.invalid_arguments(self.name, failure)
            case Ok(parsed):
                return parsed

    async def dispatch(self, invocation: ToolInvocation) -> ToolOutcome:
        """Run the tool on an invocation (``arguments_of``, then ``run`` with its context)."""
        arguments = self.arguments_of(invocation)
        if isinstance(arguments, ToolOutcome):
            return arguments
        return await self.run(arguments, invocation.context)

    async def dispatch_compensation(self, invocation: ToolInvocation, failure: ToolOutcome) -> ToolOutcome:
        """Compensate a failed invocation (``arguments_of``, then ``compensate``)."""
        arguments = self.arguments_of(invocation)
        if isinstance(arguments, ToolOutcome):
            return arguments
        return await self.compensate(arguments, invocation.context, failure)

    async def compensate(self, arguments: A, context: InvocationContext, failure: ToolOutcome) -> ToolOutcome:
        """Call the tool's ``compensate``; an ``internal`` failure when it has none."""
        handler = self._compensate
        if handler is None:
            return no_compensation(self.name)
        try:
            if self._compensate_async:
                result = await cast(Awaitable[object], handler(arguments, context, failure))
            else:
                result = await in_thread(handler, arguments, context, failure)
        except Exception as exc:
            return ToolOutcome.from_exception(exc, self.name)
        return tool_outcome_of(result, self.name)


def _description(cls: type, given: str | None) -> str:
    if given is not None:
        return given
    declared = cls.__dict__.get("description")
    if isinstance(declared, str):
        return declared
    doc = cls.__dict__.get("__doc__")
    if isinstance(doc, str) and doc.strip() and not doc.startswith(cls.__name__ + "("):
        return inspect.cleandoc(doc)
    raise DefinitionError(
        f"tool {cls.__name__}: give it a docstring, a description class variable or description="
    )


def _takes_context(fn: Callable[..., Any], owner: str, bound: int) -> bool:
    try:
        parameters = list(inspect.signature(fn).parameters.values())[bound:]
    except (TypeError, ValueError):
        raise DefinitionError(f"tool {owner}: invoke has no readable signature") from None
    if len(parameters) > 1:
        raise DefinitionError(f"tool {owner}: invoke takes self and at most one context parameter")
    return len(parameters) == 1


def _declare(
    name: str, description: str, argument_codec: Codec[Any], contract: ToolContract
) -> ToolDescriptor:
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, not {type(name).__name__}")
    declared = _tool.new(name, description, argument_codec)
    return ToolDescriptor(declared, contract)


def _is_model(cls: type) -> bool:
    """A pydantic model class, known without importing pydantic (a model's module loaded it)."""
    base = getattr(sys.modules.get("pydantic.main"), "BaseModel", None)
    return isinstance(base, type) and issubclass(cls, base)


def make_tool(
    cls: type[A],
    *,
    name: str | None = None,
    description: str | None = None,
    contract: ToolContract | None = None,
    capabilities: ProviderCapabilities | None = None,
) -> TypedTool[A]:
    """
    The typed tool of an attrs class, dataclass or pydantic model with an ``invoke(self)`` or
    ``invoke(self, ctx)`` method.

    The name defaults to the class name in snake case, the description to ``description`` or the
    docstring, the contract to a ``__tool_contract__`` class variable or the defaults. An optional
    ``compensate(self, ctx, failure)`` method undoes a failed call. ``capabilities`` declares what the tool
    does with its context (consumes the idempotency key, reports heartbeats); it needs ``invoke(self,
    ctx)``. Raises ``DefinitionError`` naming the tool for a bad name, a missing description or invoke, an
    unsupported field type, or a contract the tool cannot honour.
    """
    owner: type[A] = cls
    if not isinstance(cls, type) or not (attrs.has(cls) or dataclasses.is_dataclass(cls) or _is_model(cls)):
        raise TypeError(f"cls must be an attrs class, dataclass or pydantic model, not {type(cls).__name__}")
    invoke = getattr(cls, "invoke", None)
    if not callable(invoke):
        raise DefinitionError(f"tool {cls.__name__}: it has no invoke method")
    takes_context = _takes_context(invoke, cls.__name__, 1)
    given = contract if contract is not None else cls.__dict__.get("__tool_contract__", ToolContract())
    if not isinstance(given, ToolContract):
        raise TypeError(f"contract must be a ToolContract, not {type(given).__name__}")
    handler = getattr(cls, "compensate", None)
    declared = capabilities or ProviderCapabilities()
    declared = attrs.evolve(declared, compensation=callable(handler))
    if (declared.idempotency_key or declared.heartbeat) and not takes_context:
        raise DefinitionError(f"tool {cls.__name__}: declared capabilities need invoke(self, ctx)")
    argument_codec: Codec[A] = _codec.derive(owner)
    descriptor = _declare(
        snake_case(cls.__name__) if name is None else name,
        _description(cls, description),
        argument_codec,
        given,
    )
    check_capabilities(descriptor, declared)

    def call(arguments: A, context: InvocationContext) -> Awaitable[object] | object:
        method: Callable[..., object] = getattr(arguments, "invoke")  # noqa: B009 - the class's own method
        return method(context) if takes_context else method()

    compensate = None
    if callable(handler):

        def compensate(arguments: A, context: InvocationContext, failure: ToolOutcome) -> object:
            return getattr(arguments, "compensate")(context, failure)  # noqa: B009

    return TypedTool(
        owner,
        argument_codec,
        descriptor,
        declared,
        _invoke=call,
        _is_async=inspect.iscoroutinefunction(invoke),
        _compensate=compensate,
        _compensate_async=inspect.iscoroutinefunction(handler),
    )


def function_tool(
    fn: Callable[..., object],
    *,
    name: str | None = None,
    description: str | None = None,
    contract: ToolContract | None = None,
    capabilities: ProviderCapabilities | None = None,
) -> TypedTool[Any]:
    """
    A typed tool from a plain function whose annotated parameters are the arguments (a parameter annotated
    ``InvocationContext`` receives the context). The name defaults to the function's, the description to
    its docstring. Raises ``DefinitionError`` for a parameter without annotation or an unsupported type.
    """
    if not callable(fn) or not hasattr(fn, "__name__"):
        raise TypeError(f"fn must be a function, not {type(fn).__name__}")
    try:
        hints = get_type_hints(fn)
        signature = inspect.signature(fn)
    except (NameError, TypeError, ValueError):
        raise DefinitionError(f"tool {fn.__name__}: its annotations cannot be read") from None
    members: dict[str, Any] = {}
    context_parameter: str | None = None
    for parameter in signature.parameters.values():
        hint = hints.get(parameter.name)
        if hint is InvocationContext:
            context_parameter = parameter.name
            continue
        if hint is None or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise DefinitionError(f"tool {fn.__name__}: parameter {parameter.name} needs a type annotation")
        default = attrs.NOTHING if parameter.default is parameter.empty else parameter.default
        members[parameter.name] = attrs.field(type=hint, default=default)
    text = description if description is not None else inspect.getdoc(fn)
    if not text:
        raise DefinitionError(f"tool {fn.__name__}: give it a docstring or description=")
    cls = attrs.make_class(
        snake_case(fn.__name__).title().replace("_", "") + "Arguments", members, frozen=True
    )
    cls.__annotations__ = {key: hints[key] for key in members}
    argument_codec: Codec[Any] = _codec.derive(cls, namespace=getattr(fn, "__globals__", None))
    declared = capabilities or ProviderCapabilities()
    if (declared.idempotency_key or declared.heartbeat) and context_parameter is None:
        raise DefinitionError(
            f"tool {fn.__name__}: declared capabilities need an InvocationContext parameter"
        )
    descriptor = _declare(
        fn.__name__ if name is None else name, text, argument_codec, contract or ToolContract()
    )
    check_capabilities(descriptor, declared)
    names = tuple(members)

    def call(arguments: Any, context: InvocationContext) -> Awaitable[object] | object:
        keywords = {key: getattr(arguments, key) for key in names}
        if context_parameter is not None:
            keywords[context_parameter] = context
        return fn(**keywords)

    return TypedTool(
        cls,
        argument_codec,
        descriptor,
        declared,
        _invoke=call,
        _is_async=inspect.iscoroutinefunction(fn),
        _compensate=None,
    )


def parse_tool_arguments(typed: TypedTool[A], arguments: str | Value) -> Result[A, ValueFailure]:
    """
    Parse (when text), validate and decode arguments for ``typed``; ``Err(ValueFailure)`` says what is
    wrong and where, never repeating the input.
    """
    if not isinstance(typed, TypedTool):
        raise TypeError(f"typed must be a TypedTool, not {type(typed).__name__}")
    text = arguments if isinstance(arguments, str) else render(arguments)
    return decode_arguments(ToolCall(id="call", name=typed.name, arguments_json=text), typed.codec)


async def invoke_typed_tool(
    typed: TypedTool[A], arguments: A | str, context: InvocationContext | None = None
) -> ToolOutcome:
    """
    Run ``typed`` on decoded ``arguments`` or on argument JSON text (refused arguments give an
    ``invalid_input`` outcome with their issues). Never raises for a tool's failure.
    """
    if not isinstance(typed, TypedTool):
        raise TypeError(f"typed must be a TypedTool, not {type(typed).__name__}")
    if context is not None and not isinstance(context, InvocationContext):
        raise TypeError(f"context must be an InvocationContext, not {type(context).__name__}")
    if isinstance(arguments, str):
        match parse_tool_arguments(typed, arguments):
            case Err(failure):
                return ToolOutcome.invalid_arguments(typed.name, failure)
            case Ok(decoded):
                value = decoded
    elif isinstance(arguments, typed.cls):
        value = arguments
    else:
        raise TypeError(
            f"arguments must be JSON text or a {typed.cls.__name__}, not {type(arguments).__name__}"
        )
    return await typed.run(value, context or InvocationContext())


_public.rehome("llm_wire.agent", _FACE[__name__], globals())
