"""Track the case's objects through a video: colour masks, association, camera compensation.

:func:`track` streams frames (``lawful.video.iter_frames``, downscaled to ``plan.max_side`` but
never so far that the smallest boxed object drops under :data:`MIN_OBJECT_PX` px, decoded ahead
in a background thread), learns each object's colour from the video's own first frame inside
its case box or mask (or near its case colour), and per frame:

0. keeps the last measurement of an object at rest whose surroundings have not changed
   (:meth:`~lawful.perceive.objects.Tracked.unchanged`);
1. segments each colour group (objects of indistinguishable colour share a group) inside a
   search window around the constant-velocity prediction; a lost object is looked for only
   within the distance it can have travelled (:meth:`~lawful.perceive.objects.Tracked.reach`),
   and only inside the case's ``roi`` / outside its ``exclude`` boxes;
2. assigns components by position and blur-aware area, bounds blobs grown along a string or
   wall, and finds what the colour mask misses (a pale blur streak, a grey object) by contrast
   against the local background (:mod:`lawful.perceive.associate`);
3. records centroid (mid-exposure for a blur streak), box, area and, when asked, the angle of a
   contrasting marker;
4. optionally estimates camera motion (:mod:`lawful.perceive.camera`), keeping the objects' boxes out
   (a lost object's :meth:`~lawful.perceive.objects.Tracked.ghost_box`, not its growing search window).

Objects that are lost, merged with a same-coloured twin, or cut by the frame border (less than
85% of their expected area visible) are ``visible=False`` with NaN positions: positions are
never invented. Output coordinates are first-frame case pixels (``case.width x case.height``,
pixel centres at integers), whatever the video's resolution.
"""

from __future__ import annotations

import time
from contextlib import closing
from pathlib import Path

import cv2
import numpy as np

from lawful.case import Case, ObjectSpec, is_box
from lawful.memory import frame_sized_heap
from lawful.perceive import camera as cam
from lawful.perceive.associate import by_contrast, step_group
from lawful.perceive.objects import Found, Regions, Tracked, moments2, spreads
from lawful.perceive.segment import (
    THRESHOLD_FRACTION,
    FrameFeatures,
    NotFound,
    background_sample,
    components,
    find_by_color,
    hint_tolerance,
    learn_from_box,
    rgb_to_features,
)
from lawful.tracks import Tracks
from lawful.timing import clip_times, frame_timestamps
from lawful.video import Span, VideoError, open_frames, probe

CONVEX_SHAPES = {"sphere", "block", "cylinder", "hollow_cylinder", "cone", "bob"}
PREFETCH = 8  # frames decoded ahead in a background thread
MIN_OBJECT_PX = 12  # the working resolution keeps the smallest object at least this many px across
WEAK_COVERAGE = 0.8  # an object whose colour model holds less of its own pixels is found by contrast
PATCH_SHARE = 0.5  # a background patch this share of an object's diameter across can be taken for (part of) it
OWN_QUANTILE = 0.9  # the colour threshold never drops below this quantile of the object's own pixels
STATIC_SHIFT_PX = 0.5  # tracking px: camera motion below this is not compensated (the tracker's own precision)


class ObjectNotFound(Exception):
    """An object of the case cannot be found in the video's first frame."""

    def __init__(self, object_id: str, detail: str = ""):
        self.object_id = object_id
        self.detail = detail
        super().__init__(f"object '{object_id}' not found in the first frame" + (f" ({detail})" if detail else ""))


def _case_box_to_frame(box, sx: float, sy: float, w: int, h: int) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    return (max(0, int(np.floor(x0 / sx))), max(0, int(np.floor(y0 / sy))),
            min(w, int(np.ceil((x1 + 1) / sx))), min(h, int(np.ceil((y1 + 1) / sy))))


def _read_mask(case: Case, spec: ObjectSpec, w: int, h: int) -> np.ndarray | None:
    """The object's mask PNG (white = object) at tracking resolution ``w x h``, or None."""
    if spec.mask is None or not case.resolve(spec.mask).exists():
        return None
    m = cv2.imread(str(case.resolve(spec.mask)), cv2.IMREAD_GRAYSCALE)
    if m is None or not (m > 127).any():
        return None
    return (cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA) > 127).astype(np.uint8)


