"""Hosted APIs, piece by piece: keys, API-reported failures, job timeouts with cancel, the retry policy,
templates and JSON paths, and the generic adapter's config checks."""

import email.utils
import time

import pytest

from hosted_fakes import ENV, GENERIC_YAML, FakeAPIs, build_principia, specs
from lawful.case import load_case
from lawful.generators.base import GenerationError, get_generator
from lawful.generators.hosted.base import json_path, render
from lawful.generators.hosted.jobs import JobDB, pregenerate
from lawful.http_retry import RetryPolicy, backoff, retry_after
from lawful.runner.jobs import Job
from lawful.store import VideoKey


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """One Principia case, its law-correct video, and a fake server for every API."""
    root = tmp_path_factory.mktemp("hosted")
    paths, videos = build_principia(root / "run", 2)
    fake = FakeAPIs(videos)
    yaml_path = root / "genvideo.yaml"
    yaml_path.write_text(GENERIC_YAML.format(base=fake.base))
    yield root, paths[0], fake, specs(fake.base, yaml_path)
    fake.close()


@pytest.fixture()
def env(monkeypatch):
    for k, v in ENV.items():
        monkeypatch.setenv(k, v)
    for k in ("LAWFUL_HOSTED_BUDGET_USD", "LAWFUL_HOSTED_BUDGET_JOBS", "LAWFUL_HOSTED_BUDGET_S"):
        monkeypatch.delenv(k, raising=False)


def _gen(spec):
    return get_generator(spec)


def test_missing_key_is_a_clear_error_before_anything_is_sent(world, env, monkeypatch, tmp_path):
    root, cp, fake, sp = world
    before = len(fake.log)
    for api, var in (("veo", "GEMINI_API_KEY"), ("replicate", "REPLICATE_API_TOKEN"), ("fal", "FAL_KEY"),
                     ("gen", "GEN_VIDEO_KEY")):
        monkeypatch.delenv(var)
        with pytest.raises(KeyError, match=f"needs an API key in the environment variable {var}, which is not set"):
            get_generator(sp[api])
        monkeypatch.setenv(var, ENV[var])
    # the key vanishes between planning and the pre-pass: the pre-pass sends nothing
    gen = get_generator(sp["fal"])
    monkeypatch.delenv("FAL_KEY")
    video = tmp_path / "videos" / "m" / "drop-000__0.mp4"
    out = pregenerate([Job(VideoKey("principia", "drop-000", gen.name, 0), str(cp), sp["fal"], str(video))],
                      tmp_path, progress=False)
    assert out == {"videos": 0, "downloaded": 0, "failed": 0}
    with pytest.raises(GenerationError, match=f"{gen.name}: environment variable FAL_KEY is not set"):
        gen.generate(load_case(cp), None, video, 0)  # a generator built before the key went: one-line reason
    assert len(fake.log) == before


def test_standalone_generate_and_reported_failures(world, env, tmp_path):
    root, cp, fake, sp = world
    case = load_case(cp)
    first = case.first_frame_path(cp)
    # the path a worker (or PhyGround) takes without the pre-pass: one call makes the video
    n0 = fake.count("replicate")
    out = _gen(sp["replicate"]).generate(case, first, tmp_path / "a" / "v.mp4", 0)
    assert out.stat().st_size > 1000 and fake.count("replicate") == n0 + 1
    fake.fail_all = True
    try:
        with pytest.raises(GenerationError, match=r"veo: the prompt was blocked \(code 3\)"):
            _gen(sp["veo"]).generate(case, first, tmp_path / "b" / "v.mp4", 0)
        with pytest.raises(GenerationError, match="fal: runner crashed"):
            _gen(sp["fal"]).generate(case, first, tmp_path / "c" / "v.mp4", 0)
        with pytest.raises(GenerationError, match="genvideo: job error: no capacity"):
            _gen(sp["gen"]).generate(case, first, tmp_path / "d" / "v.mp4", 0)
        fake.fail_all, fake.fal_result_error = False, True
        with pytest.raises(GenerationError, match=r"fal: GET .*/requests/fal\d+ failed: HTTP 422: .*image too small"):
            _gen(sp["fal"]).generate(case, first, tmp_path / "e" / "v.mp4", 0)
        assert JobDB(tmp_path / "e").get("v.mp4").job_id == ""  # over: the next run submits again
    finally:
        fake.fail_all = fake.fal_result_error = False
    row = JobDB(tmp_path / "b").get("v.mp4")
    assert row.state == "failed" and row.job_id == "" and row.submissions == 1  # the next run submits anew


