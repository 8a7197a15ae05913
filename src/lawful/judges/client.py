"""One client for any OpenAI-compatible chat-completions endpoint that accepts images.

Standard library only (``urllib``). Frames go as base64 data URLs in
``image_url`` parts; temperature 0; a bounded thread pool for concurrency;
retries with exponential backoff on HTTP 429/5xx, timeouts and dropped
connections, all inside a per-call deadline; replies cached on disk.

The API key is read from the environment variable *named* by
``JudgeConfig.api_key_env`` at request time. It is never stored on the config,
never logged, never written to the cache or the results store, and scrubbed
from any error text. Credentials written into the URL (``http://user:pass@host/v1``)
are taken out of it: they travel only as an ``Authorization: Basic`` header, and
the URL is used, shown and recorded without them.

Every logical call ends as exactly one of ``ok`` (a usable answer), ``unusable``
(the endpoint answered, the answer cannot be used: garbage, missing key, out of
range; never cached) or ``failed`` (no answer: HTTP errors, resets, timeouts);
``retried`` counts the calls that needed more than one HTTP attempt.
"""

from __future__ import annotations

import base64
import http.client
import json
import logging
import os
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit, urlunsplit

from lawful.http_retry import RETRY_STATUS, backoff, retry_after as parse_retry_after
from lawful.judges.cache import JudgeCache, cache_key
from lawful.judges.frames import EncodedImage

log = logging.getLogger("lawful.judges")

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True, repr=False)
class JudgeConfig:
    """Where and how to ask. ``url``: the endpoint base (``http://host:8000/v1``) or the full
    ``…/chat/completions`` URL. ``api_key_env``: the NAME of the environment variable holding the
    key (None: send no key). Times in seconds: ``timeout_s`` per attempt, ``deadline_s`` per call
    across all attempts and waits. ``backoff_s`` doubles per retry up to ``backoff_max_s``."""

    url: str
    model: str
    api_key_env: str | None = None
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 60.0
    deadline_s: float = 300.0
    max_retries: int = 5
    backoff_s: float = 1.0
    backoff_max_s: float = 30.0
    concurrency: int = 4
    image_format: str = "jpeg"
    jpeg_quality: int = 90

    @property
    def endpoint(self) -> str:
        """The chat-completions URL to POST to, without any credentials."""
        u = strip_userinfo(self.url).rstrip("/")
        return u if u.endswith("/chat/completions") else u + "/chat/completions"

    @property
    def identity(self) -> str:
        """Which judge this is, as recorded in the store: ``model@endpoint`` (no credentials, no query)."""
        return f"{self.model}@{redact_url(self.endpoint)}"

    def url_auth(self) -> str | None:
        """``Basic …`` from credentials in the URL, or None."""
        p = urlsplit(self.url)
        if p.username is None and p.password is None:
            return None
        pair = f"{unquote(p.username or '')}:{unquote(p.password or '')}"
        return "Basic " + base64.b64encode(pair.encode()).decode()

    def __repr__(self) -> str:
        return f"JudgeConfig(url={redact_url(self.url)!r}, model={self.model!r})"

    def public(self) -> dict[str, Any]:
        """What may be recorded: the config without credentials in the URL, plus the variable's name."""
        d = asdict(self)
        d["url"] = redact_url(self.url)
        return d


def strip_userinfo(url: str) -> str:
    """The URL without ``user:pass@`` (query kept: some endpoints need it)."""
    p = urlsplit(url)
    if "@" not in p.netloc:
        return url
    return urlunsplit((p.scheme, p.netloc.rpartition("@")[2], p.path, p.query, p.fragment))


def redact_url(url: str) -> str:
    """Drop user-info and query string (where keys sometimes hide) from a URL."""
    p = urlsplit(url)
    host = p.hostname or ""
    if p.port:
        host += f":{p.port}"
    return urlunsplit((p.scheme, host, p.path, "", ""))


@dataclass
class Completion:
    """One logical call's outcome. ``status``: ``ok``, ``unusable`` (answered, not usable) or ``error``
    (no answer; ``error`` says why)."""

    text: str = ""
    status: str = "ok"
    error: str = ""
    usage: dict[str, int] = field(default_factory=dict)
    cached: bool = False
    attempts: int = 0
    seconds: float = 0.0