def _init_objects(feat: FrameFeatures, rgb: np.ndarray, case: Case, sx: float, sy: float) -> list[Tracked]:
    """Learn every object's colour model from the first frame (tracking resolution); a mask PNG
    seeds the model with its pixels, a box with the blob it holds."""
    h, w = feat.shape[:2]
    boxes: dict[str, tuple[int, int, int, int]] = {}
    masks: dict[str, np.ndarray] = {}
    for spec in case.objects:
        m = _read_mask(case, spec, w, h)
        if m is not None:
            masks[spec.id] = m
            ys, xs = np.nonzero(m)
            boxes[spec.id] = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
        elif spec.box is not None:
            boxes[spec.id] = _case_box_to_frame(spec.box, sx, sy, w, h)
    # colour-only objects: the largest blobs of that colour, assigned left to right
    by_color: dict[tuple, list[ObjectSpec]] = {}
    for spec in case.objects:
        if spec.id not in boxes:
            if spec.color is None:
                raise ObjectNotFound(spec.id, "no box, no colour and no readable mask")
            by_color.setdefault(tuple(spec.color), []).append(spec)
    if by_color:
        everything = background_sample(feat, list(boxes.values()))
    for color, specs in by_color.items():
        # the sample holds these objects too: ignore its nearest 5% (objects are small)
        tol = hint_tolerance(rgb_to_features(color), everything, quantile=0.05)
        found = find_by_color(feat.full, color, count=len(specs), tolerance=tol)
        for spec, b in zip(specs, found):
            boxes[spec.id] = b
        for spec in specs[len(found):]:
            raise ObjectNotFound(spec.id, "no blob of its colour")
    background = background_sample(feat, list(boxes.values()))
    objs = []
    for j, spec in enumerate(case.objects):
        hint = rgb_to_features(spec.color) if spec.color is not None else None
        try:
            got = learn_from_box(feat, boxes[spec.id], background, hint, seed=masks.get(spec.id))
        except NotFound as e:
            raise ObjectNotFound(spec.id, str(e)) from None
        x0, y0, x1, y1 = got.bbox
        o = Tracked(spec, j, got.model, spec.shape in CONVEX_SHAPES, (float(got.centroid[0]), float(got.centroid[1])))
        o.size = (float(x1 - x0 + 1), float(y1 - y0 + 1))
        o.ref_area = got.area
        o.diam = float(min(o.size))
        o.major, o.minor = spreads(got.mask)
        o.own = moments2(got.mask)
        ox, oy = got.origin
        crop = rgb[oy:oy + got.mask.shape[0], ox:ox + got.mask.shape[1]]
        o.rgb = tuple(cv2.mean(np.ascontiguousarray(crop), mask=got.mask)[:3])
        o.weak = got.model.coverage < WEAK_COVERAGE
        if not o.weak:
            _keep_out_patches(o, got, feat, boxes.values())
        objs.append(o)
    return objs


def _keep_out_patches(o: Tracked, got, feat: FrameFeatures, boxes) -> None:
    """Tighten ``o``'s colour threshold so that no background patch of the first frame at least
    :data:`PATCH_SHARE` of its diameter across falls inside it.

    The learned threshold sits past halfway to the colours around the object and to those that cover
    a tenth of the frame; a patch of a near colour elsewhere (a floor tile the object will fall
    onto) may lie inside it, and merge with the object or be taken for it when it is lost at a bounce.
    The nearest such patch is the least, over the frame, of the largest model distance within a
    ``k x k`` window (``k`` = that share of the diameter); objects' boxes, grown by half their size, are
    left out. The same rule as the learned threshold (:data:`THRESHOLD_FRACTION` of the squared
    distance) applies to it, but never below the object's own pixels' spread
    (:data:`OWN_QUANTILE`; a shaded 3-D object spreads widely); a patch within that spread (a
    look-alike of the object's very colour) cannot be kept out by colour, and is left to motion gating
    and look-alike tracking.
    """
    full = feat.full
    h, w = full.shape[:2]
    o.first_d2 = o.model.distance2(full)  # float32; :func:`_decoys` masks it with the final threshold
    d2 = o.first_d2.copy()
    for x0, y0, x1, y1 in boxes:
        px, py = (x1 - x0) // 2 + 1, (y1 - y0) // 2 + 1
        d2[max(0, y0 - py):min(h, y1 + py), max(0, x0 - px):min(w, x1 + px)] = np.float32(1e9)
    k = max(3, int(round(PATCH_SHARE * o.diam)))
    near = float(cv2.dilate(d2, np.ones((k, k), np.uint8)).min())
    ox, oy = got.origin
    own = o.model.distance2(full[oy:oy + got.mask.shape[0], ox:ox + got.mask.shape[1]][got.mask > 0])
    floor = float(np.quantile(own, OWN_QUANTILE)) if own.size else o.model.threshold
    tight = max(THRESHOLD_FRACTION * near, floor)
    if tight < min(near, o.model.threshold):
        o.model.threshold = tight


MAX_DECOYS = 4  # look-alikes followed per object
DECOY_SHAPE = (0.6, 1.6)  # a look-alike's spreads across / along its axis, relative to the object's


