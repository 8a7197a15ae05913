"""Reading and validating predictions in the Apple-π release layout.

Layout (one folder per model)::

    submission.json                         model, protocol (video|image), num_rollouts, prompt_version, notes
    <subtrack>/<case path>/rollout_00.mp4   video protocol, every subtrack (…rollout_02.mp4)
    <subtrack>/<case path>/rollout_00.png   image protocol, the four non-Deduction subtracks
    deduction/<case path>/rollout_00/frame_000_t0.500s.png   image protocol, Deduction keyframes

``<subtrack>`` is one of :data:`SUBTRACKS` (``Perception-Text`` style names are accepted too);
``<case path>`` is the case's ``path`` in ``dataset.json`` (with or without the leading
``cases/``) or its ``case_id``. A ``<case path>/<subtrack>/`` nesting is accepted as well.

For the four non-Deduction subtracks the answer is the image, or the last decodable frame of
the video. For Deduction, frame 0 of a video is the condition frame and the remaining frames
span ``physics_duration`` (time rule in :mod:`lawful.score.applepi`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from lawful.score.applepi import pred_physics_index

from lawful.suites.applepi.fusion import SUBTRACKS
SUBTRACK_TITLES = {"perception_text": "Perception-Text", "perception_graphic": "Perception-Graphic",
                   "formulation_text": "Formulation-Text", "formulation_graphic": "Formulation-Graphic",
                   "deduction": "Deduction"}
VIDEO_EXT = (".mp4", ".webm", ".mov", ".mkv", ".avi")
IMAGE_EXT = (".png", ".jpg", ".jpeg", ".webp")
KEYFRAME_RE = re.compile(r"frame_(\d+)_t(\d+(?:\.\d+)?)s\.(png|jpg|jpeg|webp)$", re.I)


class PredictionError(ValueError):
    """An output that cannot be used (missing, unreadable, wrong shape); one line for the user."""


def _norm(name: str) -> str:
    return re.sub(r"[^a-z]", "", name.lower())


def subtrack_dir(root: Path, subtrack: str) -> Path | None:
    """The folder holding ``subtrack``'s outputs under ``root`` (any spelling), or None."""
    want = _norm(subtrack)
    if not root.is_dir():
        return None
    for p in root.iterdir():
        if p.is_dir() and _norm(p.name) == want:
            return p
    return None


@dataclass
class Output:
    """One rollout's output: ``kind`` is ``video``, ``image`` or ``keyframes``; ``path`` None when missing."""

    case_id: str
    subtrack: str
    rollout: int
    kind: str | None = None
    path: Path | None = None
    keyframes: dict[float, Path] = field(default_factory=dict)

    @property
    def missing(self) -> bool:
        return self.path is None


def _case_dirs(root: Path, subtrack: str, entry: dict) -> list[Path]:
    rel = Path(entry["path"])
    rel_short = Path(*rel.parts[1:]) if rel.parts and rel.parts[0] == "cases" else rel
    out = []
    sd = subtrack_dir(root, subtrack)
    if sd is not None:
        out += [sd / rel, sd / rel_short, sd / entry["case_id"]]
    for base in (root / rel, root / rel_short, root / entry["case_id"]):
        d = subtrack_dir(base, subtrack)
        if d is not None:
            out.append(d)
    return out


def find_output(root: str | Path, entry: dict, subtrack: str, rollout: int) -> Output:
    """Locate one rollout's output for a dataset entry (``{case_id, path}``)."""
    root = Path(root)
    out = Output(entry["case_id"], subtrack, rollout)
    stem = f"rollout_{rollout:02d}"
    for d in _case_dirs(root, subtrack, entry):
        if not d.is_dir():
            continue
        for ext in VIDEO_EXT:
            if (d / (stem + ext)).is_file():
                out.kind, out.path = "video", d / (stem + ext)
                return out
        for ext in IMAGE_EXT:
            if (d / (stem + ext)).is_file():
                out.kind, out.path = "image", d / (stem + ext)
                return out
        if (d / stem).is_dir():
            frames = {}
            for f in sorted((d / stem).iterdir()):
                m = KEYFRAME_RE.search(f.name)
                if m:
                    frames[round(float(m.group(2)), 3)] = f
            out.kind, out.path, out.keyframes = "keyframes", d / stem, frames
            return out
    return out


