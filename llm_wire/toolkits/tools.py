"""
The toolkits as agent tools: ``FilesystemTools`` and ``ProcessTools`` are ``ToolProvider``s.

Each exposes only what its runtime's policy enables, with input schemas that mirror the policy maxima
(closed objects, non-empty paths) and descriptors that say honestly what a call does: reads are
``side_effect=read`` and idempotent, mutations are ``write`` or ``destructive`` and not idempotent (so the
runner never retries them), and an operation the policy gates behind approval carries ``approval=always``,
so the runner's approver decides it (and a durable run can suspend on it). A runtime status becomes an
``ErrorCategory``; the result's JSON is the outcome's ``data`` (or the failure's ``details``).

In that default route the provider trusts its caller: ``invoke`` runs a gated call as approved, because the
runner asked before it invoked. Code that calls ``invoke`` itself, outside a runner, must ask first, or use
``approvals=ApprovalRoute.RUNTIME``: then the descriptors ask the runner for nothing and the runtime's own
approver decides, synchronously, at effect time.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from attrs import evolve

from llm_wire import codec as c
from llm_wire import tool as _tool
from llm_wire.admission import decode_arguments
from llm_wire.agent import (
    Approval,
    Capability,
    ErrorCategory,
    Idempotency,
    ProviderCapabilities,
    ResourceVersion,
    Risk,
    SideEffect,
    ToolContract,
    ToolDescriptor,
    ToolInvocation,
    ToolOutcome,
)
from llm_wire.agent.steps import in_thread
from llm_wire.codec import Codec
from llm_wire.message import ToolCall
from llm_wire.result import Err, Ok
from llm_wire.toolkits.filesystem import FileResult, FileStatus, FilesystemRuntime
from llm_wire.toolkits.governance import ApproveAll
from llm_wire.toolkits.process import ProcessResult, ProcessRuntime, TerminationReason
from llm_wire.value import Value, render

__all__ = ["ApprovalRoute", "FilesystemTools", "ProcessTools"]


class ApprovalRoute(enum.Enum):
    """Who decides an approval-gated toolkit call."""

    #: The runner's approver, through the descriptor's ``approval=always`` (the default).
    RUNNER = "runner"
    #: The runtime's own approver, at effect time; the descriptors ask the runner for nothing.
    RUNTIME = "runtime"


_STATUS_CATEGORIES: Mapping[FileStatus, ErrorCategory] = {
    FileStatus.NOT_FOUND: ErrorCategory.NOT_FOUND,
    FileStatus.ALREADY_EXISTS: ErrorCategory.CONFLICT,
    FileStatus.CONFLICT: ErrorCategory.CONFLICT,
    FileStatus.PERMISSION_DENIED: ErrorCategory.PERMISSION_DENIED,
    FileStatus.APPROVAL_DENIED: ErrorCategory.PERMISSION_DENIED,
    FileStatus.OUTSIDE_ROOT: ErrorCategory.PERMISSION_DENIED,
    FileStatus.CANCELLED: ErrorCategory.CANCELLED,
    FileStatus.INVALID_PATH: ErrorCategory.INVALID_INPUT,
    FileStatus.INVALID_REQUEST: ErrorCategory.INVALID_INPUT,
    FileStatus.TYPE_MISMATCH: ErrorCategory.INVALID_INPUT,
    FileStatus.LIMIT_EXCEEDED: ErrorCategory.INVALID_INPUT,
    FileStatus.IO_ERROR: ErrorCategory.INTERNAL,
}

_TERMINATION_CATEGORIES: Mapping[TerminationReason, ErrorCategory] = {
    TerminationReason.TIMED_OUT: ErrorCategory.TIMEOUT,
    TerminationReason.CANCELLED: ErrorCategory.CANCELLED,
    TerminationReason.POLICY_DENIED: ErrorCategory.PERMISSION_DENIED,
    TerminationReason.APPROVAL_DENIED: ErrorCategory.PERMISSION_DENIED,
    TerminationReason.INVALID_REQUEST: ErrorCategory.INVALID_INPUT,
    TerminationReason.LAUNCH_FAILED: ErrorCategory.INTERNAL,
    TerminationReason.BACKEND_ERROR: ErrorCategory.INTERNAL,
}


def _category_of_status(status: FileStatus) -> ErrorCategory | None:
    """The category a filesystem status shows the model; ``None`` for ``OK``."""
    return _STATUS_CATEGORIES.get(status)


def _category_of_termination(reason: TerminationReason) -> ErrorCategory | None:
    """The category a termination reason shows the model; ``None`` for ``EXITED`` (any exit code)."""
    return _TERMINATION_CATEGORIES.get(reason)


def _outcome(
    plain: dict[str, object], category: ErrorCategory | None, code: str, message: str
) -> ToolOutcome:
    data = cast(Value, plain)
    if category is None:
        return ToolOutcome.success(message, data)
    # A timeout is worth retrying with a longer budget (when the tool is safe to repeat: ``invoke`` applies
    # ``ToolContract.retry_advice``); nothing else here gets better by itself.
    retryable = category is ErrorCategory.TIMEOUT
    return ToolOutcome.failed(category, code, message, retryable=retryable, details=data)


def _file_tool_outcome(result: FileResult) -> ToolOutcome:
    """The outcome of a filesystem result: its JSON as data, or as the failure's details."""
    category = _category_of_status(result.status)
    message = f"{result.operation}: {result.error or 'ok'}"
    outcome = _outcome(result.to_plain(), category, result.status.value, message)
    if category is None and result.revision is not None:
        outcome = _with_version(outcome, result.revision)
    return outcome