class Usage:
    """Thread-safe counters of what was sent and received."""

    FIELDS = ("calls", "ok", "retried", "failed", "unusable", "requests", "cache_hits", "retries", "errors", "images",
              "prompt_tokens", "completion_tokens")

    def __init__(self):
        self._lock = threading.Lock()
        self.counts = {k: 0 for k in self.FIELDS}

    def add(self, **kw: int) -> None:
        with self._lock:
            for k, v in kw.items():
                self.counts[k] += int(v or 0)

    def __getitem__(self, k: str) -> int:
        return self.counts[k]

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self.counts)

    def summary(self) -> str:
        c = self.counts
        return (f"judge: {c['calls']} calls: {c['ok']} ok, {c['unusable']} unusable, {c['failed']} failed, "
                f"{c['retried']} retried; {c['cache_hits']} from cache, {c['requests']} HTTP requests "
                f"({c['retries']} retries, {c['errors']} gave no answer), {c['images']} images sent, "
                f"tokens {c['prompt_tokens']} in / {c['completion_tokens']} out")


class JudgeError(RuntimeError):
    pass


_CLIENTS: list[tuple[float, Usage]] = []  # (julian day created, usage) of every client in this process
_CLIENTS_LOCK = threading.Lock()


def usage_since(julian_day: float) -> dict[str, int]:
    """Summed counts of every client created at or after ``julian_day`` in this process: what one
    command asked, whichever suite flow made the client."""
    with _CLIENTS_LOCK:
        picked = [u for t, u in _CLIENTS if t >= julian_day]
    total = {k: 0 for k in Usage.FIELDS}
    for u in picked:
        for k, v in u.snapshot().items():
            total[k] += v
    return total


