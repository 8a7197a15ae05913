"""Run a rubric over videos and record every answer in the run's store.

A run folder holds ``cases/**/<case_id>.json`` (with first frames beside
them), videos named ``<case_id>.mp4`` or ``<case_id>__<rollout>.mp4`` under
``videos/<model>/`` (or wherever the store's ``videos.path`` says), and
``results.sqlite``. Each (video, criterion) becomes one row of the store's
``judgements`` table with status

- ``scored``        a value on the rubric's scale;
- ``invalid``       the reply could not be used (no JSON, missing key, out of range) or the video
                    could not be read; ``raw`` keeps the reply text; an unusable reply is asked
                    again on the next run (it is never cached);
- ``unmeasurable``  the case lacks what the rubric needs (a reference image, a template field);
- ``error``         the endpoint never answered (deadline, HTTP errors); redone on the next run.

Rows are keyed by the judge's identity (``model@endpoint``), so two judges of one
run sit side by side (``lawful judge compare``). Each run of a rubric also leaves
one ``judge_runs`` row with its call counts (ok / retried / failed / unusable).

Nothing secret reaches the store: ``meta`` holds the judge model, the rubric id,
the endpoint with credentials stripped, usage, cache hit, attempts, frame indices.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lawful.case import Case, CaseError, load_case
from lawful.judges.cache import JudgeCache
from lawful.judges.client import JudgeClient, JudgeConfig, redact_url
from lawful.judges.frames import EncodedImage, encode, read_at, read_image, read_last, read_sampled
from lawful.judges.parse import parse_answer
from lawful.judges.rubric import Criterion, Rubric, load_rubric
from lawful.store import Store, VideoKey
from lawful.video import VideoError, probe

log = logging.getLogger("lawful.judges")

DONE = {"scored", "invalid", "unmeasurable"}  # ``error`` is asked again; ``invalid`` again with --redo
# the text placed before the generated images, per frame mode (part of the prompt the cache and SFT see)
VIDEO_LABELS = {"video": "Frames of the generated video, in time order:", "last_frame": "The model's answer:",
                "keyframes": "The model's frame:"}
STORE_FILE = "results.sqlite"
CACHE_DIR = "judge_cache"


@dataclass(frozen=True)
class VideoItem:
    """One video to judge and the case it answers."""

    key: VideoKey
    case: Case
    video: Path
    case_file: Path | None = None


@dataclass
class Outcome:
    """One criterion's judgement, as stored."""

    criterion: str
    value: float | None
    status: str
    raw: str = ""
    meta: dict = field(default_factory=dict)


CALL_COUNTS = ("calls", "ok", "retried", "failed", "unusable", "cache_hits")


@dataclass
class RunReport:
    """What one :func:`judge_run` did: videos judged, skipped (already done), outcome counts and
    this run's judge calls (``calls``: ok / retried / failed / unusable / cache_hits)."""

    videos: int = 0
    skipped: int = 0
    statuses: Counter = field(default_factory=Counter)
    usage: dict = field(default_factory=dict)
    summary: str = ""  # the client's token and request usage
    calls: dict = field(default_factory=lambda: {k: 0 for k in CALL_COUNTS})

    def line(self) -> str:
        """One line for the user, e.g. ``12 videos judged (10 scored, 2 invalid); 3 already done;
        calls: 12 ok, 1 retried, 0 failed, 2 unusable``."""
        st = ", ".join(f"{n} {s}" for s, n in sorted(self.statuses.items())) or "nothing to do"
        return f"{self.videos} videos judged ({st}); {self.skipped} already done; {calls_line(self.calls)}"

    @property
    def all_failed(self) -> bool:
        """Calls were made and not one gave a usable answer."""
        return self.calls["calls"] > 0 and self.calls["ok"] == 0

    @property
    def any_failed(self) -> bool:
        return self.calls["failed"] + self.calls["unusable"] > 0


def calls_line(c: dict) -> str:
    return (f"calls: {c.get('ok', 0)} ok, {c.get('retried', 0)} retried, {c.get('failed', 0)} failed, "
            f"{c.get('unusable', 0)} unusable" + (f" ({c['cache_hits']} from cache)" if c.get("cache_hits") else ""))


# --- finding work -----------------------------------------------------------------------------
CASES_POINTER = ".source"  # a file ``<run>/cases/<suite>.source`` holds the folder of cases kept elsewhere


def load_cases(directory: Path) -> dict[str, tuple[Case, Path]]:
    """Every readable case file under ``directory`` and under the folders its ``*.source`` files
    name (cases scored from where they were exported), by id; other JSON files are skipped."""
    out: dict[str, tuple[Case, Path]] = {}
    if not directory.exists():
        return out
    pointed = [Path(f.read_text().strip()) for f in sorted(directory.glob(f"*{CASES_POINTER}"))]
    for p in [*sorted(directory.rglob("*.json")), *(q for d in pointed for q in sorted(d.rglob("*.json")))]:
        try:
            c = load_case(p)
        except CaseError:
            continue
        out.setdefault(c.id, (c, p))
    return out