def _process_tool_outcome(result: ProcessResult) -> ToolOutcome:
    """The outcome of a process result; a non-zero exit is a success whose data holds the exit code."""
    category = _category_of_termination(result.termination_reason)
    reason = result.termination_reason.value
    message = f"exited with code {result.exit_code}" if category is None else f"{reason}: {result.error}"
    return _outcome(result.to_plain(), category, reason, message)


def _with_version(outcome: ToolOutcome, revision: str) -> ToolOutcome:
    return evolve(outcome, resource_version=revision)


# -- argument codecs ------------------------------------------------------------------------------------


_PATH_TEXT = "A path relative to the root (no absolute path, no '..' out of it)."
_PATH = c.string(min_length=1, max_length=4096)
_FLAG = c.boolean()
_REVISION = c.string(pattern="^sha256:[0-9a-f]{64}$")


def _path(name: str, text: str = _PATH_TEXT) -> c.Field:
    return c.required(name, _PATH, description=text)


def _path_or(name: str, default: object, text: str = _PATH_TEXT) -> c.Field:
    return c.optional(name, _PATH, default=default, description=text)


def _limit(name: str, maximum: int, what: str) -> c.Field:
    codec = c.integer(minimum=0, maximum=maximum)
    return c.optional(name, codec, default=0, description=f"{what} (0: the maximum, {maximum})")


def _revision() -> c.Field:
    text = "The revision the file must still have (sha256:<hex> from a read); else a conflict."
    return c.optional("expected_revision", _REVISION, default=None, description=text)


def _record(*fields: c.Field) -> Codec[dict[str, Any]]:
    return c.record(dict, *fields)


def _optional(name: str, codec: Codec[Any], default: object) -> c.Field:
    return c.optional(name, codec, default=default)


# -- the shared provider frame ------------------------------------------------------------------------


class _Entry:
    """One exposed tool: its descriptor, argument codec and handler."""

    def __init__(
        self,
        descriptor: ToolDescriptor,
        codec: Codec[dict[str, Any]],
        run: Callable[[dict[str, Any], Any], ToolOutcome],
    ) -> None:
        self.descriptor = descriptor
        self.codec = codec
        self.run = run