def _decoys(objs: list[Tracked], feat: FrameFeatures) -> list[Tracked]:
    """Look-alikes in the first frame: blobs of an object's colour, about its area (0.4-2.5x) and its
    shape (:data:`DECOY_SHAPE`) that belong to no object of the case. Each is followed like an object of the same colour group, so that
    when the object passes or lands beside it, association has a rival and the object's identity
    comes from motion instead of the nearest same-coloured blob. They are left out of the tracks."""
    import copy

    out: list[Tracked] = []
    for o in objs:
        if o.weak:
            continue
        d2, o.first_d2 = o.first_d2, None
        n, labels, stats, cents = components(np.less(d2 if d2 is not None else o.model.distance2(feat.full),
                                                     o.model.threshold).view(np.uint8))
        found = 0
        for k in np.argsort(-stats[1:, 4]) + 1 if n > 1 else []:
            x, y, bw, bh, area = (int(v) for v in stats[k])
            cx, cy = float(cents[k][0]), float(cents[k][1])
            if not 0.4 * o.ref_area <= area <= 2.5 * o.ref_area:
                continue
            major, minor = spreads((labels[y:y + bh, x:x + bw] == k).view(np.uint8))
            if not (DECOY_SHAPE[0] * o.minor <= minor <= DECOY_SHAPE[1] * o.minor and major <= DECOY_SHAPE[1] * o.major):
                continue  # not shaped like the object: a stripe or patch of a surface of its colour
            if any(x - 0.5 * p.size[0] <= p.pos[0] <= x + bw + 0.5 * p.size[0]
                   and y - 0.5 * p.size[1] <= p.pos[1] <= y + bh + 0.5 * p.size[1] for p in objs + out):
                continue  # touches an object of the case (its string, its shadow) or a look-alike already taken
            spec = ObjectSpec(id=f"~lookalike-{len(objs) + len(out)}", shape=o.spec.shape,
                              box=(float(x), float(y), float(x + bw), float(y + bh)))
            d = Tracked(spec, len(objs) + len(out), copy.deepcopy(o.model), o.convex, (cx, cy))
            d.size, d.ref_area, d.diam, d.rgb = (float(bw), float(bh)), float(area), float(min(bw, bh)), o.rgb
            d.major, d.minor, d.own = o.major, o.minor, o.own
            out.append(d)
            found += 1
            if found >= MAX_DECOYS:
                break
    return out


def _groups(objs: list[Tracked]) -> list[list[Tracked]]:
    """Objects whose colours cannot be told apart share a group (identity then comes from
    motion); an object found by contrast (:attr:`Tracked.weak`) is a group of its own."""
    groups: list[list[Tracked]] = []
    for o in objs:
        for g in groups:
            if not o.weak and not g[0].weak and any(o.model.similar(p.model) for p in g):
                g.append(o)
                break
        else:
            groups.append([o])
    return groups


def _step_frame(objs: list[Tracked], groups: list[list[Tracked]], frame: np.ndarray, angles: bool, first: bool,
                regions: Regions, prev: np.ndarray | None = None):
    """Find every object in ``frame`` (``prev``: the previous sample, background for the contrast
    search) and update its motion state; returns, per object, its measurement in this sample,
    or None where it is not (wholly) visible."""
    seen: list[Found | None] = [None] * len(objs)
    found = {}
    for g in groups:
        same = [o.unchanged(frame) for o in g]
        if all(f is not None for f in same):
            found.update((o.j, f) for o, f in zip(g, same))
            continue
        if g[0].weak:
            got = {g[0].j: by_contrast(g[0], frame, regions, prev)}
        else:
            got = step_group(g, frame, angles, regions, prev=prev)
        for o in g:
            o.remember(got[o.j], frame)
        found.update(got)
    for o in objs:
        f = found.get(o.j)
        if f is not None:
            o.last_box = f.box
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
    return seen


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
          probes=()) -> Tracks:
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
    but not out of its still test.
    """
    from lawful.perceive.regions import Reader
    from lawful.perceive.plan import TrackingPlan

    frame_sized_heap()  # frames made on one thread and freed on another: keep their memory (lawful.memory)
    plan = plan or TrackingPlan()
    every = max(1, int(plan.every))
    t_start = time.perf_counter()
    max_side = _working_side(case, plan)
    span = clip_span(case, video_path)
    info, frames_in = open_frames(video_path, every=every, max_side=max_side, prefetch=PREFETCH, span=span)
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
                               movers=[p.region for p in probes if p.kind == "blobs"])
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
                objs = _init_objects(first, frame, case, case.width / w, case.height / h)
                n_real = len(objs)
                objs += _decoys(objs, first)
                groups = _groups(objs)
                regions = _regions(roi, exclude, case.width / w, case.height / h)
                if probes:
                    reader = Reader(probes, size, case.width / w, case.height / h, margin=motion is not None)
                t_setup = time.perf_counter() - t0
            if reader is not None:
                t0 = time.perf_counter()
                reader.add(frame)
                t_regions += time.perf_counter() - t0
            seen = _step_frame(objs, groups, frame, plan.angles, not frames_idx, regions, prev)
            prev = frame
            if motion is not None:
                t0 = time.perf_counter()
                motion.update(frame, [f.box for f in seen if f] + [o.ghost_box() for o in objs if o.lost])
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
        ts = frame_timestamps(video_path)
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
