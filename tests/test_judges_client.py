"""The chat-completions client against a real local HTTP server: answers, retries, deadlines, key hygiene."""

from __future__ import annotations

import logging
import time

import numpy as np
import pytest

from lawful.judges.cache import JudgeCache
from lawful.judges.client import JudgeClient, JudgeConfig, redact_url
from lawful.judges.frames import encode, sample_indices
from test_judges_fakeserver import ChatServer, Reply, n_images

KEY = "sk-test-0123456789-do-not-leak"


def cfg(url, **kw):
    base = dict(url=url, model="judge-vl", timeout_s=2.0, deadline_s=5.0, max_retries=3, backoff_s=0.01,
                backoff_max_s=0.05, concurrency=2)
    base.update(kw)
    return JudgeConfig(**base)


def img(v=0):
    return encode(np.full((8, 8, 3), v, np.uint8))


def test_answer_usage_and_request_shape():
    with ChatServer(lambda req, i: Reply('{"gravity": 4}')) as srv:
        c = JudgeClient(cfg(srv.url))
        out = c.complete("sys", ["look", img(1), img(2), "question"], "r@1")
    assert out.status == "ok" and out.text == '{"gravity": 4}' and out.attempts == 1
    req = srv.requests[0]
    assert req["temperature"] == 0 and req["model"] == "judge-vl"
    assert n_images(req) == 2
    url = req["messages"][1]["content"][1]["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    assert out.usage == {"prompt_tokens": 120, "completion_tokens": 7}
    assert c.usage["images"] == 2 and c.usage["prompt_tokens"] == 120 and c.usage["requests"] == 1


def test_429_then_success_retries_once():
    script = lambda req, i: Reply("slow down", status=429, headers={"Retry-After": "0"}) if i == 0 else Reply('{"a": 1}')
    with ChatServer(script) as srv:
        c = JudgeClient(cfg(srv.url))
        out = c.complete("s", ["q"], "r@1")
    assert out.status == "ok" and out.attempts == 2
    assert len(srv.requests) == 2 and c.usage["retries"] == 1 and c.usage["errors"] == 0


def test_persistent_500_gives_up_after_max_retries():
    with ChatServer(lambda req, i: Reply("boom", status=500)) as srv:
        c = JudgeClient(cfg(srv.url, max_retries=2))
        out = c.complete("s", ["q"], "r@1")
    assert out.status == "error" and "HTTP 500" in out.error
    assert len(srv.requests) == 3 and c.usage["errors"] == 1


def test_400_is_not_retried():
    with ChatServer(lambda req, i: Reply("bad request", status=400)) as srv:
        out = JudgeClient(cfg(srv.url)).complete("s", ["q"], "r@1")
    assert out.status == "error" and "HTTP 400" in out.error and len(srv.requests) == 1


def test_hang_past_deadline_returns_error_in_time():
    with ChatServer(lambda req, i: Reply('{"a": 1}', delay=3.0)) as srv:
        c = JudgeClient(cfg(srv.url, timeout_s=0.3, deadline_s=0.7, max_retries=10))
        t0 = time.monotonic()
        out = c.complete("s", ["q"], "r@1")
        took = time.monotonic() - t0
    assert out.status == "error" and ("deadline" in out.error or "timed out" in out.error)
    assert took < 1.5
    assert 1 <= len(srv.requests) <= 3


def test_cache_second_call_sends_nothing(tmp_path):
    with ChatServer(lambda req, i: Reply('{"a": 2}')) as srv:
        cache = JudgeCache(tmp_path / "c")
        a = JudgeClient(cfg(srv.url), cache).complete("s", ["q", img(3)], "r@1")
        b = JudgeClient(cfg(srv.url), cache).complete("s", ["q", img(3)], "r@1")
        c = JudgeClient(cfg(srv.url), cache).complete("s", ["q", img(4)], "r@1")  # other frame → new key
        d = JudgeClient(cfg(srv.url), cache).complete("s", ["q", img(3)], "r@2")  # other rubric version
    assert a.text == b.text and b.cached and not a.cached
    assert not c.cached and not d.cached
    assert len(srv.requests) == 3


def test_errors_are_not_cached(tmp_path):
    replies = iter([Reply("x", status=503)] * 2 + [Reply('{"a": 3}')])
    with ChatServer(lambda req, i: next(replies)) as srv:
        cache = JudgeCache(tmp_path / "c")
        bad = JudgeClient(cfg(srv.url, max_retries=1), cache).complete("s", ["q"], "r@1")
        good = JudgeClient(cfg(srv.url), cache).complete("s", ["q"], "r@1")
    assert bad.status == "error" and good.status == "ok" and not good.cached


def test_api_key_sent_as_header_but_never_logged(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("LAWFUL_TEST_JUDGE_KEY", KEY)
    caplog.set_level(logging.DEBUG)
    replies = iter([Reply(f"invalid key {KEY}", status=503), Reply(f"invalid key {KEY}", status=401)])
    with ChatServer(lambda req, i: next(replies)) as srv:
        c = JudgeClient(cfg(srv.url, api_key_env="LAWFUL_TEST_JUDGE_KEY"), JudgeCache(tmp_path / "c"))
        out = c.complete("s", ["q"], "r@1")
    assert srv.headers[0]["Authorization"] == f"Bearer {KEY}"
    assert out.status == "error" and KEY not in out.error and "***" in out.error
    assert "retry" in caplog.text  # the retry was logged …
    assert KEY not in caplog.text  # … without the key
    assert KEY not in repr(c.config) and KEY not in str(c.config.public())
    assert not list((tmp_path / "c").rglob("*.json"))  # failed calls leave nothing on disk


def test_redact_url_drops_userinfo_and_query():
    assert redact_url("https://user:pw@api.example.com:8443/v1?key=abc") == "https://api.example.com:8443/v1"


def test_map_keeps_order_with_bounded_threads():
    with ChatServer(lambda req, i: Reply('{"a": 1}', delay=0.05)) as srv:
        c = JudgeClient(cfg(srv.url, concurrency=3))
        outs = c.map(lambda k: (k, c.complete("s", [f"q{k}"], "r@1").status), range(6))
    assert outs == [(k, "ok") for k in range(6)]


@pytest.mark.parametrize("n,dur,fps,cap,expected", [
    (96, 4.0, 4.0, 24, [0, 6, 12, 18, 24, 30, 36, 42, 48, 54, 60, 66, 72, 78, 84, 90]),
    (96, 4.0, 4.0, 4, [0, 32, 63, 95]),      # over the cap: evenly over the clip, ends included
    (10, 4.0, 4.0, 24, list(range(10))),  # short clip: 16 times land on 10 frames, duplicates merged
    (50, 2.0, None, 5, [0, 12, 24, 37, 49]),
])
def test_sample_indices_time_rule(n, dur, fps, cap, expected):
    assert sample_indices(n, dur, fps, cap) == expected