class _Provider:
    """Descriptors listed once, calls dispatched by descriptor name in a worker thread."""

    _entries: dict[str, _Entry]

    def descriptors(self) -> Sequence[ToolDescriptor]:
        """The exposed tools' descriptors."""
        return tuple(entry.descriptor for entry in self._entries.values())

    def capabilities(self, name: str) -> ProviderCapabilities | None:
        """Nothing beyond running (no idempotency key, heartbeat or compensation); ``None`` if unknown."""
        return ProviderCapabilities() if name in self._entries else None

    async def invoke(self, invocation: ToolInvocation) -> ToolOutcome:
        """
        Run the call on a daemon thread (``in_thread``); the invocation's context is the runtime's
        cancellation signal, so a call the runner abandons stops at the runtime's next check (a process
        tree is killed).
        """
        entry = self._entries.get(invocation.name)
        if entry is None:
            return ToolOutcome.unknown_tool(list(self._entries))
        arguments = invocation.decoded
        if not isinstance(arguments, dict):
            text = render(invocation.arguments)
            match decode_arguments(
                ToolCall(id=invocation.call_id, name=invocation.name, arguments_json=text), entry.codec
            ):
                case Err(failure):
                    return ToolOutcome.invalid_arguments(invocation.name, failure)
                case Ok(decoded):
                    arguments = decoded
        context = invocation.context
        try:
            outcome = await in_thread(entry.run, arguments, context)
        except asyncio.CancelledError:
            context.cancel()
            raise
        # The runner's own rule: a timed-out mutation may have taken effect and is not retryable.
        return entry.descriptor.contract.retry_advice(outcome, invocation.name, consumes_key=False)


def _declare(
    prefix: str, name: str, description: str, codec: Codec[dict[str, Any]], contract: ToolContract
) -> ToolDescriptor:
    return ToolDescriptor(_tool.new(prefix + name, description, codec), contract)