def split_video_name(stem: str) -> tuple[str, int]:
    """``case__2`` → ('case', 2); ``case`` → ('case', 0)."""
    if "__" in stem:
        cid, _, k = stem.rpartition("__")
        if k.isdigit():
            return cid, int(k)
    return stem, 0


def discover(run_dir: str | Path, suite: str | None = None, models: list[str] | None = None,
             videos_dir: str | Path | None = None) -> list[VideoItem]:
    """Videos of a run folder paired with their cases: from the store's ``videos`` rows, then from
    ``videos/<model>/<case_id>[__k].mp4`` files (``videos_dir`` overrides ``<run>/videos``)."""
    run_dir = Path(run_dir)
    cases = load_cases(run_dir / "cases")
    found: dict[VideoKey, VideoItem] = {}
    db = run_dir / STORE_FILE
    if db.exists():
        with Store(db) as st:
            for r in st.videos(suite):
                p = Path(r["path"]) if r["path"] else None
                if p and not p.is_absolute():
                    p = run_dir / p
                if p and p.exists() and r["case_id"] in cases:
                    c, f = cases[r["case_id"]]
                    k = VideoKey(r["suite"], r["case_id"], r["model"], r["rollout"])
                    found[k] = VideoItem(k, c, p, f)
    vdir = Path(videos_dir) if videos_dir else run_dir / "videos"
    if vdir.exists():
        for p in sorted(vdir.rglob("*.mp4")):
            if p.name.endswith(".part.mp4"):
                continue
            cid, k = split_video_name(p.stem)
            if cid not in cases:
                continue
            c, f = cases[cid]
            model = p.parent.name if p.parent != vdir else vdir.name
            key = VideoKey(c.suite, cid, model, k)
            found.setdefault(key, VideoItem(key, c, p, f))
    items = [it for it in found.values() if (suite is None or it.key.suite == suite)
             and (not models or it.key.model in models)]
    return sorted(items, key=lambda it: (it.key.model, it.key.case_id, it.key.rollout))


# --- one video ---------------------------------------------------------------------------------
def _reference(item: VideoItem, source: str) -> Path | None:
    if source == "first_frame":
        return item.case.first_frame_path(item.case_file) if item.case_file else None
    if source.startswith("known:"):
        v = item.case.known.get(source[6:])
        if isinstance(v, str) and item.case_file is not None:
            return item.case_file.parent / v
        return Path(v) if isinstance(v, str) else None
    return None


def _all(criteria: list[Criterion], status: str, reason: str, meta: dict) -> list[Outcome]:
    return [Outcome(c.key, None, status, "", {**meta, "reason": reason}) for c in criteria]


def _frames(item: VideoItem, rubric: Rubric, fmt: str, quality: int) -> list[tuple[list[int], list[EncodedImage]]]:
    """Images of the generated video per call group: one entry (video/last frame) or one per keyframe."""
    spec = rubric.frames
    if spec.mode == "video":
        idx, frames = read_sampled(item.video, item.case.duration, spec.fps, spec.max_frames, spec.max_side)
        return [(idx, [encode(f, fmt, quality) for f in frames])]
    if spec.mode == "last_frame":
        i, f = read_last(item.video, spec.max_side)
        return [([i], [encode(f, fmt, quality)])]
    # keyframes: physics frames follow the condition frame 0 and span the duration (Apple-π D.2)
    times = item.case.known.get("deduction_timestamps") or []
    n = probe(item.video).n_frames
    n_phys = max(1, n - 1)
    want = [1 + min(int(round(t * n_phys / item.case.duration)), n_phys - 1) for t in times]
    idx, frames = read_at(item.video, want, spec.max_side)
    return [([i], [encode(f, fmt, quality)]) for i, f in zip(idx, frames)]


