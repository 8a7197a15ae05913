"""The judge in the Apple-π flow: rubric values for every stored output, fused with the objective checks.

:func:`judge_applepi` walks the ``<subtrack>_objective`` rows of a run's store (suite ``applepi``),
builds a :class:`lawful.case.Case` per output from the case folder of the release-layout dataset
(``<run>/applepi/dataset`` unless ``dataset=``), and asks the subtrack's rubric
(:func:`~lawful.suites.applepi.fusion.rubric_name`) through :func:`lawful.judges.judge.judge_values`:

- the four non-Deduction subtracks: the answer image, or the last frame of the video (rubric frame
  mode ``last_frame``), after the GT references the rubric names (``first_frame`` = the annotated
  input, ``known:<metadata key>`` = ``annotations_only_reference``, ``objects_only_reference``,
  ``future_state_reference``); Formulation-Text also gets ``correct_letter``, ``correct_formula``
  and ``annotation`` for its prompt;
- Deduction, video protocol: rubric ``applepi-deduction`` over the sampled video;
- Deduction, image protocol (a keyframe folder): rubric ``applepi-deduction-keyframe`` once per
  requested timestamp against the GT frame at that time, averaged with
  :func:`~lawful.suites.applepi.fusion.keyframe_judge_values`.

Every criterion's outcome is stored as a judgement under the subtrack's rubric with the reply text:
scored values go through :func:`~lawful.suites.applepi.fused.apply_judge` (which also fuses them);
``invalid`` / ``unmeasurable`` / ``error`` answers are stored with no value, so nothing is fused for
that output. Outputs whose judgements (same judge model) are all stored are skipped unless ``redo``;
``error`` judgements (the endpoint never answered) are retried. Outputs whose objective score is not
``scored`` (missing or unreadable files) are not sent to the judge.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from lawful.case import Case
from lawful.judges.client import JudgeClient, redact_url
from lawful.judges.judge import DONE, Outcome, judge_values
from lawful.judges.rubric import load_rubric
from lawful.store import Store, VideoKey
from lawful.suites.applepi.dataset import Dataset, DatasetError, GTCase, imwrite
from lawful.suites.applepi.fused import apply_judge
from lawful.suites.applepi.fusion import SUBTRACKS, judge_criteria, keyframe_judge_values, rubric_name
from lawful.suites.applepi.predictions import KEYFRAME_RE

SUITE = "applepi"
KEYFRAME_RUBRIC = "applepi-deduction-keyframe"
REFERENCE_KEYS = ("annotations_only_reference", "objects_only_reference", "future_state_reference")


@dataclass
class _Job:
    key: tuple[str, str, int, str]  # case_id, model, rollout, subtrack
    task: str
    path: Path


def _known_text(v) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def _gt_keyframes(gt: GTCase, times: list[float], refs_dir: Path) -> list[str]:
    """Paths of the GT frames at ``times``: the dataset's ``rgb/`` files, else frames written from ``gt_video``."""
    from lawful.score.applepi import gt_physics_index

    idx = [gt_physics_index(t, gt.gt_fps, gt.n_gt_phys) + 1 for t in times]
    fd = gt._frames_dir()
    if fd is not None:
        files = sorted(fd.glob("*.png"))
        return [str(files[i]) for i in idx]
    frames = gt.gt_frames(idx)
    out = []
    for i in idx:
        p = refs_dir / gt.case_id / f"gt_{i:04d}.png"
        if not p.exists():
            imwrite(p, frames[i])
        out.append(str(p))
    return out