class FilesystemTools(_Provider):
    """
    The filesystem toolkit as a ``ToolProvider``: ``file_info``, ``read_file``, ``list_directory``,
    ``glob_files`` and ``search_text`` when reading is allowed, then each mutation tool its policy enables
    (``write_file`` and ``replace_text``, ``create_directory``, ``copy_path``, ``move_path``,
    ``remove_path``). ``prefix`` is put before every name.
    """

    def __init__(
        self, runtime: FilesystemRuntime, *, prefix: str = "", approvals: ApprovalRoute = ApprovalRoute.RUNNER
    ) -> None:
        if not isinstance(runtime, FilesystemRuntime):
            raise TypeError("runtime must be a FilesystemRuntime")
        if not isinstance(prefix, str):
            raise TypeError("prefix must be a str")
        if not isinstance(approvals, ApprovalRoute):
            raise TypeError("approvals must be an ApprovalRoute")
        self.runtime = runtime
        policy, limits = runtime.policy, runtime.policy.limits
        by_runner = approvals is ApprovalRoute.RUNNER
        approved = runtime.with_approver(ApproveAll()) if by_runner else runtime
        capability = Capability(
            "filesystem.write", Risk.HIGH, "changes files under the root", (runtime.root,)
        )
        reading = Capability("filesystem.read", Risk.LOW, "reads files under the root", (runtime.root,))
        versioned = ResourceVersion(argument_pointer="/expected_revision", outcome_pointer="/revision")

        def read(version: bool = False) -> ToolContract:
            return ToolContract(
                side_effect=SideEffect.READ,
                idempotency=Idempotency.IDEMPOTENT,
                capabilities=(reading,),
                resource_version=versioned if version else ResourceVersion(),
            )

        def mutation(effect: SideEffect, gated: bool, version: bool = False) -> ToolContract:
            return ToolContract(
                side_effect=effect,
                idempotency=Idempotency.NON_IDEMPOTENT,
                approval=Approval.ALWAYS if gated and by_runner else Approval.NEVER,
                capabilities=(capability,),
                resource_version=versioned if version else ResourceVersion(),
            )

        entries: list[_Entry] = []

        def add(
            name: str,
            description: str,
            codec: Codec[dict[str, Any]],
            contract: ToolContract,
            run: Callable[..., FileResult],
        ) -> None:
            descriptor = _declare(prefix, name, description, codec, contract)
            entries.append(_Entry(descriptor, codec, lambda args, ctx: _file_tool_outcome(run(args, ctx))))

        if policy.allow_read:
            add(
                "file_info",
                "Type and size of a path under the root; include_revision adds a file's sha256 revision.",
                _record(_path("path"), _optional("include_revision", _FLAG, False)),
                read(version=True),
                lambda a, ctx: runtime.file_info(
                    a["path"], include_revision=a["include_revision"], cancel=ctx
                ),
            )
            add(
                "read_file",
                "Read a UTF-8 text file under the root; the result has its content and sha256 revision.",
                _record(
                    _path("path"),
                    _limit("max_bytes", limits.max_read_bytes, "Bytes to read at most"),
                ),
                read(version=True),
                lambda a, ctx: runtime.read_text(a["path"], max_bytes=a["max_bytes"], cancel=ctx),
            )
            add(
                "list_directory",
                "List a directory (recursive=true walks down); links are shown, never followed.",
                _record(
                    _path_or("path", "."),
                    _optional("recursive", _FLAG, False),
                    _limit("max_depth", min(limits.max_search_depth, limits.max_depth), "Levels to walk"),
                    _limit("max_entries", limits.max_directory_entries, "Entries to list"),
                ),
                read(),
                lambda a, ctx: runtime.list_directory(
                    a["path"],
                    recursive=a["recursive"],
                    max_depth=a["max_depth"],
                    max_entries=a["max_entries"],
                    cancel=ctx,
                ),
            )
            add(
                "glob_files",
                "Find paths under a directory matching a glob pattern (*, ?, [...]; ** spans directories).",
                _record(
                    c.required("pattern", c.string(min_length=1, max_length=limits.max_pattern_bytes)),
                    _path_or("path", "."),
                    _limit("max_results", limits.max_search_results, "Paths to return"),
                ),
                read(),
                lambda a, ctx: runtime.glob_files(
                    a["pattern"], path=a["path"], max_results=a["max_results"], cancel=ctx
                ),
            )
            add(
                "search_text",
                "Search UTF-8 files under a path for a literal text (not a regex); lines, columns from 1.",
                _record(
                    c.required("query", c.string(min_length=1, max_length=limits.max_pattern_bytes)),
                    _path_or("path", "."),
                    _optional("case_sensitive", _FLAG, True),
                    _limit("max_results", limits.max_search_results, "Matches to return"),
                    _limit("max_output_bytes", limits.max_search_output_bytes, "Bytes of matches to return"),
                ),
                read(),
                lambda a, ctx: runtime.search_text(
                    a["query"],
                    path=a["path"],
                    case_sensitive=a["case_sensitive"],
                    max_results=a["max_results"],
                    max_output_bytes=a["max_output_bytes"],
                    cancel=ctx,
                ),
            )
        gate_write = policy.require_approval_for_write
        if policy.allow_write:
            add(
                "write_file",
                "Write a UTF-8 text file under the root atomically. create_new never overwrites; "
                "expected_revision makes the write a conflict if the file changed since it was read.",
                _record(
                    _path("path"),
                    c.required("content", c.string(max_length=limits.max_write_bytes)),
                    _optional("create_new", _FLAG, False),
                    _revision(),
                    _optional("create_parents", _FLAG, False),
                ),
                mutation(SideEffect.WRITE, gate_write, version=True),
                lambda a, ctx: approved.write_text(
                    a["path"],
                    a["content"],
                    create_new=a["create_new"],
                    expected_revision=a["expected_revision"],
                    create_parents=a["create_parents"],
                    cancel=ctx,
                ),
            )
            add(
                "replace_text",
                "Replace an exact text in a file: it must occur expected_replacements times (default once) "
                "unless replace_all is set.",
                _record(
                    _path("path"),
                    c.required("old", c.string(min_length=1)),
                    c.required("new", c.string(max_length=limits.max_write_bytes)),
                    _optional("expected_replacements", c.integer(minimum=1), 1),
                    _optional("replace_all", _FLAG, False),
                    _revision(),
                ),
                mutation(SideEffect.WRITE, gate_write, version=True),
                lambda a, ctx: approved.replace_text(
                    a["path"],
                    a["old"],
                    a["new"],
                    expected_replacements=a["expected_replacements"],
                    replace_all=a["replace_all"],
                    expected_revision=a["expected_revision"],
                    cancel=ctx,
                ),
            )
        if policy.allow_create_directory:
            add(
                "create_directory",
                "Create a directory under the root (parents=true creates missing parents).",
                _record(
                    _path("path"),
                    _optional("parents", _FLAG, False),
                    _optional("exist_ok", _FLAG, False),
                ),
                mutation(SideEffect.WRITE, gate_write),
                lambda a, ctx: approved.create_directory(
                    a["path"], parents=a["parents"], exist_ok=a["exist_ok"], cancel=ctx
                ),
            )
        pair = _record(
            _path("source"),
            _path("destination"),
            _optional("recursive", _FLAG, False),
            _optional("overwrite", _FLAG, False),
        )
        if policy.allow_copy:
            add(
                "copy_path",
                "Copy a file, or a directory with recursive=true; overwrite replaces a regular file only.",
                pair,
                mutation(SideEffect.WRITE, gate_write),
                lambda a, ctx: approved.copy_path(
                    a["source"],
                    a["destination"],
                    recursive=a["recursive"],
                    overwrite=a["overwrite"],
                    cancel=ctx,
                ),
            )
        if policy.allow_move:
            add(
                "move_path",
                "Move or rename a path under the root (a directory needs recursive=true).",
                pair,
                mutation(SideEffect.DESTRUCTIVE, policy.require_approval_for_move),
                lambda a, ctx: approved.move_path(
                    a["source"],
                    a["destination"],
                    recursive=a["recursive"],
                    overwrite=a["overwrite"],
                    cancel=ctx,
                ),
            )
        if policy.allow_remove:
            add(
                "remove_path",
                "Remove a file, or a directory tree with recursive=true; the root itself is never removed.",
                _record(
                    _path("path"),
                    _optional("recursive", _FLAG, False),
                    _revision(),
                ),
                mutation(SideEffect.DESTRUCTIVE, policy.require_approval_for_remove, version=True),
                lambda a, ctx: approved.remove_path(
                    a["path"], recursive=a["recursive"], expected_revision=a["expected_revision"], cancel=ctx
                ),
            )
        self._entries = {entry.descriptor.name: entry for entry in entries}

    def __repr__(self) -> str:
        return f"<FilesystemTools ({len(self._entries)} tools)>"


