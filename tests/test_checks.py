"""One check of a positive count, shared by every record with limits: its owner's error, naming the field."""

from __future__ import annotations

import pytest

from llm_wire.providers.response import ResponseLimits
from llm_wire.toolkits.filesystem import FilesystemLimits
from llm_wire.toolkits.governance import ConfigurationError
from llm_wire.toolkits.process import ProcessLimits
from llm_wire.transport import RetryPolicy
from llm_wire.value import DEFAULT

BAD = [0, -1, True, 2.0, "5", None]


class TestPositiveCounts:
    """A count setting is an int >= 1 (a bool is not), or the record refuses it by name."""

    @pytest.mark.parametrize("bad", BAD)
    def test_response_limits(self, bad: object) -> None:
        with pytest.raises(ValueError, match=r"^ResponseLimits\.active_blocks must be a positive integer$"):
            ResponseLimits(active_blocks=bad)  # type: ignore[arg-type]

    @pytest.mark.parametrize("bad", BAD)
    def test_toolkit_limits_raise_configuration_errors(self, bad: object) -> None:
        with pytest.raises(ConfigurationError, match=r"^FilesystemLimits\.max_depth must be a positive"):
            FilesystemLimits(max_depth=bad)  # type: ignore[arg-type]
        with pytest.raises(ConfigurationError, match=r"^ProcessLimits\.timeout_ms must be a positive"):
            ProcessLimits(timeout_ms=bad)  # type: ignore[arg-type]

    @pytest.mark.parametrize("bad", [True, 2.0, "5", None])
    def test_retry_attempts_of_a_wrong_type_are_a_type_error(self, bad: object) -> None:
        with pytest.raises(TypeError, match=r"^RetryPolicy\.attempts must be an int, not "):
            RetryPolicy(attempts=bad)  # type: ignore[arg-type]

    @pytest.mark.parametrize("bad", [0, -1])
    def test_retry_attempts_below_one(self, bad: int) -> None:
        with pytest.raises(ValueError, match=r"^RetryPolicy\.attempts must be a positive integer$"):
            RetryPolicy(attempts=bad)

    @pytest.mark.parametrize("bad", BAD)
    def test_parser_limits(self, bad: object) -> None:
        with pytest.raises(ValueError, match=r"^a limit must be a positive integer$"):
            DEFAULT.with_max_depth(bad)  # type: ignore[arg-type]

    def test_good_counts_pass(self) -> None:
        assert ResponseLimits(active_blocks=1).active_blocks == 1
        assert FilesystemLimits(max_depth=3).max_depth == 3
        assert RetryPolicy(attempts=1).attempts == 1
        assert DEFAULT.with_max_depth(9).max_depth == 9