def read_submission(root: str | Path) -> dict:
    p = Path(root) / "submission.json"
    if not p.exists():
        return {}
    try:
        return json.loads(p.read_text())
    except json.JSONDecodeError as e:
        raise PredictionError(f"{p}: not valid JSON ({e.msg})") from None


# --- reading frames ----------------------------------------------------------------------------
def _resize(img: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    h, w = shape
    if img.shape[:2] == (h, w):
        return img
    return cv2.resize(img, (w, h), interpolation=cv2.INTER_LANCZOS4)


def read_image(path: Path, shape: tuple[int, int] | None = None) -> np.ndarray:
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise PredictionError(f"{path}: unreadable image")
    img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
    return _resize(img, shape) if shape else img


def _open(path: Path, threads: int = 0):
    """An opened capture (``threads``: decoder threads, 0 = FFmpeg's choice), or :class:`PredictionError`."""
    from lawful.video import _cv2_capture

    cap = _cv2_capture(path, threads)
    if cap is None:
        raise PredictionError(f"{path}: cannot open video")
    return cap


def video_frame_count(path: Path) -> int:
    """Frame count from the container (0 if unknown)."""
    cap = _open(path)
    try:
        return int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
    finally:
        cap.release()


def read_video_frames(path: Path, indices, shape: tuple[int, int] | None = None, cap=None) -> tuple[dict[int, np.ndarray], int]:
    """Decode frames ``indices`` (full indices); returns ``(frames, decoded_count)``.

    Decoding stops after the largest wanted index; ``decoded_count`` is then that index + 1,
    or the true length when the stream ended earlier. ``cap``: an opened capture to use (released here).
    """
    want = set(int(i) for i in indices)
    last = max(want) if want else -1
    cap = cap if cap is not None else _open(path)
    out: dict[int, np.ndarray] = {}
    i = 0
    try:
        while i <= last:
            if i in want:
                ok, bgr = cap.read()
                if not ok:
                    break
                out[i] = _resize(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB), shape) if shape else cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
            elif not cap.grab():
                break
            i += 1
    finally:
        cap.release()
    return out, i


def last_frame(path: Path, shape: tuple[int, int] | None = None) -> np.ndarray:
    """The last decodable frame of a video (the answer of a non-Deduction subtrack).

    Frames before the container's stated last one are only grabbed (decoded, not converted); reading
    continues past it when the container under-states the length."""
    cap = _open(path)
    last = None
    try:
        n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        skipped = 0
        while skipped < n - 1 and cap.grab():
            skipped += 1
        if skipped == max(n - 1, 0):
            while True:
                ok, bgr = cap.read()
                if not ok:
                    break
                last = bgr
    finally:
        cap.release()
    if last is None and n > 1:  # the container over-stated its length: take whatever decodes last
        cap = _open(path)
        try:
            while cap.grab():
                ok, bgr = cap.retrieve()
                if ok:
                    last = bgr
        finally:
            cap.release()
    if last is None:
        raise PredictionError(f"{path}: no decodable frames")
    rgb = cv2.cvtColor(last, cv2.COLOR_BGR2RGB)
    return _resize(rgb, shape) if shape else rgb


def answer_image(out: Output, shape: tuple[int, int]) -> np.ndarray:
    """The answer artifact of a non-Deduction output, resized to ``shape`` (H, W)."""
    if out.path is None:
        raise PredictionError(f"{out.case_id}/{out.subtrack}/rollout_{out.rollout:02d}: missing")
    if out.kind == "video":
        return last_frame(out.path, shape)
    if out.kind == "image":
        return read_image(out.path, shape)
    raise PredictionError(f"{out.path}: a keyframe folder is not an answer image")


@dataclass
class DeductionFrames:
    """Generated frames for a Deduction output at the evaluation timestamps.

    ``at[t]``: the frame for timestamp ``t``; ``neighbours[t]``: ``[(dt_seconds, frame), …]`` around it
    (video only, for velocity), ``dt`` relative to the frame for ``t``.
    """

    at: dict[float, np.ndarray]
    neighbours: dict[float, list[tuple[float, np.ndarray]]]
    n_phys: int | None
    kind: str