def build_case(gt: GTCase, subtrack: str, refs_dir: Path, keyframe_times: list[float] | None = None) -> Case:
    """The lawful case a rubric reads for one case folder and subtrack (paths relative to the case folder,
    or absolute). ``keyframe_times``: a Deduction keyframe case (rubric ``applepi-deduction-keyframe``)."""
    meta = gt.meta
    info = gt.formula_info
    sub = "deduction-keyframe" if keyframe_times is not None else subtrack.replace("_", "-")
    known: dict = {"subtrack": sub}
    for k in REFERENCE_KEYS:
        if meta.get(k):
            known[k] = str(meta[k])
    if info.get("correct_letter"):
        known["correct_letter"] = str(info["correct_letter"])
    if info.get("correct_formula"):
        known["correct_formula"] = str(info["correct_formula"])
    if meta.get("annotation") is not None:
        known["annotation"] = _known_text(meta["annotation"])
    if subtrack == "deduction":
        times = gt.deduction_timestamps if keyframe_times is None else list(keyframe_times)
        known["deduction_timestamps"] = times
        try:
            known["gt_keyframes"] = _gt_keyframes(gt, times, refs_dir)
        except (DatasetError, IndexError, ValueError):
            pass  # the keyframe rubric then says unmeasurable
    h, w = gt.shape
    return Case(id=gt.case_id, suite=SUITE, task=gt.task, first_frame=str(meta.get("input_image") or "") or None,
                width=w, height=h, fps=gt.gt_fps, duration=gt.physics_duration, known=known)


def _keyframes(folder: Path) -> dict[float, Path]:
    out = {}
    for f in sorted(folder.iterdir()):
        m = KEYFRAME_RE.search(f.name)
        if m:
            out[round(float(m.group(2)), 3)] = f
    return out


def _judge_keyframes(job: _Job, gt: GTCase, client: JudgeClient, refs_dir: Path) -> dict[str, Outcome]:
    """Deduction keyframes: the keyframe rubric per timestamp, averaged (motion smoothness from position match)."""
    rub = load_rubric(KEYFRAME_RUBRIC)
    crits = judge_criteria("deduction")
    base = {"judge_model": client.config.model, "rubric": rub.id, "endpoint": redact_url(client.config.url)}
    frames = _keyframes(job.path)
    per_t: list[tuple[float, dict[str, Outcome]]] = []
    for t in gt.deduction_timestamps:
        hit = [p for tk, p in frames.items() if abs(tk - t) < 1e-3]
        if not hit:
            return {c: Outcome(c, None, "invalid", "", {**base, "reason": f"no keyframe for t = {t:.3f} s"})
                    for c in crits}
        case = build_case(gt, "deduction", refs_dir, [t])
        per_t.append((t, judge_values(hit[0], case, rub, client, gt.dir / "metadata.json")))
    raw = "\n---\n".join(next(iter(o.values())).raw for _, o in per_t if o)
    per_kf = [{"time_point": t, **{c: (o.value if o.status == "scored" else o.status) for c, o in outs.items()}}
              for t, outs in per_t]
    meta = {**base, "per_keyframe": per_kf}
    names = {c for _, outs in per_t for c in outs}
    if not per_t or not names:
        return {c: Outcome(c, None, "unmeasurable", "", {**base, "reason": "case has no deduction timestamps"})
                for c in crits}
    bad = {}
    for c in names:
        statuses = [outs[c].status if c in outs else "invalid" for _, outs in per_t]
        if any(s != "scored" for s in statuses):
            status = "error" if "error" in statuses else next(s for s in statuses if s != "scored")
            reasons = [outs[c].meta.get("reason") for _, outs in per_t if c in outs and outs[c].meta.get("reason")]
            bad[c] = Outcome(c, None, status, raw, {**meta, "reason": "; ".join(dict.fromkeys(reasons))})
    avg = keyframe_judge_values([{c: o.value for c, o in outs.items() if o.status == "scored"} for _, outs in per_t])
    out = {c: Outcome(c, v, "scored", raw, meta) for c, v in avg.items() if c not in bad}
    out.update(bad)
    if "object_position_match" in bad and "motion_smoothness" in crits:
        out["motion_smoothness"] = Outcome("motion_smoothness", None, bad["object_position_match"].status, raw,
                                           {**meta, "reason": "stand-in object_position_match was not scored"})
    return out


