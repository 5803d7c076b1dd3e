"""
What both clients share before any I/O: their settings, checked once, and the ``HttpCall`` of a request.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from llm_wire._request import Prepared
from llm_wire.transport._core import HttpCall, check_prepared, endpoint_headers
from llm_wire.transport._settings import RetryPolicy, Timeouts

__all__ = ["BaseClient"]


class BaseClient:
    """The settings of a client and the request they make; the drivers do the I/O."""

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str | None,
        headers: Mapping[str, str] | None,
        timeouts: Timeouts,
        retry: RetryPolicy | None,
        environ: Mapping[str, str] | None,
    ) -> None:
        for name, value in (("api_key", api_key), ("base_url", base_url)):
            if value is not None and not isinstance(value, str):
                msg = f"{name} must be a str or None, not {type(value).__name__}"
                raise TypeError(msg)
        if not isinstance(timeouts, Timeouts):
            msg = f"timeouts must be a Timeouts, not {type(timeouts).__name__}"
            raise TypeError(msg)
        if retry is not None and not isinstance(retry, RetryPolicy):
            msg = f"retry must be a RetryPolicy or None, not {type(retry).__name__}"
            raise TypeError(msg)
        if headers is not None and not (
            isinstance(headers, Mapping)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items())
        ):
            msg = "headers must be a mapping of str to str"
            raise TypeError(msg)
        self._key = api_key
        self._base_url = base_url.rstrip("/") if base_url is not None else None
        self._headers = dict(headers or {})
        self._timeouts = timeouts
        self._retry = retry
        self._environ = os.environ if environ is None else environ

    @property
    def timeouts(self) -> Timeouts:
        """The bounds of every call."""
        return self._timeouts

    def policy(self, retry: RetryPolicy | None) -> RetryPolicy | None:
        if retry is not None and not isinstance(retry, RetryPolicy):
            msg = f"retry must be a RetryPolicy or None, not {type(retry).__name__}"
            raise TypeError(msg)
        return retry if retry is not None else self._retry

    def call(self, prepared: Prepared, now: float, deadline: float | None) -> tuple[HttpCall, bool]:
        """The call for ``prepared``, and whether it lacks the key its endpoint needs."""
        check_prepared(prepared)
        http = prepared.wire.http
        key = self._key
        if key is None:
            key = next((self._environ[name] for name in http.key_env if self._environ.get(name)), None)
        base = self._base_url if self._base_url is not None else http.base_url
        missing = key is None and self._base_url is None
        headers = endpoint_headers(prepared, key, self._headers)
        call = HttpCall(
            prepared,
            url=base + prepared.path,
            headers=headers,
            timeouts=self._timeouts,
            now=now,
            deadline=deadline,
        )
        return call, missing