def test_job_timeout_cancels_the_job(world, env, tmp_path):
    root, cp, fake, sp = world
    case = load_case(cp)
    fake.hold.clear()
    try:
        for api in ("replicate", "fal", "gen"):
            gen = _gen(sp[api] + ("&" if "?" in sp[api] else "?") + "timeout_s=0.3")
            with pytest.raises(GenerationError, match=r"not finished after 0.3 s \(cancelled\)"):
                gen.generate(case, case.first_frame_path(cp), tmp_path / api / "v.mp4", 0)
            jid = max((j for j, v in fake.jobs.items() if v["api"] == api), key=lambda j: int(j[len(api):]))
            assert fake.cancels[-1] == jid
    finally:
        fake.hold.set()


def test_rejected_key_is_scrubbed_from_the_reason(world, env, monkeypatch, tmp_path):
    root, cp, fake, sp = world
    monkeypatch.setenv("REPLICATE_API_TOKEN", "wrong-key-123")
    case = load_case(cp)
    with pytest.raises(GenerationError) as e:
        _gen(sp["replicate"]).generate(case, case.first_frame_path(cp), tmp_path / "v.mp4", 0)
    msg = str(e.value)
    assert "HTTP 401" in msg and "wrong-key-123" not in msg and "***" in msg
    assert "wrong-key-123" not in (tmp_path / "hosted_jobs.sqlite").read_bytes().decode("latin-1")


def test_budget_in_jobs_stops_submitting(world, env, monkeypatch, tmp_path):
    root, cp, fake, sp = world
    monkeypatch.setenv("LAWFUL_HOSTED_BUDGET_JOBS", "0")
    n0 = fake.count("veo")
    with pytest.raises(GenerationError, match=r"budget exhausted: 0 of 0 jobs submitted \(LAWFUL_HOSTED_BUDGET_JOBS\)"):
        case = load_case(cp)
        _gen(sp["veo"]).generate(case, case.first_frame_path(cp), tmp_path / "v.mp4", 0)
    assert fake.count("veo") == n0


def test_retry_policy():
    assert retry_after("3") == 3.0 and retry_after("junk") is None and retry_after(None) is None
    now = time.time()
    assert retry_after(email.utils.formatdate(now + 30, usegmt=True), now=now) == pytest.approx(30, abs=1)
    assert retry_after(email.utils.formatdate(now - 30, usegmt=True), now=now) == 0.0
    for attempt, cap in ((1, 1.0), (2, 2.0), (3, 4.0), (9, 10.0)):
        assert 0.75 * cap <= backoff(attempt, 1.0, 10.0) <= cap
    p = RetryPolicy(max_wait_s=60)
    assert p.wait(4, retry_after_s=7.0) == 7.0 and p.wait(1, retry_after_s=900) == 60
    assert p.retryable(429) and p.retryable(503) and not p.retryable(400) and not p.retryable(401)


def test_templates_and_json_paths():
    vals = {"frames": 97, "fps": 24.0, "prompt": "a ball falls"}
    assert render({"n": "{frames}", "s": "n={frames}", "l": ["{fps}", 3]}, vals) == {"n": 97, "s": "n=97", "l": [24.0, 3]}
    data = {"result": {"files": [{"url": "u0"}, {"url": "u1"}]}}
    assert json_path(data, "result.files[1].url") == "u1" and json_path(data, "result.files.0.url") == "u0"
    assert json_path(data, "result.files[5].url") is None and json_path(data, "nope") is None


