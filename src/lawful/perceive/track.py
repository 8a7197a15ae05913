"""Track the case's objects through a video: colour masks, association, camera compensation.

:func:`track` streams frames (``lawful.video.iter_frames``, downscaled to ``plan.max_side`` but
never so far that the smallest boxed object drops under :data:`MIN_OBJECT_PX` px, decoded ahead
in a background thread), learns each object's colour from the video's own first frame inside
its case box or mask (or near its case colour: :mod:`lawful.perceive.first_frame`), and per frame:

0. keeps the last measurement of an object at rest whose surroundings have not changed
   (:meth:`~lawful.perceive.objects.Tracked.unchanged`);
1. segments each colour group (objects of indistinguishable colour share a group) inside a
   search window around the constant-velocity prediction; a lost object is looked for only
   within the distance it can have travelled (:meth:`~lawful.perceive.objects.Tracked.reach`),
   and only inside the case's ``roi`` / outside its ``exclude`` boxes;
2. assigns components by position and blur-aware area, bounds blobs grown along a string or
   wall, and finds what the colour mask misses (a pale blur streak, a grey object) by contrast
   against the local background (:mod:`lawful.perceive.associate`; an object whose colour model holds under
   :data:`~lawful.perceive.first_frame.WEAK_COVERAGE` of its pixels is a group of its own, its colour's blob looked
   for first);
3. records centroid (mid-exposure for a blur streak), box, area and, when asked, the angle of a
   contrasting marker;
4. optionally estimates camera motion (:mod:`lawful.perceive.camera`), keeping the objects' boxes out
   (a lost object's :meth:`~lawful.perceive.objects.Tracked.ghost_box`, not its growing search window).

Objects that are lost, merged with a same-coloured twin, cut by the frame border (less than
85% of their expected area visible) or passing in front of or behind another object (their boxes share
more than half the smaller one, where they did not in the first frame) are ``visible=False`` with NaN positions: positions are
never invented. Output coordinates are first-frame case pixels (``case.width x case.height``,
pixel centres at integers), whatever the video's resolution.
"""

from __future__ import annotations

import time
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import numpy as np

from lawful.case import Case, is_box
from lawful.memory import frame_sized_heap
from lawful.perceive import camera as cam
from lawful.perceive.associate import step_group
from lawful.perceive.contrast import by_contrast
from lawful.perceive.first_frame import ObjectNotFound, colour_groups, learn_objects, lookalikes
from lawful.perceive.objects import Found, Regions, Tracked
from lawful.perceive.segment import FrameFeatures
from lawful.threads import opencv_threads
from lawful.tracks import Tracks
from lawful.timing import Stamps, clip_times
from lawful.video import Span, VideoError, open_frames, probe

__all__ = ["ObjectNotFound", "clip_span", "track"]  # (ObjectNotFound: raised from the first frame's learning)

PREFETCH = 8  # frames decoded ahead in a background thread
MIN_OBJECT_PX = 12  # the working resolution keeps the smallest object at least this many px across
HIDDEN_SHARE = 0.5  # two objects' boxes sharing more than this of the smaller box: one hides the other
STATIC_SHIFT_PX = 0.5  # tracking px: camera motion below this is not compensated (the tracker's own precision)


