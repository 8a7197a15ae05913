"""When to retry an HTTP request and how long to wait: one policy for every client in lawful.

Standard library only. Retried: HTTP 408/409/425/429/5xx gateway errors, timeouts and dropped
connections. The wait is the server's ``Retry-After`` when it sends one (seconds or an HTTP date),
else exponential backoff with jitter, ``backoff_s * 2**(attempt-1)`` capped at ``backoff_max_s``.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: a number of seconds or an HTTP date; None if absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, when - (time.time() if now is None else now))


def backoff(attempt: int, base_s: float, max_s: float, rng: random.Random | None = None) -> float:
    """Exponential backoff with jitter for retry ``attempt`` (1, 2, ...): in [0.75, 1] x min(max, base * 2**(attempt-1))."""
    jitter = (rng or random).uniform(0.75, 1.0)
    return min(max_s, base_s * 2 ** max(0, attempt - 1)) * jitter


@dataclass(frozen=True)
class RetryPolicy:
    """``max_retries`` retries after the first attempt; a server's Retry-After is honoured up to ``max_wait_s``."""

    max_retries: int = 5
    backoff_s: float = 1.0
    backoff_max_s: float = 30.0
    max_wait_s: float = 300.0

    def wait(self, attempt: int, retry_after_s: float | None = None) -> float:
        """Seconds to sleep before the next attempt, after ``attempt`` failed ones."""
        if retry_after_s is not None:
            return min(retry_after_s, self.max_wait_s)
        return backoff(attempt, self.backoff_s, self.backoff_max_s)

    def retryable(self, status: int) -> bool:
        return status in RETRY_STATUS