def test_generic_config_errors(tmp_path, env):
    bad = tmp_path / "bad.yaml"
    bad.write_text(GENERIC_YAML.format(base="http://x").replace("  video_url: result.files[0].url\n", ""))
    with pytest.raises(KeyError, match=r"missing 'poll.video_url'"):
        get_generator(f"api:{bad}")
    bad.write_text(GENERIC_YAML.format(base="http://x").replace("{prompt}", "{promt}"))
    with pytest.raises(KeyError, match=r"unknown placeholder \{promt\}"):
        get_generator(f"api:{bad}")
    with pytest.raises(KeyError, match="no such config file"):
        get_generator(f"api:{tmp_path / 'none.yaml'}")


def test_concurrency_cap(world, env, tmp_path):
    """Jobs in flight at the provider never exceed the model's concurrency, and do reach it."""
    root, cp, fake, sp = world
    cases = [cp, cp.with_name("drop-001.json")]
    for cap in (1, 2):
        spec = sp["fal"] + f"&concurrency={cap}"
        gen = get_generator(spec)
        jobs = [Job(VideoKey("principia", c.stem, gen.name, 0), str(c), spec,
                    str(tmp_path / str(cap) / f"{c.stem}__0.mp4")) for c in cases]
        fake.max_active = fake.active = 0
        assert pregenerate(jobs, tmp_path, progress=False) == {"videos": 2, "downloaded": 2, "failed": 0}
        assert fake.max_active == cap


def test_budget_reserve_counts_dollars_jobs_and_time(monkeypatch):
    from lawful.generators.hosted import jobs

    b = jobs.Budget(usd=1.0, jobs=3, seconds=None, spent_usd=0.25)
    assert b.reserve(0.5) is None and b.spent_usd == 0.75 and b.spent_jobs == 1
    assert b.reserve(0.5) == ("budget exhausted: $0.75 of $1.00 spent, the next video costs $0.50 "
                              "(LAWFUL_HOSTED_BUDGET_USD)")
    b.refund(0.5)  # a submission the API refused costs nothing
    assert (b.spent_usd, b.spent_jobs) == (0.25, 0)
    monkeypatch.setattr(jobs, "_T0", [time.monotonic() - 100])
    reason = jobs.Budget(usd=None, jobs=None, seconds=60).reserve(0.0)
    assert reason.startswith("budget exhausted: 100 s of 60 s") and "LAWFUL_HOSTED_BUDGET_S" in reason


def test_a_job_the_api_no_longer_knows_is_submitted_again(world, env, tmp_path):
    """A stored job id the API answers 404 for is dropped (one failure), and the next attempt submits anew."""
    root, cp, fake, sp = world
    case = load_case(cp)
    gen = _gen(sp["fal"])
    JobDB(tmp_path).submitted("v.mp4", gen.name, "fal999999", 0.0)
    n0 = fake.count("fal")
    with pytest.raises(GenerationError, match=r"job fal999999: GET .*/requests/fal999999/status failed: HTTP 404"):
        gen.generate(case, case.first_frame_path(cp), tmp_path / "v.mp4", 0)
    assert fake.count("fal") == n0 and JobDB(tmp_path).get("v.mp4").job_id == ""
    assert gen.generate(case, case.first_frame_path(cp), tmp_path / "v.mp4", 0).exists()
    assert fake.count("fal") == n0 + 1


def test_model_budget_option(world, env, tmp_path):
    """``budget_usd`` caps one model's estimated spend in the run folder, next to the run-wide budget."""
    root, cp, fake, sp = world
    spec = sp["fal"] + "&usd_per_video=0.6&budget_usd=1"
    gen = get_generator(spec)
    assert gen.name == "fal:fal-ai/wan-i2v/image-to-video"  # client options are not part of the name
    cases = [cp, cp.with_name("drop-001.json")]
    jobs = [Job(VideoKey("principia", c.stem, gen.name, 0), str(c), spec, str(tmp_path / f"{c.stem}__0.mp4"))
            for c in cases]
    n0 = fake.count("fal")
    assert pregenerate(jobs, tmp_path, progress=False) == {"videos": 2, "downloaded": 1, "failed": 1}
    assert fake.count("fal") == n0 + 1
    reasons = [JobDB(tmp_path).get(f"{c.stem}__0.mp4").reason for c in cases]
    assert (f"budget exhausted: $0.60 of $1.00 spent, the next video costs $0.60 (option budget_usd of {gen.name})"
            in reasons)
