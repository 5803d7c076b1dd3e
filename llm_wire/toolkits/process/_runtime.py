"""
``ProcessRuntime``: every request checked before launch (executable, workdir, environment, limits),
approved when the policy asks, launched through ``_spawn`` and audited.
"""

from __future__ import annotations

import copy as copy_module
import os
import stat
import uuid
from collections.abc import Mapping, Sequence

from attrs import frozen

from llm_wire.agent import Risk
from llm_wire.toolkits._common import caller_metadata, clamp
from llm_wire.toolkits.filesystem._core import Refusal, open_root, split_path, walk_dirs
from llm_wire.toolkits.governance import (
    AuditEvent,
    AuditKind,
    AuditSink,
    CancelSignal,
    ConfigurationError,
    EffectApprover,
    EffectRequest,
    _ask,
    _check_cancel,
    _emit,
    _Metadata,
    _MetadataValue,
)
from llm_wire.toolkits.process._records import (
    RESERVED_PROCESS_METADATA,
    ProcessPolicy,
    ProcessResult,
    TerminationReason,
)
from llm_wire.toolkits.process._spawn import Ending, Spawned, spawn

__all__ = ["ProcessRuntime"]


class _ProcessRefusal(Exception):  # internal control flow: always caught in ``_perform``
    def __init__(self, reason: TerminationReason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


def _valid_key(key: str) -> bool:
    return key != "" and "=" not in key and "\x00" not in key


def _executable_file(path: str) -> bool:
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISREG(mode) and os.access(path, os.X_OK)


class ProcessRuntime:
    """
    Runs processes under one policy. Raises ``ConfigurationError`` at construction for a root, default
    workdir, allowlist entry, search path, environment key or shell that cannot be used.
    """

    def __init__(
        self, policy: ProcessPolicy, *, approver: EffectApprover | None = None, audit: AuditSink | None = None
    ) -> None:
        if not isinstance(policy, ProcessPolicy):
            raise TypeError("policy must be a ProcessPolicy")
        self.policy = policy
        self._approver = approver
        self._audit = audit
        root = os.path.realpath(policy.working_directory_root)
        if not os.path.isdir(root):
            raise ConfigurationError("ProcessPolicy.working_directory_root must be an existing directory")
        info = os.stat(root)
        self.root = root
        self._identity = (info.st_dev, info.st_ino)
        try:
            parts = split_path(policy.default_workdir)
        except Refusal:
            raise ConfigurationError(
                "ProcessPolicy.default_workdir must be a directory inside the root"
            ) from None
        if not os.path.isdir(os.path.join(root, *parts)) or not self._inside(os.path.join(root, *parts)):
            raise ConfigurationError("ProcessPolicy.default_workdir must be a directory inside the root")
        self._default_workdir = parts
        for directory in policy.executable_search_paths:
            if not os.path.isabs(directory) or not os.path.isdir(directory):
                raise ConfigurationError(
                    "ProcessPolicy.executable_search_paths must be existing absolute directories"
                )
        absolute: dict[str, str] = {}
        bare: set[str] = set()
        for entry in policy.allowed_executables:
            if os.path.isabs(entry):
                canonical = os.path.realpath(entry)
                if not _executable_file(canonical):
                    raise ConfigurationError(
                        "ProcessPolicy.allowed_executables holds a path that is not an executable"
                    )
                absolute.setdefault(os.path.basename(entry), canonical)
                absolute.setdefault(os.path.basename(canonical), canonical)
            elif "/" in entry or entry in ("", ".", ".."):
                raise ConfigurationError(
                    "ProcessPolicy.allowed_executables entries are absolute paths or bare file names"
                )
            else:
                bare.add(entry)
        if bare and not policy.executable_search_paths:
            raise ConfigurationError(
                "a bare name in ProcessPolicy.allowed_executables needs executable_search_paths"
            )
        self._absolute = absolute
        self._canonical = frozenset(absolute.values())
        self._bare = frozenset(bare)
        keys = [*policy.base_environment, *policy.allowed_environment_overrides]
        if not all(_valid_key(key) for key in keys) or any(
            "\x00" in v for v in policy.base_environment.values()
        ):
            raise ConfigurationError("ProcessPolicy environment keys must be non-empty, without '=' or NUL")
        if policy.allow_shell and not (
            os.path.isabs(policy.shell_executable) and _executable_file(policy.shell_executable)
        ):
            raise ConfigurationError("ProcessPolicy.shell_executable must be an existing absolute executable")

    def __repr__(self) -> str:
        return "<ProcessRuntime>"

    def with_approver(self, approver: EffectApprover | None) -> ProcessRuntime:
        """The same runtime (policy, root, audit) asking ``approver`` instead."""
        copy = copy_module.copy(self)
        copy._approver = approver
        return copy

    @property
    def has_executables(self) -> bool:
        """Whether any executable is allowlisted (``run_process`` can ever run)."""
        return bool(self._canonical or self._bare)

    def _inside(self, path: str) -> bool:
        real = os.path.realpath(path)
        return real == self.root or real.startswith(self.root.rstrip("/") + "/")

    def run_process(
        self,
        executable: str,
        arguments: Sequence[str] = (),
        *,
        stdin_text: str = "",
        workdir: str | None = None,
        environment: Mapping[str, str] | None = None,
        timeout_ms: int = 0,
        max_stdout_bytes: int = 0,
        max_stderr_bytes: int = 0,
        metadata: _Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> ProcessResult:
        """
        Run an allowlisted executable with ``arguments`` (argv, no shell). Limits of 0 mean the policy
        maximum. A non-zero exit is ``EXITED``; every refusal is a result, never an exception.
        """
        if not isinstance(executable, str):
            raise TypeError("executable must be a str")
        args = _argument_list(arguments)
        return self._perform(
            "run_process",
            executable,
            args,
            shell=False,
            stdin_text=stdin_text,
            workdir=workdir,
            environment=environment,
            timeout_ms=timeout_ms,
            max_stdout_bytes=max_stdout_bytes,
            max_stderr_bytes=max_stderr_bytes,
            metadata=metadata,
            cancel=cancel,
        )

    def run_shell(
        self,
        command: str,
        *,
        stdin_text: str = "",
        workdir: str | None = None,
        environment: Mapping[str, str] | None = None,
        timeout_ms: int = 0,
        max_stdout_bytes: int = 0,
        max_stderr_bytes: int = 0,
        metadata: _Metadata | None = None,
        cancel: CancelSignal | None = None,
    ) -> ProcessResult:
        """
        Run ``shell_executable -c command``: refused (``POLICY_DENIED``) unless the policy allows a shell;
        critical, and approval-gated unless ``require_approval_for_shell`` is off.
        """
        if not isinstance(command, str):
            raise TypeError("command must be a str")
        return self._perform(
            "run_shell",
            command,
            (),
            shell=True,
            stdin_text=stdin_text,
            workdir=workdir,
            environment=environment,
            timeout_ms=timeout_ms,
            max_stdout_bytes=max_stdout_bytes,
            max_stderr_bytes=max_stderr_bytes,
            metadata=metadata,
            cancel=cancel,
        )

    def _perform(
        self,
        operation: str,
        target: str,
        arguments: tuple[str, ...],
        *,
        shell: bool,
        stdin_text: object,
        workdir: object,
        environment: object,
        timeout_ms: object,
        max_stdout_bytes: object,
        max_stderr_bytes: object,
        metadata: object,
        cancel: object,
    ) -> ProcessResult:
        checked = _Checked.of(
            stdin_text, workdir, environment, timeout_ms, max_stdout_bytes, max_stderr_bytes
        )
        signal = _check_cancel(cancel)
        caller = caller_metadata(metadata, RESERVED_PROCESS_METADATA)
        operation_id = uuid.uuid4().hex
        runtime_meta: dict[str, _MetadataValue] = {"shell": shell}
        resources: tuple[str, ...] = ()
        try:
            if signal is not None and signal.cancelled:
                raise _ProcessRefusal(TerminationReason.CANCELLED, "the request was cancelled before launch")
            argv, workdir_parts, env, stdin, limits = self._check(target, arguments, shell, checked)
            runtime_meta["executable"] = argv[0]
            resources = (argv[0], "/".join(workdir_parts) or ".")
            self._event(AuditKind.POLICY_EVALUATED, operation, operation_id, resources)
            needs = (
                self.policy.require_approval_for_shell if shell else self.policy.require_approval_for_process
            )
            if needs:
                capability, risk = (
                    ("process.shell", Risk.CRITICAL) if shell else ("process.execute", Risk.HIGH)
                )
                request = EffectRequest(capability, risk, operation, operation_id, resources)
                if not _ask(self._approver, request):
                    self._event(AuditKind.APPROVAL_DENIED, operation, operation_id, resources)
                    raise _ProcessRefusal(
                        TerminationReason.APPROVAL_DENIED, "the process needs approval and was not approved"
                    )
                self._event(AuditKind.APPROVAL_APPROVED, operation, operation_id, resources)
            if signal is not None and signal.cancelled:
                raise _ProcessRefusal(TerminationReason.CANCELLED, "the request was cancelled before launch")
            spawned = self._launch(argv, workdir_parts, env, stdin, limits, signal, operation, operation_id)
            result = _result_of(spawned, caller, runtime_meta, operation, operation_id)
        except _ProcessRefusal as stop:
            meta = {**caller, **runtime_meta, "operation_id": operation_id, "operation": operation}
            result = ProcessResult(stop.reason, metadata=meta, error=stop.message)
        except OSError:
            meta = {**caller, **runtime_meta, "operation_id": operation_id, "operation": operation}
            result = ProcessResult(
                TerminationReason.BACKEND_ERROR, metadata=meta, error="the operating system reported an error"
            )
        details: dict[str, _MetadataValue] = {
            "stdout_bytes": len(result.stdout.encode("utf-8", "replace")),
            "stderr_bytes": len(result.stderr.encode("utf-8", "replace")),
            "stdout_truncated": result.stdout_truncated,
            "stderr_truncated": result.stderr_truncated,
            "elapsed_ms": result.elapsed_ms,
        }
        if result.exit_code is not None:
            details["exit_code"] = result.exit_code
        self._event(
            AuditKind.PROCESS_FINISHED,
            operation,
            operation_id,
            resources,
            result.termination_reason.value,
            result.error,
            details,
        )
        return result

    def _check(
        self, target: str, arguments: tuple[str, ...], shell: bool, checked: _Checked
    ) -> tuple[tuple[str, ...], tuple[str, ...], dict[str, str], bytes, tuple[float, int, int]]:
        """The argv, workdir, environment and limits of a request that passes every pre-launch check."""
        limits = self.policy.limits
        if shell:
            if not self.policy.allow_shell:
                raise _ProcessRefusal(TerminationReason.POLICY_DENIED, "the shell is disabled by policy")
            if target.strip() == "":
                raise _ProcessRefusal(TerminationReason.POLICY_DENIED, "the shell command is empty")
        timeout = clamp("timeout_ms", checked.timeout_ms, limits.timeout_ms, _invalid) / 1000
        out = clamp("max_stdout_bytes", checked.max_stdout, limits.max_stdout_bytes, _invalid)
        err = clamp("max_stderr_bytes", checked.max_stderr, limits.max_stderr_bytes, _invalid)
        argv_tail = ("-c", target) if shell else arguments
        if len(argv_tail) > limits.max_arguments:
            raise _ProcessRefusal(
                TerminationReason.INVALID_REQUEST, f"more than {limits.max_arguments} arguments"
            )
        if any("\x00" in a for a in (target, *argv_tail)):
            raise _ProcessRefusal(TerminationReason.INVALID_REQUEST, "an argument holds a NUL character")
        size = sum(len(_utf8(a)) + 1 for a in (target, *argv_tail))
        if size > limits.max_argument_bytes:
            raise _ProcessRefusal(
                TerminationReason.INVALID_REQUEST,
                f"the arguments are larger than {limits.max_argument_bytes} bytes",
            )
        try:
            stdin = checked.stdin.encode("utf-8")
        except UnicodeEncodeError:
            raise _ProcessRefusal(
                TerminationReason.INVALID_REQUEST, "stdin_text is not valid Unicode text"
            ) from None
        if len(stdin) > limits.max_stdin_bytes:
            raise _ProcessRefusal(
                TerminationReason.INVALID_REQUEST, f"stdin is larger than {limits.max_stdin_bytes} bytes"
            )
        workdir = self._workdir(checked.workdir)
        executable = self.policy.shell_executable if shell else self._resolve(target, workdir)
        env = self._env(checked.environment)
        return (executable, *argv_tail), workdir, env, stdin, (timeout, out, err)

    def _workdir(self, requested: str | None) -> tuple[str, ...]:
        if requested is None:
            return self._default_workdir
        try:
            return split_path(requested)
        except Refusal:
            raise _ProcessRefusal(
                TerminationReason.POLICY_DENIED, "the workdir must be a directory inside the root"
            ) from None

    def _resolve(self, requested: str, workdir: tuple[str, ...]) -> str:
        """The canonical allowlisted file ``requested`` names; ``POLICY_DENIED`` when it names none."""
        denied = _ProcessRefusal(TerminationReason.POLICY_DENIED, "the executable is not allowlisted")
        if requested == "" or requested in (".", ".."):
            raise denied
        if "/" in requested:
            base = os.path.join(self.root, *workdir)
            canonical = os.path.realpath(os.path.join(base, requested))
            if canonical not in self._canonical:
                raise denied
            return canonical
        if requested in self._absolute:
            return self._absolute[requested]
        if requested in self._bare:
            for directory in self.policy.executable_search_paths:
                candidate = os.path.join(directory, requested)
                if _executable_file(candidate):
                    return os.path.realpath(candidate)
            raise _ProcessRefusal(
                TerminationReason.LAUNCH_FAILED, "the executable is in no configured search path"
            )
        raise denied

    def _env(self, overrides: Mapping[str, str]) -> dict[str, str]:
        limits = self.policy.limits
        env = dict(self.policy.base_environment)
        for key, value in overrides.items():
            if not _valid_key(key) or "\x00" in value:
                raise _ProcessRefusal(
                    TerminationReason.INVALID_REQUEST, "an environment key or value is malformed"
                )
            if key not in self.policy.allowed_environment_overrides:
                raise _ProcessRefusal(
                    TerminationReason.POLICY_DENIED, "an environment override is not allowlisted"
                )
            env[key] = value
        if len(env) > limits.max_environment_entries:
            raise _ProcessRefusal(
                TerminationReason.INVALID_REQUEST,
                f"more than {limits.max_environment_entries} environment entries",
            )
        if sum(len(_utf8(k)) + len(_utf8(v)) + 2 for k, v in env.items()) > limits.max_environment_bytes:
            raise _ProcessRefusal(
                TerminationReason.INVALID_REQUEST,
                f"the environment is larger than {limits.max_environment_bytes} bytes",
            )
        return env

    def _launch(
        self,
        argv: tuple[str, ...],
        workdir: tuple[str, ...],
        env: dict[str, str],
        stdin: bytes,
        limits: tuple[float, int, int],
        cancel: CancelSignal | None,
        operation: str,
        operation_id: str,
    ) -> Spawned:
        root = open_root(self.root, self._identity)
        try:
            try:
                where, _ = walk_dirs(root, workdir)
            except Refusal:
                raise _ProcessRefusal(
                    TerminationReason.POLICY_DENIED, "the workdir must be a directory inside the root"
                ) from None
        finally:
            os.close(root)
        resources = (argv[0], "/".join(workdir) or ".")
        timeout, out, err = limits
        try:
            # The child enters the very directory just checked (its descriptor), not a path looked up again.
            return spawn(
                argv,
                cwd=f"/proc/self/fd/{where}",
                env=env,
                stdin=stdin,
                timeout=timeout,
                max_stdout=out,
                max_stderr=err,
                cancelled=(lambda: cancel.cancelled) if cancel is not None else (lambda: False),
                started=lambda pid: self._event(
                    AuditKind.PROCESS_STARTED, operation, operation_id, resources, details={"process_id": pid}
                ),
            )
        finally:
            os.close(where)

    def _event(
        self,
        kind: AuditKind,
        operation: str,
        operation_id: str,
        resources: tuple[str, ...],
        status: str | None = None,
        error: str | None = None,
        details: Mapping[str, _MetadataValue] | None = None,
    ) -> None:
        _emit(
            self._audit,
            AuditEvent(kind, "process", operation, operation_id, resources, status, error, details or {}),
        )


@frozen
class _Checked:
    """A request's optional parts, type-checked."""

    stdin: str
    workdir: str | None
    environment: Mapping[str, str]
    timeout_ms: int
    max_stdout: int
    max_stderr: int

    @classmethod
    def of(
        cls, stdin: object, workdir: object, environment: object, timeout: object, out: object, err: object
    ) -> _Checked:
        if not isinstance(stdin, str):
            raise TypeError("stdin_text must be a str")
        if workdir is not None and not isinstance(workdir, str):
            raise TypeError("workdir must be a str")
        if environment is None:
            environment = {}
        if not isinstance(environment, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in environment.items()
        ):
            raise TypeError("environment must be a mapping of str to str")
        for name, value in (("timeout_ms", timeout), ("max_stdout_bytes", out), ("max_stderr_bytes", err)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int")
        assert isinstance(timeout, int)
        assert isinstance(out, int)
        assert isinstance(err, int)
        return cls(stdin, workdir, dict(environment), timeout, out, err)


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise _ProcessRefusal(
            TerminationReason.INVALID_REQUEST, "an argument is not valid Unicode text"
        ) from None


def _argument_list(arguments: object) -> tuple[str, ...]:
    if isinstance(arguments, str) or not isinstance(arguments, Sequence):
        raise TypeError("arguments must be a sequence of str")
    if not all(isinstance(a, str) for a in arguments):
        raise TypeError("arguments must be a sequence of str")
    return tuple(arguments)


def _invalid(message: str) -> _ProcessRefusal:
    return _ProcessRefusal(TerminationReason.INVALID_REQUEST, message)


_ENDINGS = {
    Ending.EXITED: TerminationReason.EXITED,
    Ending.TIMED_OUT: TerminationReason.TIMED_OUT,
    Ending.CANCELLED: TerminationReason.CANCELLED,
    Ending.LAUNCH_FAILED: TerminationReason.LAUNCH_FAILED,
}

_ERRORS = {
    Ending.TIMED_OUT: "the process ran past its timeout; its process tree was killed",
    Ending.CANCELLED: "the process was cancelled; its process tree was killed",
    Ending.LAUNCH_FAILED: "the executable could not be launched",
}


def _result_of(
    spawned: Spawned,
    caller: dict[str, _MetadataValue],
    runtime_meta: dict[str, _MetadataValue],
    operation: str,
    operation_id: str,
) -> ProcessResult:
    meta: dict[str, _MetadataValue] = {
        **caller,
        **runtime_meta,
        "operation_id": operation_id,
        "operation": operation,
    }
    if spawned.signal is not None:
        meta["signal"] = spawned.signal
    if spawned.launch_errno is not None:
        meta["launch_error"] = spawned.launch_errno
    return ProcessResult(
        _ENDINGS[spawned.ending],
        stdout=spawned.stdout.decode("utf-8", "replace"),
        stderr=spawned.stderr.decode("utf-8", "replace"),
        stdout_truncated=spawned.stdout_truncated,
        stderr_truncated=spawned.stderr_truncated,
        elapsed_ms=spawned.elapsed_ms,
        exit_code=spawned.exit_code,
        process_id=spawned.pid,
        metadata=meta,
        error=_ERRORS.get(spawned.ending),
    )
