"""Score one video against one case: probe → perceive → measure → score, with statuses, never a crash."""

from __future__ import annotations

import traceback
from pathlib import Path

from lawful.case import Case
from lawful.job import Evaluation, overall as _overall
from lawful.result import Score
from lawful.suites.base import Task, get_suite
from lawful.video import VideoError


def task_for(case: Case) -> Task:
    """The registered task a case belongs to (KeyError with a did-you-mean if unknown)."""
    return get_suite(case.suite).task(case.task)


def _columns(task: Task) -> tuple[str, ...]:
    return task.phenomena or (task.name,)


def _all(task: Task, status: str, reason: str) -> dict[str, Score]:
    return {c: Score(status=status, reason=reason) for c in _columns(task)}


MIN_FRAMES = 8


def _crashed(stage: str, task: Task, e: Exception) -> Evaluation:
    """``invalid`` with a one-line reason; the traceback goes into the evidence."""
    reason = f"{stage} error: {type(e).__name__}: {e}".splitlines()[0]
    return Evaluation("invalid", _all(task, "invalid", reason), reason, {"traceback": traceback.format_exc(limit=12)})


def evaluate_video(case: Case, video: str | Path, task: Task | None = None) -> Evaluation:
    """Evaluate ``video`` against ``case``. Broken input → ``invalid``; missing observables → ``unmeasurable``."""
    from lawful.perceive.track import ObjectNotFound, track

    task = task or task_for(case)
    video = Path(video)
    if not task.perceives:  # judged, not measured: nothing to decode here
        return _unperceived(case, video, task)
    try:
        tracks = track(video, case, task.plan, min_frames=MIN_FRAMES, probes=task.probes(case),
                       movers=task.movers(case))
    except VideoError as e:
        return Evaluation("invalid", _all(task, "invalid", str(e)), str(e))
    except ObjectNotFound as e:
        return Evaluation("unmeasurable", _all(task, "unmeasurable", str(e)), str(e))
    except Exception as e:  # a perception bug on one video must not stop a folder run; keep the trace
        return _crashed("perception", task, e)
    if len(tracks) < MIN_FRAMES:
        reason = f"{video.name}: only {len(tracks)} decodable frames (need ≥ {MIN_FRAMES})"
        return Evaluation("invalid", _all(task, "invalid", reason), reason)
    try:
        m = task.measure(case, tracks)
        scores = task.score(case, m)
    except Exception as e:  # a bug in one task must not stop the run; keep the trace as evidence
        return _crashed("measurement", task, e)
    lost = _camera_lost(tracks)
    if lost:  # what was measured stays as evidence; no score rests on frames whose camera is unknown
        scores = {c: Score(status="unmeasurable", reason=lost) for c in scores}
    status, reason = _overall(scores)
    evidence = {
        "video": {"path": str(video), "fps": tracks.meta["video_fps"], "n_frames": tracks.meta["n_frames"],
                  "width": tracks.meta["video_size"][0], "height": tracks.meta["video_size"][1]},
        "tracks": tracks.to_dict(),
        "events": [e.model_dump() for e in m.events],
        "quantities": m.quantities,
        "missing": m.missing,
        "tracks_meta": {k: v for k, v in tracks.meta.items() if isinstance(v, (int, float, str, list, dict))},
    }
    return Evaluation(status, scores, reason, evidence)


def _camera_lost(tracks) -> str:
    """Why no score can be given when the camera was followed only part of the way (``camera.until``: it moved,
    then no frame registered), else ''. Positions after that are unknown, and a task measuring the rest
    would read the clip's end too early (a slide not yet started looks like blocks at rest)."""
    until = (tracks.meta.get("camera") or {}).get("until")
    if until is None:
        return ""
    frame, n = int(tracks.frames[int(until)]), int(tracks.meta["n_frames"])
    return (f"camera motion followed only to frame {frame} of {n}, then lost: where things are after it is"
            f" unknown (see tracks_meta.camera.reason)")


def _unperceived(case: Case, video: Path, task: Task) -> Evaluation:
    """A judged task's evaluation: ``invalid`` without a video file, else what ``score(case, measure(case, None))``
    says (its judge reads the video later)."""
    if not video.is_file():
        reason = f"{video.name}: no such video"
        return Evaluation("invalid", _all(task, "invalid", reason), reason)
    try:
        scores = task.score(case, task.measure(case, None))
    except Exception as e:
        return _crashed("measurement", task, e)
    status, reason = _overall(scores)
    return Evaluation(status, scores, reason, {"video": {"path": str(video)}})