def judge_video(item: VideoItem, rubric: Rubric, client: JudgeClient) -> list[Outcome]:
    """Ask every call ``rubric`` needs for this video; one :class:`Outcome` per criterion."""
    cfg = client.config
    calls = rubric.calls_for(item.case)
    if not calls:
        return []
    criteria = [c for call in calls for c in call]
    base = {"judge_model": cfg.model, "rubric": rubric.id, "endpoint": redact_url(cfg.url), "judge": cfg.identity}
    spec = rubric.frames
    # reference images shown before the video
    ref_parts: list[str | EncodedImage] = []
    for ref in spec.references:
        p = _reference(item, ref.source)
        if p is None or not p.exists():
            if ref.required:
                return _all(criteria, "unmeasurable", f"case has no '{ref.source}' image for '{ref.label}'", base)
            continue
        try:
            ref_parts += [f"{ref.label}:", encode(read_image(p, spec.max_side), cfg.image_format, cfg.jpeg_quality)]
        except VideoError as e:
            return _all(criteria, "unmeasurable", str(e), base)
    try:
        groups = _frames(item, rubric, cfg.image_format, cfg.jpeg_quality)
    except VideoError as e:
        return _all(criteria, "invalid", str(e), base)
    if spec.mode == "keyframes":
        gts = item.case.known.get("gt_keyframes") or []
        times = item.case.known.get("deduction_timestamps") or []
        if len(gts) != len(groups) or not groups:
            return _all(criteria, "unmeasurable", "case lacks gt_keyframes for its deduction_timestamps", base)
    label = VIDEO_LABELS[spec.mode]
    per_call: list[tuple[list[Criterion], list[str | EncodedImage], dict, list[int]]] = []
    for gi, (idx, images) in enumerate(groups):
        extra, parts = {}, list(ref_parts)
        if spec.mode == "keyframes":
            extra = {"time_point": f"{float(times[gi]):.2f}"}
            gt_path = item.case_file.parent / gts[gi] if item.case_file else Path(gts[gi])
            try:
                parts += [f"Ground truth at t = {extra['time_point']} s:",
                          encode(read_image(gt_path, spec.max_side), cfg.image_format, cfg.jpeg_quality)]
            except VideoError as e:
                return _all(criteria, "unmeasurable", str(e), base)
        parts += [label, *images]
        for call in calls:
            try:
                prompt = rubric.render(item.case, call, extra)
            except KeyError as e:
                return _all(criteria, "unmeasurable", f"case lacks field {e} the rubric's prompt needs", base)
            per_call.append((call, parts + [prompt], extra, idx))
    results: dict[str, list[Outcome]] = {c.key: [] for c in criteria}
    for call, parts, extra, idx in per_call:
        def usable(text: str, call=call) -> bool:
            return all(a.status == "scored" for a in parse_answer(text, rubric, call).values.values())

        comp = client.complete(rubric.system, parts, rubric.id, usable)
        meta = {**base, "usage": comp.usage, "cached": comp.cached, "attempts": comp.attempts, "frames": idx,
                **({"time_point": extra["time_point"]} if extra else {})}
        if comp.status == "error":
            for c in call:
                results[c.key].append(Outcome(c.key, None, "error", "", {**meta, "reason": comp.error}))
            continue
        ans = parse_answer(comp.text, rubric, call)
        for c in call:
            a = ans.values[c.key]
            m = {**meta, **({"reason": a.reason} if a.reason else {}), **({"na": True} if a.na else {}),
                 **({"extra": ans.extra} if ans.extra else {})}
            results[c.key].append(Outcome(c.key, a.value, a.status, comp.text, m))
    return [_merge(rs) for rs in results.values()]


def _merge(rs: list[Outcome]) -> Outcome:
    """One outcome per criterion; keyframe calls average their scored values (n recorded)."""
    if len(rs) == 1:
        return rs[0]
    scored = [r for r in rs if r.status == "scored" and not r.meta.get("na")]
    meta = {**rs[0].meta, "per_keyframe": [{"value": r.value, "status": r.status, **{k: r.meta.get(k) for k in
                                           ("time_point", "frames", "reason") if r.meta.get(k) is not None}} for r in rs]}
    raw = "\n---\n".join(r.raw for r in rs)
    if scored:
        return Outcome(rs[0].criterion, sum(r.value for r in scored) / len(scored), "scored", raw, meta)
    if any(r.status == "scored" for r in rs):  # all not-applicable
        return Outcome(rs[0].criterion, rs[0].value, "scored", raw, {**meta, "na": True})
    status = "error" if any(r.status == "error" for r in rs) else rs[0].status
    return Outcome(rs[0].criterion, None, status, raw, meta)


# --- a run -------------------------------------------------------------------------------------
def _finished(store: Store, rubric: Rubric, judge: str) -> set[tuple]:
    done = set()
    for r in store.judgements(rubric=rubric.name, judge=judge):
        if r["status"] in DONE and r["meta"].get("rubric") == rubric.id:
            done.add((r["suite"], r["case_id"], r["model"], r["rollout"], r["criterion"]))
    return done