def _step_frame(objs: list[Tracked], groups: list[list[Tracked]], frame: np.ndarray, angles: bool, first: bool,
                regions: Regions, prev: np.ndarray | None = None):
    """Find every object in ``frame`` (``prev``: the previous sample, background for the contrast
    search) and update its motion state; returns, per object, its measurement in this sample,
    or None where it is not (wholly) visible; the boxes of all objects found, with their
    :attr:`~Tracked.rim`, recorded or not (cut by the border, or one hiding another: their pixels still move on
    their own); and the objects whose previous sample is retracted: a sighting that ended a loss and is
    followed by none is not the object (a reflection or a shadow of its colour in its search window), and its
    state goes back to the loss."""
    seen: list[Found | None] = [None] * len(objs)
    found = {}
    before = {o.j: o.checkpoint() for o in objs if o.lost}
    for g in groups:
        same = [o.unchanged(frame) for o in g]
        if all(f is not None for f in same):
            found.update((o.j, f) for o, f in zip(g, same))
            continue
        if g[0].weak:  # its colour's blob first, as it holds a constant part of the object (a cube's two lit faces
            # of three); by contrast where it is not found (studio momentum blocks on floors of a near colour, 0.795 of
            # their pixels in their model: found by contrast alone, they jittered 1-2 px at rest and were lost)
            f = step_group(g, frame, angles, regions, prev=prev)[g[0].j]
            f = f if f is not None else by_contrast(g[0], frame, regions, prev)
            if f is None and first:  # its window's ring spans surfaces (a ramp's edge), so their median is none of
                f = by_contrast(g[0], frame, regions, frame)  # them: the background it hides, filled from around it
            got = {g[0].j: f}
        else:
            got = step_group(g, frame, angles, regions, prev=prev)
        for o in g:
            o.remember(got[o.j], frame)
        found.update(got)
    overlapping = _overlapping(objs, found)
    if first:
        for o in objs:  # overlapping from the start: how the scene is built (a stone in ice), not one hiding another
            o.overlaps = frozenset(overlapping.get(o.j, ()))
    retract = []
    for o in objs:
        f = found.get(o.j)
        pending, o.pending = o.pending, None
        if f is None and pending is not None:
            o.restore(pending, pending["lost"] + 2)
            retract.append(o.j)
            continue
        if f is not None:
            o.pending = before.get(o.j)
            o.last_box, o.seen_frame = f.box, frame
        if f is not None and overlapping.get(o.j, frozenset()) - o.overlaps:
            f = replace(f, cut=True)  # one hides the other: followed, not recorded
        if f is None or f.cut:
            if f is not None:  # keep following a partly visible object without recording it
                o.seen_at(f.xy)
            else:
                o.lost += 1
            continue
        o.seen_at(f.xy, move=not first)
        o.size = (f.box[2] - f.box[0] + 1.0, f.box[3] - f.box[1] + 1.0)
        if not f.touches:
            o.note_shape(f.shape)
        if first:
            o.ref_area = f.area
        elif f.blur > 0.5 * o.diam:
            o.note_blur(f.blur)
        elif not f.touches:
            _learn_area(o, f)
            o.note_blur(f.blur)
        seen[o.j] = f
    return seen, [(*f.box, objs[j].rim) for j, f in found.items() if f is not None], retract


def _overlapping(objs: list[Tracked], found: dict[int, Found | None]) -> dict[int, set[int]]:
    """Per object, the others whose box shares more than :data:`HIDDEN_SHARE` of the smaller of the two boxes
    with its own in this sample. Two bodies side by side in the picture share at most their boxes' corners
    (two touching discs: under 9 %), so such a pair is one passing in front of the other: the one behind
    shows a part of itself and, under blur, the colours of both mix at the seam (a studio tube passing
    behind a cylinder was taken whole from the mixed blob, 5 px off its path, and failed its DCS)."""
    boxes = [(o.j, f.box) for o in objs if (f := found.get(o.j)) is not None]
    out: dict[int, set[int]] = {}
    for a, (ja, ba) in enumerate(boxes):
        for jb, bb in boxes[a + 1:]:
            w = min(ba[2], bb[2]) - max(ba[0], bb[0]) + 1
            h = min(ba[3], bb[3]) - max(ba[1], bb[1]) + 1
            if w <= 0 or h <= 0:
                continue
            small = min((b[2] - b[0] + 1) * (b[3] - b[1] + 1) for b in (ba, bb))
            if w * h > HIDDEN_SHARE * small:
                out.setdefault(ja, set()).add(jb)
                out.setdefault(jb, set()).add(ja)
    return out


def _learn_area(o: Tracked, f: Found) -> None:
    """Update ``o``'s reference area from the unblurred sample ``f``, unless ``f`` shows more than the
    object and its measured streak may (``growth_limit`` x ``ref_area + D * blur``): a blob merged with a
    floor of its colour at an impact is no area noise, and learning it widens the growth bound that
    keeps the next merge out (studio drop seed 1001 under a 10 % pan: 330 px learned for a 168 px ball,
    the bound went 1.34 -> 1.65 and the ball was swapped for a floor stripe after the bounce)."""
    if f.area <= o.growth_limit() * (o.ref_area + o.diam * f.blur):
        o.note_area(f.area)


