"""An async HTTP session for hosted APIs: httpx with lawful's retry policy (:mod:`lawful.http_retry`).

The key goes only into request headers; every error message is scrubbed of it and of URL queries.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

from lawful.generators.base import GenerationError
from lawful.generators.hosted.base import HTTPStatusError
from lawful.http_retry import RetryPolicy, retry_after
from lawful.judges.client import redact_url


class HostedHTTP:
    """``request`` / ``json`` / ``download`` with retries on 429/5xx, timeouts and dropped connections."""

    def __init__(self, key: str, auth: dict[str, str], timeout_s: float, policy: RetryPolicy,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep):
        self._key, self._auth = key, auth
        self.policy, self._sleep = policy, sleep
        self.client = httpx.AsyncClient(timeout=timeout_s, follow_redirects=True)
        self.counts = {"requests": 0, "retries": 0}

    async def aclose(self) -> None:
        await self.client.aclose()

    def scrub(self, text: str) -> str:
        return text.replace(self._key, "***") if self._key else text

    async def request(self, method: str, url: str, *, auth: bool = True, stream_to: Path | None = None,
                      **kw: Any) -> httpx.Response:
        """The response of the first attempt that is not retryable; GenerationError after the last retry
        or on a non-retryable HTTP error (4xx). With ``stream_to`` the body is written to that file."""
        headers = {**(self._auth if auth else {}), **kw.pop("headers", {})}
        attempt, last = 0, ""
        while True:
            attempt += 1
            self.counts["requests"] += 1
            wait_hint = None
            try:
                if stream_to is None:
                    r = await self.client.request(method, url, headers=headers, **kw)
                else:
                    async with self.client.stream(method, url, headers=headers, **kw) as r:
                        if r.status_code < 400:
                            with open(stream_to, "wb") as f:
                                async for chunk in r.aiter_bytes(1 << 20):
                                    f.write(chunk)
                        else:
                            await r.aread()
                if r.status_code < 400:
                    return r
                detail = self._detail(r)
                last = f"HTTP {r.status_code}" + (f": {detail}" if detail else "")
                if not self.policy.retryable(r.status_code):
                    raise HTTPStatusError(f"{method} {redact_url(url)} failed: {last}", r.status_code)
                wait_hint = retry_after(r.headers.get("retry-after"))
            except httpx.TimeoutException:
                last = "timed out"
            except httpx.TransportError as e:
                last = f"connection failed ({type(e).__name__})"
            if attempt > self.policy.max_retries:
                raise GenerationError(f"{method} {redact_url(url)}: gave up after {attempt} attempts ({last})")
            self.counts["retries"] += 1
            await self._sleep(self.policy.wait(attempt, wait_hint))

    def _detail(self, r: httpx.Response) -> str:
        return self.scrub(" ".join(r.text.split()))[:200]  # scrub before cutting: no piece of a key survives

    async def json(self, method: str, url: str, **kw: Any) -> Any:
        r = await self.request(method, url, **kw)
        try:
            return r.json()
        except (json.JSONDecodeError, ValueError):
            raise GenerationError(f"{method} {redact_url(url)}: the answer is not JSON: "
                                  f"{self.scrub(r.text)[:120]!r}") from None