class ProcessTools(_Provider):
    """
    The process toolkit as a ``ToolProvider``: ``run_process`` when any executable is allowlisted, and
    ``run_shell`` only when both the policy allows a shell and ``expose_shell_tool`` is set (each call checks
    both again). ``run_shell`` is critical and, by default, approval-gated.
    """

    def __init__(
        self,
        runtime: ProcessRuntime,
        *,
        expose_shell_tool: bool = False,
        prefix: str = "",
        approvals: ApprovalRoute = ApprovalRoute.RUNNER,
    ) -> None:
        if not isinstance(runtime, ProcessRuntime):
            raise TypeError("runtime must be a ProcessRuntime")
        if not isinstance(expose_shell_tool, bool):
            raise TypeError("expose_shell_tool must be a bool")
        if not isinstance(prefix, str):
            raise TypeError("prefix must be a str")
        if not isinstance(approvals, ApprovalRoute):
            raise TypeError("approvals must be an ApprovalRoute")
        self.runtime = runtime
        policy, limits = runtime.policy, runtime.policy.limits
        by_runner = approvals is ApprovalRoute.RUNNER
        approved = runtime.with_approver(ApproveAll()) if by_runner else runtime
        # The runtime bounds the time itself; the runner's deadline sits just past it (tree kill, drain).
        deadline = limits.timeout_ms / 1000 + 5
        common = (
            _optional("stdin_text", c.string(max_length=limits.max_stdin_bytes), ""),
            _path_or("workdir", None, "A working directory relative to the root."),
            _optional("environment", c.dict_of(c.string()), {}),
            _limit("timeout_ms", limits.timeout_ms, "Milliseconds before the process tree is killed"),
            _limit("max_stdout_bytes", limits.max_stdout_bytes, "stdout bytes kept"),
            _limit("max_stderr_bytes", limits.max_stderr_bytes, "stderr bytes kept"),
        )
        self._shell_exposed = policy.allow_shell and expose_shell_tool

        def options(a: dict[str, Any]) -> dict[str, Any]:
            return {
                "stdin_text": a["stdin_text"],
                "workdir": a["workdir"],
                "environment": a["environment"],
                "timeout_ms": a["timeout_ms"],
                "max_stdout_bytes": a["max_stdout_bytes"],
                "max_stderr_bytes": a["max_stderr_bytes"],
            }

        entries: list[_Entry] = []
        if runtime.has_executables:
            allowed = ", ".join(sorted({entry.rsplit("/", 1)[-1] for entry in policy.allowed_executables}))
            codec = _record(
                c.required("executable", _PATH, description=f"One of: {allowed}."),
                _optional("arguments", c.list_of(c.string(), max_items=limits.max_arguments), []),
                *common,
            )
            contract = ToolContract(
                side_effect=SideEffect.WRITE,
                idempotency=Idempotency.UNKNOWN,
                approval=Approval.ALWAYS
                if policy.require_approval_for_process and by_runner
                else Approval.NEVER,
                timeout=deadline,
                capabilities=(
                    Capability("process.execute", Risk.HIGH, "runs an allowlisted program", (runtime.root,)),
                ),
            )
            descriptor = _declare(
                prefix,
                "run_process",
                "Run an allowlisted program with an argument list (no shell: no pipes, globs or variables). "
                "A non-zero exit code is a normal result.",
                codec,
                contract,
            )
            entries.append(
                _Entry(
                    descriptor,
                    codec,
                    lambda a, ctx: _process_tool_outcome(
                        approved.run_process(a["executable"], a["arguments"], cancel=ctx, **options(a))
                    ),
                )
            )
        if self._shell_exposed:
            codec = _record(
                c.required("command", c.string(min_length=1, max_length=limits.max_argument_bytes)), *common
            )
            contract = ToolContract(
                side_effect=SideEffect.DESTRUCTIVE,
                idempotency=Idempotency.NON_IDEMPOTENT,
                approval=Approval.ALWAYS
                if policy.require_approval_for_shell and by_runner
                else Approval.NEVER,
                timeout=deadline,
                capabilities=(
                    Capability("process.shell", Risk.CRITICAL, "runs a shell command", (runtime.root,)),
                ),
            )
            descriptor = _declare(
                prefix, "run_shell", "Run a command line through the shell.", codec, contract
            )
            entries.append(
                _Entry(
                    descriptor,
                    codec,
                    lambda a, ctx: _process_tool_outcome(
                        approved.run_shell(a["command"], cancel=ctx, **options(a))
                    ),
                )
            )
        self._entries = {entry.descriptor.name: entry for entry in entries}

    def __repr__(self) -> str:
        return f"<ProcessTools ({len(self._entries)} tools)>"