class JudgeClient:
    """Send chat-completions requests with images; see the module docstring for the guarantees."""

    def __init__(self, config: JudgeConfig, cache: JudgeCache | None = None,
                 sleep: Callable[[float], None] = time.sleep):
        self.config = config
        self.cache = cache
        self.usage = Usage()
        self._sleep = sleep
        with _CLIENTS_LOCK:
            _CLIENTS.append((time.time() / 86400.0 + 2440587.5, self.usage))
            del _CLIENTS[:-256]
        if config.api_key_env and not os.environ.get(config.api_key_env):
            log.warning("judge: environment variable %s is not set; sending no API key", config.api_key_env)

    # --- the key never leaves these two methods except as a header --------------------------------
    def _key(self) -> str | None:
        return os.environ.get(self.config.api_key_env) if self.config.api_key_env else None

    def _scrub(self, text: str) -> str:
        secrets = [self._key()]
        p = urlsplit(self.config.url)
        secrets += [unquote(p.password) if p.password else None, p.password,
                    p.netloc.rpartition("@")[0] if "@" in p.netloc else None]
        for k in secrets:
            if k:
                text = text.replace(k, "***")
        return text

    # --- requests ------------------------------------------------------------------------------
    def messages(self, system: str, parts: list[str | EncodedImage]) -> list[dict]:
        """System message plus one user message of text and image parts, in order."""
        content = []
        for p in parts:
            if isinstance(p, EncodedImage):
                content.append({"type": "image_url", "image_url": {"url": p.data_url}})
            else:
                content.append({"type": "text", "text": p})
        return [{"role": "system", "content": system}, {"role": "user", "content": content}]

    def complete(self, system: str, parts: list[str | EncodedImage], rubric_id: str,
                 usable: Callable[[str], bool] | None = None) -> Completion:
        """One judge call (cached). Never raises for transport problems: they come back as ``error``.

        ``usable(text)`` says whether a reply can be used; an unusable one is counted, returned with
        status ``unusable`` and never cached (a cached one is ignored and asked again)."""
        cfg = self.config
        text = system + "\n\n" + "\n".join(p for p in parts if isinstance(p, str))
        images = [p for p in parts if isinstance(p, EncodedImage)]
        key = cache_key(redact_url(cfg.endpoint), cfg.model, rubric_id, text, [im.sha256 for im in images])
        self.usage.add(calls=1)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None and (usable is None or usable(hit.get("text", ""))):
                self.usage.add(cache_hits=1, ok=1)
                return Completion(hit["text"], usage=hit.get("usage", {}), cached=True)
        body = json.dumps({
            "model": cfg.model,
            "messages": self.messages(system, parts),
            "temperature": cfg.temperature,
            "max_tokens": cfg.max_tokens,
        }).encode()
        out = self._post_with_retries(body)
        self.usage.add(retried=int(out.attempts > 1))
        if out.status != "ok":
            self.usage.add(errors=1, failed=1)
            return out
        self.usage.add(images=len(images), prompt_tokens=out.usage.get("prompt_tokens", 0),
                       completion_tokens=out.usage.get("completion_tokens", 0))
        if usable is not None and not usable(out.text):
            self.usage.add(unusable=1)
            out.status, out.error = "unusable", "the reply could not be used"
            return out
        self.usage.add(ok=1)
        if self.cache is not None:
            self.cache.put(key, {"text": out.text, "usage": out.usage, "model": cfg.model,
                                 "endpoint": redact_url(cfg.endpoint), "rubric": rubric_id,
                                 "created": time.time()})
        return out

    def _post_with_retries(self, body: bytes) -> Completion:
        cfg = self.config
        t0 = time.monotonic()
        deadline = t0 + cfg.deadline_s
        attempt, last = 0, "no attempt"
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return Completion(status="error", error=f"deadline of {cfg.deadline_s:g} s passed ({last})",
                                  attempts=attempt, seconds=time.monotonic() - t0)
            attempt += 1
            self.usage.add(requests=1)
            retry_after = None
            try:
                text, usage = self._post(body, min(cfg.timeout_s, remaining))
                return Completion(text, usage=usage, attempts=attempt, seconds=time.monotonic() - t0)
            except urllib.error.HTTPError as e:
                detail = self._scrub(_read_body(e))
                last = f"HTTP {e.code}" + (f": {detail}" if detail else "")
                if e.code not in RETRY_STATUS:
                    return Completion(status="error", error=last, attempts=attempt, seconds=time.monotonic() - t0)
                retry_after = parse_retry_after(e.headers.get("Retry-After") if e.headers else None)
            except (TimeoutError, socket.timeout):
                last = "timed out"
            except urllib.error.URLError as e:
                last = f"connection failed: {self._scrub(str(e.reason))}"
                if isinstance(e.reason, (TimeoutError, socket.timeout)):
                    last = "timed out"
            except (ConnectionError, http.client.HTTPException) as e:
                last = f"connection dropped ({type(e).__name__})"
            except JudgeError as e:
                return Completion(status="error", error=self._scrub(str(e)), attempts=attempt,
                                  seconds=time.monotonic() - t0)
            if attempt > cfg.max_retries:
                return Completion(status="error", error=f"gave up after {attempt} attempts ({last})",
                                  attempts=attempt, seconds=time.monotonic() - t0)
            wait = retry_after if retry_after is not None else backoff(attempt, cfg.backoff_s, cfg.backoff_max_s)
            wait = min(wait, max(0.0, deadline - time.monotonic()))
            log.info("judge: retry %d/%d in %.2f s after %s", attempt, cfg.max_retries, wait, last)
            self.usage.add(retries=1)
            self._sleep(wait)

    def _post(self, body: bytes, timeout: float) -> tuple[str, dict[str, int]]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = self._key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        elif self.config.url_auth():
            headers["Authorization"] = self.config.url_auth()
        req = urllib.request.Request(self.config.endpoint, data=body, headers=headers, method="POST")
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            raw = resp.read()
        try:
            data = json.loads(raw)
            msg = data["choices"][0]["message"]
        except (json.JSONDecodeError, KeyError, IndexError, TypeError):
            raise JudgeError(f"malformed chat-completions response: {raw[:200]!r}") from None
        content = msg.get("content")
        if isinstance(content, list):  # some servers return content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        usage = data.get("usage") or {}
        return content or "", {k: int(usage[k]) for k in ("prompt_tokens", "completion_tokens") if k in usage}

    # --- concurrency ---------------------------------------------------------------------------
    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """``[fn(x) for x in items]`` on at most ``config.concurrency`` threads, order kept."""
        items = list(items)
        if self.config.concurrency <= 1 or len(items) <= 1:
            return [fn(x) for x in items]
        with ThreadPoolExecutor(max_workers=self.config.concurrency, thread_name_prefix="judge") as ex:
            return list(ex.map(fn, items))


def _read_body(e: urllib.error.HTTPError) -> str:
    try:
        return e.read(300).decode("utf-8", "replace").strip()
    except Exception:  # noqa: BLE001 - a body we cannot read is just not shown
        return ""