def _judge_one(job: _Job, gt: GTCase, client: JudgeClient, refs_dir: Path) -> dict[str, Outcome]:
    sub = job.key[3]
    if sub == "deduction" and job.path.is_dir():
        return _judge_keyframes(job, gt, client, refs_dir)
    case = build_case(gt, sub, refs_dir)
    return judge_values(job.path, case, rubric_name(sub), client, gt.dir / "metadata.json")


def _stored(store: Store, model_name: str) -> dict[tuple, set[str]]:
    """Criteria with a finished judgement (scored / invalid / unmeasurable) by this judge model, per output."""
    done: dict[tuple, set[str]] = {}
    for sub in SUBTRACKS:
        for r in store.judgements(suite=SUITE, rubric=rubric_name(sub)):
            if r["status"] in DONE and r["meta"].get("judge_model") == model_name:
                done.setdefault((r["case_id"], r["model"], int(r["rollout"]), sub), set()).add(r["criterion"])
    return done


def _ground_truth(run_dir: Path, dataset: str | Path | None, case_id: str) -> GTCase:
    """A stored row's case folder: from ``dataset`` when given, else through the run's case file (which names its
    dataset: the run's own, or the official one it was scored against)."""
    case_file = run_dir / "cases" / SUITE / f"{case_id}.json"
    if dataset is None and case_file.exists():
        from lawful.suites.applepi.tasks import load

        return load(case_file)[1]
    return Dataset(dataset if dataset is not None else run_dir / SUITE / "dataset").case(case_id)


def judge_applepi(run_dir: str | Path, client: JudgeClient, models: Iterable[str] | None = None, redo: bool = False,
                  progress: Callable[[int, int], None] | None = None, *, dataset: str | Path | None = None,
                  store: Store | None = None, subtracks: Iterable[str] = SUBTRACKS) -> dict:
    """Judge every stored Apple-π output of a run folder with its subtrack's rubric and fuse the values
    into the ``<subtrack>`` columns. Returns counts: ``outputs`` (stored outputs considered), ``judged``,
    ``skipped`` (already judged), ``not_judged`` (objective status not scored), ``statuses`` (per
    criterion), ``fused`` (outputs with a fused score in the store), ``usage``."""
    run_dir = Path(run_dir)
    refs_dir = run_dir / SUITE / "judge_refs"
    wanted = set(models) if models is not None else None
    own = store is None
    store = store or Store(run_dir / "results.sqlite")
    try:
        done = set() if redo else _stored(store, client.config.model)
        jobs, skipped, not_judged, outputs = [], 0, 0, 0
        for row in store.scores(SUITE):
            col = row["col"]
            if not col.endswith("_objective") or (wanted is not None and row["model"] not in wanted):
                continue
            sub = col[: -len("_objective")]
            if sub not in SUBTRACKS or sub not in subtracks:
                continue
            outputs += 1
            key = (row["case_id"], row["model"], int(row["rollout"]), sub)
            if row["status"] == "invalid":  # no output to judge (an objective score too thin alone is judged)
                not_judged += 1
                continue
            if not redo and set(judge_criteria(sub)) <= done.get(key, set()):
                skipped += 1
                continue
            ev = store.evidence(VideoKey(SUITE, key[0], key[1], key[2]))
            path = (ev.get("outputs") or {}).get(sub)
            if not path:
                not_judged += 1
                continue
            jobs.append(_Job(key, row["task"], Path(path)))
        cases: dict[str, GTCase] = {}
        for j in jobs:
            if j.key[0] not in cases:
                cases[j.key[0]] = _ground_truth(run_dir, dataset, j.key[0])
        finished = [0]
        lock = threading.Lock()

        def work(job: _Job) -> dict[str, Outcome]:
            try:
                outs = _judge_one(job, cases[job.key[0]], client, refs_dir)
            except (DatasetError, OSError, ValueError) as e:
                base = {"judge_model": client.config.model, "rubric": rubric_name(job.key[3])}
                outs = {c: Outcome(c, None, "unmeasurable", "", {**base, "reason": f"{type(e).__name__}: {e}"})
                        for c in judge_criteria(job.key[3])}
            with lock:
                finished[0] += 1
                n = finished[0]
            if progress:
                progress(n, len(jobs))
            return outs

        statuses: Counter = Counter()
        values: dict[tuple, dict[str, float]] = {}
        details: dict[tuple, dict[str, tuple[str, dict]]] = {}
        for job, outs in zip(jobs, client.map(work, jobs)):
            case_id, model, rollout, sub = job.key
            for name, o in outs.items():
                statuses[o.status] += 1
                if o.status == "scored" and o.value is not None:
                    values.setdefault(job.key, {})[name] = float(o.value)
                    details.setdefault(job.key, {})[name] = (o.raw, o.meta)
                else:
                    store.put_judgement(VideoKey(SUITE, case_id, model, rollout), rubric_name(sub), name, None,
                                        o.status, o.raw, o.meta)
        apply_judge(store, values, judge_meta={"judge_model": client.config.model}, details=details)
        fused = sum(1 for r in store.scores(SUITE) if r["col"] in SUBTRACKS and r["status"] == "scored"
                    and (wanted is None or r["model"] in wanted))
    finally:
        if own:
            store.close()
    return {"outputs": outputs, "judged": len(jobs), "skipped": skipped, "not_judged": not_judged,
            "statuses": dict(statuses), "fused": fused, "usage": client.usage.summary()}


