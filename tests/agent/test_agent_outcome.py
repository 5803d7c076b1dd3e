"""Outcomes: canonical model JSON, categories for exceptions and HTTP statuses."""

from __future__ import annotations

import errno
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm_wire.agent import ErrorCategory, ErrorCode, ToolFailure, ToolOutcome


class TestCanonical:
    """The model sees sorted compact JSON for failures and structured successes, text otherwise."""

    def test_plain_success_is_verbatim(self) -> None:
        assert ToolOutcome.success("hello").model_text() == "hello"
        assert ToolOutcome.success("txt", {}).model_text() == "txt"

    def test_structured_success(self) -> None:
        outcome = ToolOutcome.success("found", {"answer": 42}, artifacts=("artifact://result",))
        assert outcome.model_text() == (
            '{"artifacts":["artifact://result"],"data":{"answer":42},"message":"found","ok":true}'
        )
        assert ToolOutcome.success("", "").model_text() == '{"artifacts":[],"data":"","message":"","ok":true}'

    def test_failure(self) -> None:
        outcome = ToolOutcome.failed(ErrorCategory.TIMEOUT, ErrorCode.TIMEOUT, "bad thing")
        assert outcome.model_text() == (
            '{"error":{"category":"timeout","code":"timeout","message":"bad thing","retryable":true},'
            '"ok":false}'
        )
        assert not outcome.ok
        assert outcome.failure == ToolFailure(ErrorCategory.TIMEOUT, "timeout", "bad thing", True)

    def test_metadata_never_shown(self) -> None:
        outcome = ToolOutcome.success("x", {"a": 1}).with_metadata(secret="s3cr3t")
        assert "s3cr3t" not in outcome.model_text()

    def test_str_is_describe(self) -> None:
        failure = ToolFailure(ErrorCategory.TIMEOUT, "timeout", "late")
        assert str(failure) == "timeout (timeout): late"

    @given(
        st.text(),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(),
            lambda c: st.lists(c) | st.dictionaries(st.text(), c),
            max_leaves=10,
        ),
    )
    def test_model_text_is_json_with_sorted_keys(self, content: str, data: object) -> None:
        """Any success with JSON data renders as parseable JSON (or its text), keys sorted."""
        outcome = ToolOutcome.success(content, data)  # type: ignore[arg-type]
        if any(0xD800 <= ord(c) <= 0xDFFF for c in repr(data)):
            return  # a lone surrogate is no JSON text; refused with NotJson
        text = outcome.model_text()
        if data is None or data == {} or data == []:
            assert text == content
        else:
            parsed = json.loads(text)
            assert list(parsed) == sorted(parsed)
            assert parsed["ok"] is True


class TestCategories:
    """The complete exception and HTTP status tables (do better 4)."""

    @pytest.mark.parametrize(
        ("exc", "category"),
        [
            (TimeoutError(), ErrorCategory.TIMEOUT),
            (FileNotFoundError(), ErrorCategory.NOT_FOUND),
            (FileExistsError(), ErrorCategory.CONFLICT),
            (PermissionError(), ErrorCategory.PERMISSION_DENIED),
            (BlockingIOError(), ErrorCategory.UNAVAILABLE),
            (ConnectionRefusedError(), ErrorCategory.UNAVAILABLE),
            (OSError(errno.EAGAIN, "again"), ErrorCategory.UNAVAILABLE),
            (OSError(errno.EROFS, "ro"), ErrorCategory.PERMISSION_DENIED),
            (ValueError("x"), ErrorCategory.INTERNAL),
            (KeyError("x"), ErrorCategory.INTERNAL),
        ],
    )
    def test_exceptions(self, exc: BaseException, category: ErrorCategory) -> None:
        assert ErrorCategory.for_exception(exc) is category

    @pytest.mark.parametrize(
        ("status", "category"),
        [
            (400, ErrorCategory.INVALID_INPUT),
            (401, ErrorCategory.PERMISSION_DENIED),
            (404, ErrorCategory.NOT_FOUND),
            (409, ErrorCategory.CONFLICT),
            (429, ErrorCategory.RATE_LIMITED),
            (503, ErrorCategory.UNAVAILABLE),
            (504, ErrorCategory.TIMEOUT),
            (302, ErrorCategory.INTERNAL),
        ],
    )
    def test_statuses(self, status: int, category: ErrorCategory) -> None:
        assert ErrorCategory.for_status(status) is category

    def test_http_error_with_retry_after(self) -> None:
        class Response:
            status_code = 429
            headers = {"retry-after": "3"}  # noqa: RUF012

        class HTTPStatusError(Exception):
            response = Response()

        outcome = ToolOutcome.from_exception(HTTPStatusError("token=abc"), "fetch")
        assert outcome.failure is not None
        assert outcome.failure.category is ErrorCategory.RATE_LIMITED
        assert outcome.failure.retryable
        assert outcome.failure.retry_after == 3.0
        assert "token=abc" not in outcome.model_text()

    def test_status_type(self) -> None:
        with pytest.raises(TypeError, match="status"):
            ErrorCategory.for_status("500")  # type: ignore[arg-type]


class TestTypes:
    """A wrong Python type is a ``TypeError`` naming the field, never a value."""

    def test_outcome_fields(self) -> None:
        with pytest.raises(TypeError, match=r"ToolOutcome\.content"):
            ToolOutcome(5)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"ToolOutcome\.artifacts"):
            ToolOutcome("x", None, None, ("a", 1))  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"ToolFailure\.category"):
            ToolFailure("timeout", "c", "m")  # type: ignore[arg-type]