def _where(case: Case, plan, roi, exclude) -> tuple:
    """``(roi, exclude)`` boxes or polygons (case pixels): the arguments, else the plan's or the case's."""
    roi = roi if roi is not None else getattr(plan, "roi", None) or getattr(case, "roi", None)
    exclude = exclude if exclude is not None else getattr(plan, "exclude", None) or getattr(case, "exclude", None)
    return roi, exclude


def _regions(roi, exclude, sx: float, sy: float) -> Regions:
    """Where objects may be (:func:`_where`'s regions) in tracking px."""

    def conv(b):
        if is_box(b):
            return (b[0] / sx, b[1] / sy, (b[2] + 1) / sx, (b[3] + 1) / sy)
        return np.asarray(b, float).reshape(-1, 2) / (sx, sy)

    return Regions(conv(roi) if roi is not None else None, tuple(conv(b) for b in exclude or ()))


def _working_side(case: Case, plan) -> int | None:
    """Longest side to track at: ``plan.max_side``, raised so that the smallest boxed object keeps
    :data:`MIN_OBJECT_PX` px across (frames are never upscaled, so this is capped by the video)."""
    sides = [min(o.box[2] - o.box[0], o.box[3] - o.box[1]) for o in case.objects if o.box is not None]
    if not plan.max_side or not sides:
        return plan.max_side
    need = int(np.ceil(max(case.width, case.height) * MIN_OBJECT_PX / max(min(sides), 1.0)))
    return max(plan.max_side, need)


def track(video_path: str | Path, case: Case, plan=None, min_frames: int = 0, roi=None, exclude=None,
          probes=(), movers=()) -> Tracks:
    """Track ``case.objects`` through ``video_path``; see the module docstring.

    Returns :class:`~lawful.tracks.Tracks` in case pixels with ``t = frame * duration / n``
    (``n`` decoded frames; a variable-frame-rate file is timed by its own timestamps, rescaled to
    ``duration``: ``meta['timing']``, see :func:`lawful.timing.clip_times`). ``meta`` holds ``n_frames``, ``video_fps``, ``video_size``,
    ``track_size``, ``camera`` (motion summary), ``groups`` (objects of one colour), per-object
    ``thresholds`` and ``timing_s`` (wall seconds: ``total``; ``open``: the file opened, the decoder started;
    ``setup``: the first frame's colour models; ``decode``: waiting for frames; ``camera``: its estimation, decision
    and transforms; ``regions``; ``objects``: finding them in every later frame; ``finish``: the tracks built, the
    frames' timestamps read).
    Raises :class:`~lawful.video.VideoError` (unreadable, or the file says it has fewer than
    ``min_frames`` frames) or :class:`ObjectNotFound`. ``roi`` (a box) and ``exclude`` (boxes),
    case pixels ``[x0, y0, x1, y1]``: blobs outside the roi or inside an excluded box are never
    taken (default: the plan's or the case's ``roi`` / ``exclude`` where they exist). ``probes``:
    :class:`~lawful.perceive.regions.Probe` s read in the same pass (``tracks.regions``, first-frame
    case pixels, through the camera compensation when it is used; ``timing_s['regions']``); a ``blobs`` probe's
    region is kept out of the camera's estimates, as the objects' boxes are (what it reads moves on its own),
    but not out of its still test; ``movers`` (regions, case pixels of the first frame: what the task knows moves
    there untracked, :meth:`lawful.suites.base.Task.movers`) are kept out in the same way.
    """
    frame_sized_heap()  # frames made on one thread and freed on another: keep their memory (lawful.memory)
    with opencv_threads(1):  # the decoding and tracking threads are OpenCV's callers (lawful.threads)
        return _track(video_path, case, plan, min_frames, roi, exclude, probes, movers)