def judge_items(items: list[VideoItem], rubric: Rubric, client: JudgeClient, store: Store, *,
                redo: bool = False, progress: Callable[[int, int], None] | None = None) -> RunReport:
    """Judge ``items`` that ``rubric`` applies to and store every outcome. Finished judgements (same
    rubric version, same judge) are skipped unless ``redo``; errors are always asked again, and
    unusable answers with ``redo`` (they are never cached, so they are really asked again). The call
    counts are stored as one ``judge_runs`` row."""
    items = [it for it in items if rubric.applies(it.case)]
    report = RunReport()
    before = client.usage.snapshot()
    done = set() if redo else _finished(store, rubric, client.config.identity)
    todo = []
    for it in items:
        k = it.key
        need = {c.key for c in rubric.criteria_for(it.case)}
        if all((k.suite, k.case_id, k.model, k.rollout, c) in done for c in need):
            report.skipped += 1
        else:
            todo.append(it)
    report.videos = len(todo)
    finished = [0]

    def work(it: VideoItem) -> list[Outcome]:
        outs = judge_video(it, rubric, client)
        for o in outs:
            store.put_judgement(it.key, rubric.name, o.criterion, o.value, o.status, o.raw, o.meta,
                                judge=client.config.identity)
        finished[0] += 1
        if progress:
            progress(finished[0], len(todo))
        return outs

    for outs in client.map(work, todo):
        report.statuses.update(o.status for o in outs)
    report.usage = client.usage.snapshot()
    report.calls = {k: report.usage[k] - before[k] for k in CALL_COUNTS}
    report.summary = client.usage.summary()
    store.put_judge_run(rubric.id, client.config.identity, items[0].key.suite if items else "",
                        {**report.calls, "videos": report.videos, "skipped": report.skipped})
    return report


def judge_run(run_dir: str | Path, rubric: str | Rubric, config: JudgeConfig, *, suite: str | None = None,
              models: list[str] | None = None, videos_dir: str | Path | None = None,
              cache_dir: str | Path | None = None, redo: bool = False, client: JudgeClient | None = None,
              progress: Callable[[int, int], None] | None = None) -> RunReport:
    """Judge every applicable video of a run folder with ``rubric``; results go to its store.

    Replies come from the cache (``<run>/judge_cache`` unless ``cache_dir``) when present, so a
    re-run sends no requests.
    """
    run_dir = Path(run_dir)
    rub = rubric if isinstance(rubric, Rubric) else load_rubric(rubric)
    client = client or JudgeClient(config, JudgeCache(cache_dir or run_dir / CACHE_DIR))
    own = _suite_judge(rub.protocol)
    if own is not None:  # a suite whose rows are not one video each (Apple-π) judges them itself, if it has any
        with Store(run_dir / STORE_FILE) as store:
            report = own(run_dir, rub, client, store, models=models, redo=redo, progress=progress)
        if report is not None:
            return report
    items = discover(run_dir, suite, models, videos_dir)
    with Store(run_dir / STORE_FILE) as store:
        return judge_items(items, rub, client, store, redo=redo, progress=progress)


def _suite_judge(protocol: str):
    """The judging hook of the suite a rubric belongs to (:attr:`lawful.suites.base.Suite.judge`), found through
    the registry (judges import no suite); None for a suite of one video per row, or no suite."""
    from lawful.suite_registry import get_suite

    try:
        return get_suite(protocol).judge
    except KeyError:
        return None


def stored_values(store: Store, rubric: str, suite: str | None = None,
                  judge: str | None = None) -> dict[VideoKey, dict[str, float | None]]:
    """Scored judge values per video: key → criterion → value (None where the judge gave no usable
    answer), for suites that fuse judge criteria into their composites (Apple-π groups, WMLE's C).
    ``judge``: whose answers (default: the judge that answered this rubric last)."""
    out: dict[VideoKey, dict[str, float | None]] = {}
    for r in store.judgements(suite=suite, rubric=rubric, judge=judge):
        k = VideoKey(r["suite"], r["case_id"], r["model"], r["rollout"])
        out.setdefault(k, {})[r["criterion"]] = r["value"] if r["status"] == "scored" else None
    return out


def judge_values(video: str | Path, case: Case, rubric: str | Rubric, client: JudgeClient,
                 case_file: str | Path | None = None) -> dict[str, Outcome]:
    """Judge one video outside a run folder; criterion → :class:`Outcome`."""
    rub = rubric if isinstance(rubric, Rubric) else load_rubric(rubric)
    item = VideoItem(VideoKey(case.suite, case.id, "-", 0), case, Path(video), Path(case_file) if case_file else None)
    return {o.criterion: o for o in judge_video(item, rub, client)}


def judge_consistency(video: str | Path, case: Case, client: JudgeClient) -> float | None:
    """WMLE's consistency score C ∈ [0, 100] from a judge (rubric ``wmle-consistency``), or None
    when the judge gave no usable answer. The WMLE suite passes it on as ``judge_C``."""
    o = judge_values(video, case.model_copy(update={"suite": "wmle"}), "wmle-consistency", client)
    out = o.get("consistency")
    return out.value if out is not None and out.status == "scored" else None