def judge_models(out: Path, store: Store, dataset: str | Path, models: list[str], judge_config, redo: bool,
                 progress: bool) -> dict:
    """Judge the stored outputs of ``models`` with their subtracks' rubrics and fuse them
    (:func:`lawful.suites.applepi.judging.judge_applepi`; replies cached under ``<out>/judge_cache``);
    returns the counts and the judge's public configuration."""
    from lawful.judges.cache import JudgeCache
    from lawful.judges.client import JudgeClient

    if progress:
        from lawful.progress import console

        console.print(f"[dim]applepi[/dim] judging with {judge_config.model}")
    client = JudgeClient(judge_config, JudgeCache(Path(out) / "judge_cache"))
    judged = judge_applepi(out, client, models, redo=redo, dataset=dataset, store=store)
    return {**judged, "config": judge_config.public()}


def judge_rubric(run_dir: str | Path, rubric, client: JudgeClient, store: Store, *, models=None, redo: bool = False,
                 progress: Callable[[int, int], None] | None = None):
    """Apple-π's :attr:`~lawful.suites.base.Suite.judge` (what ``lawful judge`` and ``lawful run --judge`` reach
    through :func:`lawful.judges.judge.judge_run`): :func:`judge_applepi` for the rubric's subtrack (the
    keyframe rubric is Deduction's), with the call counts of a judged run. None when the run holds no scored
    outputs of that subtrack (then single answer videos of a run folder are judged as every suite's videos)."""
    from lawful.judges.judge import CALL_COUNTS, RunReport

    name = rubric.name if hasattr(rubric, "name") else str(rubric)
    sub = next((s for s in SUBTRACKS if name in (rubric_name(s), KEYFRAME_RUBRIC if s == "deduction" else "")), None)
    if sub is None or not any(r["col"] == f"{sub}_objective" for r in store.scores(SUITE)):
        return None
    before = client.usage.snapshot()
    got = judge_applepi(run_dir, client, models, redo, progress, store=store, subtracks=(sub,))
    report = RunReport(videos=got["judged"], skipped=got["skipped"], statuses=Counter(got["statuses"]))
    report.usage = client.usage.snapshot()
    report.calls = {k: report.usage[k] - before[k] for k in CALL_COUNTS}
    report.summary = client.usage.summary()
    store.put_judge_run(rubric_name(sub), client.config.identity, SUITE,
                        {**report.calls, "videos": report.videos, "skipped": report.skipped})
    return report