def _track(video_path, case: Case, plan, min_frames: int, roi, exclude, probes, movers) -> Tracks:
    """:func:`track`, in one thread's use of OpenCV."""
    from lawful.perceive.regions import Reader
    from lawful.perceive.plan import TrackingPlan

    plan = plan or TrackingPlan()
    every = max(1, int(plan.every))
    t_start = time.perf_counter()
    max_side = _working_side(case, plan)
    span = clip_span(case, video_path)
    stamps = Stamps()
    info, frames_in = open_frames(video_path, every=every, max_side=max_side, prefetch=PREFETCH, span=span, stamps=stamps)
    if info.n_frames < min_frames:
        frames_in.close()
        raise VideoError(f"{Path(video_path).name}: only {info.n_frames} frames (need ≥ {min_frames})")
    frames_idx: list[int] = []
    rows: list[list[Found | None]] = []
    objs: list[Tracked] = []
    groups: list[list[Tracked]] = []
    roi, exclude = _where(case, plan, roi, exclude)
    # the case's word on the camera wins: fixed (never compensate), moving (whenever reliable), auto (decide)
    # what a blobs probe reads (bubbles, drops, ice) moves and changes on its own, as a tracked object does: its
    # region is kept out of the camera's estimates (not of its still test, which such motion can only fail)
    motion = (cam.CameraMotion(min_shift=0.0 if case.camera == "moving" else STATIC_SHIFT_PX, exclude=exclude,
                               exclude_size=(case.width, case.height),
                               movers=[p.region for p in probes if p.kind == "blobs"] + list(movers))
              if plan.compensate_camera and case.camera != "fixed" else None)
    size = prev = reader = None
    t_decode = t_camera = t_regions = t_setup = 0.0
    t_open = time.perf_counter() - t_start
    with closing(frames_in):  # stops the decoding thread, also when an object is not found
        while True:
            t0 = time.perf_counter()
            item = next(frames_in, None)
            t_decode += time.perf_counter() - t0
            if item is None:
                break
            idx, frame = item
            if size is None:
                t0 = time.perf_counter()
                h, w = frame.shape[:2]
                size = (w, h)
                first = FrameFeatures(frame)
                objs = learn_objects(first, frame, case, case.width / w, case.height / h)
                n_real = len(objs)
                objs += lookalikes(objs, first)
                groups = colour_groups(objs)
                regions = _regions(roi, exclude, case.width / w, case.height / h)
                if probes:
                    reader = Reader(probes, size, case.width / w, case.height / h, margin=motion is not None)
                t_setup = time.perf_counter() - t0
            if reader is not None:
                t0 = time.perf_counter()
                reader.add(frame)
                t_regions += time.perf_counter() - t0
            seen, boxes, retract = _step_frame(objs, groups, frame, plan.angles, not frames_idx, regions, prev)
            for j in retract:
                rows[-1][j] = None
            prev = frame
            if motion is not None:
                t0 = time.perf_counter()
                motion.update(frame, boxes + [o.ghost_box() for o in objs if o.lost])
                t_camera += time.perf_counter() - t0
            frames_idx.append(idx)
            rows.append(seen)
    if size is None:
        raise VideoError(f"{video_path}: no decodable frames")
    objects = time.perf_counter() - t_start - t_open - t_setup - t_decode - t_camera - t_regions
    read = {}
    if reader is not None:
        t0 = time.perf_counter()
        read = reader.read(motion.transforms if motion is not None else None)  # identity unless compensated
        t_regions += time.perf_counter() - t0

    T = len(frames_idx)
    decoys = [o.spec.id for o in objs[n_real:]]
    rows = [row[:n_real] for row in rows]  # look-alikes were tracked only to compete for their blobs
    objs = objs[:n_real]
    groups = [[o for o in g if o.j < n_real] for g in groups]
    nan = float("nan")
    xy = np.array([[f.xy if f else (nan, nan) for f in row] for row in rows], float).reshape(T, len(objs), 2)
    box = np.array([[f.box if f else (nan,) * 4 for f in row] for row in rows], float).reshape(T, len(objs), 4)
    area = np.array([[f.area if f else 0.0 for f in row] for row in rows], float)
    vis = np.array([[f is not None for f in row] for row in rows], bool)
    ang = np.array([[f.angle if f else nan for f in row] for row in rows], float)
    camera_meta: dict = {"compensated": False}
    if motion is not None:
        t0 = time.perf_counter()
        summary = motion.summary()
        camera_meta = {"compensated": bool(summary.get("used", False)), **summary}
        if camera_meta["compensated"]:  # else the transforms are identity: motion within its uncertainty or unreliable
            for i, A in enumerate(motion.transforms):
                xy[i], box[i], area[i], ang[i] = _to_frame0(A, xy[i], box[i], area[i], ang[i])
        if camera_meta.get("until") is not None:  # the camera was lost after this sample: where things were is unknown
            cut = int(camera_meta["until"]) + 1
            xy[cut:], box[cut:], area[cut:], ang[cut:], vis[cut:] = nan, nan, 0.0, nan, False
            for series in read.values():  # (no reading: ok false, values NaN)
                series.ok[cut:] = False
                for v in series.values.values():
                    v[cut:] = nan
        t_camera += time.perf_counter() - t0
    # tracking pixels -> case pixels
    w, h = size
    sx, sy = case.width / w, case.height / h
    xy[..., 0] = (xy[..., 0] + 0.5) * sx - 0.5
    xy[..., 1] = (xy[..., 1] + 0.5) * sy - 0.5
    box[..., 0], box[..., 1] = box[..., 0] * sx, box[..., 1] * sy
    box[..., 2], box[..., 3] = (box[..., 2] + 1) * sx - 1, (box[..., 3] + 1) * sy - 1
    area = area * sx * sy

    n_decoded = frames_idx[-1] + 1
    if every > 1 and frames_idx[-1] < info.n_frames <= frames_idx[-1] + every:
        n_decoded = info.n_frames
    frames = np.array(frames_idx, int)
    if case.capture_fps:  # the true capture rate: time is frame / capture_fps (slow motion, any container rate)
        duration = n_decoded / case.capture_fps
        clip_t, timing = np.arange(n_decoded) / case.capture_fps, {"vfr": None, "capture_fps": case.capture_fps}
    else:  # the time rule; a variable-rate file by its own timestamps
        duration = case.duration
        ts = stamps.times(video_path)  # (gathered or read while decoding)
        if ts is not None and span != Span():
            ts = ts[span.first:span.first + n_decoded]
        clip_t, timing = clip_times(n_decoded, duration, ts)
    if span != Span():
        timing["window_frames"] = [span.first, span.first + n_decoded - 1]
    if case.release is not None:
        timing["release_s"] = case.release
    tracks = Tracks.empty([o.spec.id for o in objs], T, fps=n_decoded / duration / every)
    tracks.frames = frames
    tracks.t = clip_t[frames]
    tracks.xy, tracks.box, tracks.area, tracks.visible, tracks.angle = xy, box, area, vis, ang
    tracks.regions = read
    tracks.meta = {
        "n_frames": n_decoded,
        "samples": T,
        "every": every,
        "video_fps": info.fps,
        "video_size": [info.width, info.height],
        "track_size": [w, h],
        "camera": camera_meta,
        "timing": timing,
        "thresholds": {o.spec.id: round(o.model.threshold, 2) for o in objs},
        "groups": [[o.spec.id for o in g] for g in groups if g],
        "lookalikes": len(decoys),
    }
    total = time.perf_counter() - t_start
    finish = total - t_open - t_setup - t_decode - objects - t_camera - t_regions  # the rest: the parts add up to total
    tracks.meta["timing_s"] = {k: round(v, 3) for k, v in (
        ("total", total), ("open", t_open), ("setup", t_setup), ("decode", t_decode), ("objects", objects),
        ("camera", t_camera), ("regions", t_regions), ("finish", finish))}
    return tracks


def clip_span(case: Case, video_path: str | Path) -> Span:
    """The frames of ``video_path`` the case evaluates (its ``window``) and how to turn them (``rotation``)."""
    first, last = 0, None
    if case.window is not None:
        fps = probe(video_path).fps if case.window.unit == "s" else 1.0
        first, last = case.window.frames(fps)
    return Span(first, last, case.rotation)


def _to_frame0(A: np.ndarray, xy: np.ndarray, box: np.ndarray, area: np.ndarray, ang: np.ndarray):
    """Map one sample's centroids ``[N, 2]``, boxes ``[N, 4]``, areas, angles into frame-0 pixels."""
    xy = cam.apply(A, xy)
    corners = np.stack([box[:, [0, 1]], box[:, [2, 1]], box[:, [0, 3]], box[:, [2, 3]]], 1)  # [N, 4, 2]
    c = cam.apply(A, corners)
    box = np.concatenate([c.min(1), c.max(1)], 1)
    s = cam.scale_of(A)
    return xy, box, area * s * s, ang + cam.rotation_of(A)