def deduction_frames(out: Output, timestamps: list[float], duration: float, shape: tuple[int, int],
                     window: int = 1) -> DeductionFrames:
    """Frames of a Deduction output at ``timestamps`` (time rule for videos, file names for keyframes)."""
    if out.path is None:
        raise PredictionError(f"{out.case_id}/deduction/rollout_{out.rollout:02d}: missing")
    if out.kind == "keyframes":
        at = {}
        for t in timestamps:
            hit = [p for tk, p in out.keyframes.items() if abs(tk - t) < 1e-3]
            if not hit:
                raise PredictionError(f"{out.path}: no keyframe for t = {t:.3f} s")
            at[t] = read_image(hit[0], shape)
        return DeductionFrames(at, {t: [] for t in timestamps}, None, "keyframes")
    if out.kind != "video":
        raise PredictionError(f"{out.path}: Deduction needs a video or a keyframe folder")
    cap = _open(out.path)
    n_total = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
    for _attempt in range(2):
        if n_total < 2:
            n_total = _count(out.path)
            if n_total < 2:
                if cap is not None:
                    cap.release()
                raise PredictionError(f"{out.path}: needs the condition frame and at least one physics frame")
        n_phys = n_total - 1
        plan = {}
        for t in timestamps:
            p = pred_physics_index(t, n_phys, duration)
            nb = [q for q in range(p - window, p + window + 1) if 0 <= q < n_phys]
            plan[t] = (p, nb)
        idx = {q + 1 for _, (p, nb) in plan.items() for q in [p, *nb]}
        frames, decoded = read_video_frames(out.path, idx, shape, cap)
        cap = None
        if all(i in frames for i in idx):
            dt = duration / n_phys
            at = {t: frames[p + 1] for t, (p, _) in plan.items()}
            nbs = {t: [((q - p) * dt, frames[q + 1]) for q in nb] for t, (p, nb) in plan.items()}
            return DeductionFrames(at, nbs, n_phys, "video")
        n_total = decoded  # the container over-stated its length: re-plan with the true count
    raise PredictionError(f"{out.path}: stream ends early ({decoded} decodable frames)")


def _count(path: Path) -> int:
    cap = _open(path)
    n = 0
    try:
        while cap.grab():
            n += 1
    finally:
        cap.release()
    return n


# --- validation --------------------------------------------------------------------------------
@dataclass
class ValidationReport:
    expected: int = 0
    found: int = 0
    missing: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    submission: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.missing and not self.unreadable

    def to_dict(self) -> dict:
        return {"expected": self.expected, "found": self.found, "missing": self.missing,
                "unreadable": self.unreadable, "submission": self.submission, "ok": self.ok}


def check_output(out: Output, deduction_timestamps: list[float] | None = None) -> str | None:
    """A one-line problem with a present output, or None. Cheap: opens files, decodes at most one frame."""
    try:
        if out.kind == "video":
            cap = _open(out.path)
            ok, _ = cap.read()
            cap.release()
            if not ok:
                return f"{out.path}: no decodable frames"
        elif out.kind == "image":
            read_image(out.path)
        elif out.kind == "keyframes":
            if out.subtrack != "deduction":
                return f"{out.path}: keyframe folders are only for Deduction"
            for t in deduction_timestamps or []:
                hit = [p for tk, p in out.keyframes.items() if abs(tk - t) < 1e-3]
                if not hit:
                    return f"{out.path}: no keyframe for t = {t:.3f} s"
                read_image(hit[0])
    except PredictionError as e:
        return str(e)
    return None


def validate(predictions_dir: str | Path, dataset, subtracks=SUBTRACKS, num_rollouts: int | None = None) -> ValidationReport:
    """List missing and unreadable outputs for every case × subtrack × rollout (never raises on bad files)."""
    root = Path(predictions_dir)
    rep = ValidationReport()
    try:
        rep.submission = read_submission(root)
    except PredictionError as e:
        rep.unreadable.append(str(e))
    n = int(num_rollouts or rep.submission.get("num_rollouts") or dataset.num_rollouts)
    for case in dataset:
        for sub in subtracks:
            for r in range(n):
                rep.expected += 1
                out = find_output(root, case.entry, sub, r)
                label = f"{case.entry['path']} {sub} rollout_{r:02d}"
                if out.missing:
                    rep.missing.append(label)
                    continue
                problem = check_output(out, case.deduction_timestamps if sub == "deduction" else None)
                if problem:
                    rep.unreadable.append(problem)
                else:
                    rep.found += 1
    return rep
