"""Track the case's objects through a video: colour masks, association, camera compensation.

:func:`track` streams frames (``lawful.video.iter_frames``, downscaled to ``plan.max_side``,
decoded ahead in a background thread), learns each object's colour from the video's own first
frame inside its case box (or near its case colour), and per frame:

0. keeps the last measurement of an object at rest whose surroundings have not changed
   (no pixel by more than :data:`STILL_LEVELS`): bit-exact static regions are common in
   compressed video and cost one comparison;
1. segments each colour group (objects of indistinguishable colour share a group) inside a
   search window around the constant-velocity prediction (the whole frame once lost;
   wider when the blob found touches the window's edge);
2. turns the mask into connected components and assigns them to the group's objects by
   predicted position and area consistency (``scipy.optimize.linear_sum_assignment``);
   fragments of the same object (split by a marker stripe) are merged back;
3. records centroid, box, area (convex hull of the object's pixels for convex shapes) and,
   when asked, the angle of a contrasting marker;
4. optionally estimates camera motion (:mod:`lawful.perceive.camera`).

Objects that are lost, merged with a same-coloured twin, or cut by the frame border (less than
85% of their usual area visible) are ``visible=False`` with NaN positions: positions are never
invented. Output coordinates are first-frame case pixels (``case.width x case.height``, pixel
centres at integers), whatever the video's resolution.
"""

from __future__ import annotations

import math
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from lawful.case import Case, ObjectSpec
from lawful.perceive import camera as cam
from lawful.perceive.segment import (
    ColorModel,
    FrameFeatures,
    NotFound,
    background_sample,
    brightness,
    components,
    fill_holes,
    find_by_color,
    hint_tolerance,
    learn_from_box,
    rgb_to_features,
    to_features,
)
from lawful.tracks import Tracks
from lawful.video import VideoError, open_frames

_K3 = np.ones((3, 3), np.uint8)
CONVEX_SHAPES = {"sphere", "block", "cylinder", "hollow_cylinder", "cone", "bob"}
COAST_FRAMES = 4  # frames an unseen object is predicted forward before a whole-frame search
BORDER_CUT = 0.85  # a component touching the border with less than this share of its area is not visible
MARKER_CONTRAST = 1.35  # brightness factor that sets a marker stripe apart from its body
PREFETCH = 8  # frames decoded ahead in a background thread
_FAR = 1e6  # cost of a blob an object may not take
_LOG3, _LOG4 = math.log(3.0), math.log(4.0)
REST_PX = 0.5  # |vx| + |vy| (px per sample) under which an object may be at rest
STILL_LEVELS = 8  # largest change of any pixel (0-255) around an object at rest that counts as none
MAX_GROW = 9.0  # widest window margin tried, relative to the first
# search-window margin past the predicted box: 4 px + these shares of the object's size and of its step
WINDOW_MARGIN, STEP_SHARE = 0.1, 0.5
STATIC_SHIFT_PX = 0.5  # a camera whose estimated shift never exceeds this (tracking px) is static: identity


class ObjectNotFound(Exception):
    """An object of the case cannot be found in the video's first frame."""

    def __init__(self, object_id: str, detail: str = ""):
        self.object_id = object_id
        self.detail = detail
        super().__init__(f"object '{object_id}' not found in the first frame" + (f" ({detail})" if detail else ""))


@dataclass
class _Obj:
    spec: ObjectSpec
    j: int
    model: ColorModel
    convex: bool
    pos: tuple[float, float]  # last seen centroid (tracking px)
    vel: tuple[float, float] = (0.0, 0.0)  # px per sample
    size: tuple[float, float] = (1.0, 1.0)  # bbox width, height
    ref_area: float = 1.0
    lost: int = 0  # samples since last seen
    still: tuple | None = None  # (measurement, crop box, crop pixels) of the last full measurement

    def unchanged(self, frame: np.ndarray) -> "_Found | None":
        """The last measurement, if the object was at rest and no pixel of its surroundings has
        changed by more than :data:`STILL_LEVELS` since (a shift of ~0.1 px at an edge would)."""
        if self.still is None or self.lost or abs(self.vel[0]) + abs(self.vel[1]) > REST_PX:
            return None
        f, (x0, y0, x1, y1), crop = self.still
        return f if cv2.norm(frame[y0:y1, x0:x1], crop, cv2.NORM_INF) <= STILL_LEVELS else None

    def remember(self, f: "_Found | None", frame: np.ndarray) -> None:
        """Keep ``f`` and the pixels around it for :meth:`unchanged`."""
        if f is None or f.cut:
            self.still = None
            return
        h, w = frame.shape[:2]
        x0, y0, x1, y1 = max(0, f.box[0] - 2), max(0, f.box[1] - 2), min(w, f.box[2] + 3), min(h, f.box[3] + 3)
        self.still = (f, (x0, y0, x1, y1), frame[y0:y1, x0:x1].copy())

    def predict(self) -> tuple[float, float]:
        """Where constant velocity puts the object in the coming sample."""
        k = self.lost + 1
        return self.pos[0] + self.vel[0] * k, self.pos[1] + self.vel[1] * k

    def seen_at(self, xy: tuple[float, float], move: bool = True) -> None:
        """Record the object at ``xy`` (``move``: update the velocity from the samples since last seen)."""
        if move:
            k = self.lost + 1
            self.vel = ((xy[0] - self.pos[0]) / k, (xy[1] - self.pos[1]) / k)
        self.pos, self.lost = xy, 0

    def searching(self) -> bool:
        return self.lost > COAST_FRAMES

    def step(self) -> float:
        """Distance (px) the object moved per sample, times the samples since it was seen."""
        vx, vy = self.vel
        return (vx * vx + vy * vy) ** 0.5 * (self.lost + 1)

    def gate(self) -> float:
        """Association radius (px) around the prediction: a reversal (bounce) misses it by 2 steps."""
        return max(4.0, 0.5 * max(self.size) + 2.0 * self.step())

    def cost(self, x: float, y: float, area: float, diag: float) -> float:
        """Cost of taking the blob at ``(x, y)`` of ``area`` for this object (:data:`_FAR`: not allowed).

        Near the prediction and of about the usual area; a small fragment (split by a marker) is
        allowed when very near. A lost object (searching the whole frame) weighs distance by the
        frame ``diag`` only."""
        px, py = self.predict()
        ratio = abs(math.log(area / self.ref_area))
        d = math.hypot(x - px, y - py)
        if self.searching():
            return d / diag + ratio if ratio < _LOG3 else _FAR
        g = self.gate()
        if (d < 3 * g and ratio < _LOG4) or d < 0.5 * g:
            return d / g + 0.5 * ratio
        return _FAR

    def window(self, w: int, h: int, grow: float = 1.0) -> tuple[int, int, int, int]:
        """Search rectangle (end-exclusive) around the predicted box, with a margin of half a step
        and a tenth of the object's size; an object missed or cut by its edge (a bounce) makes
        :func:`_step_group` retry with a larger ``grow``."""
        cx, cy = self.predict()
        sw, sh = self.size
        margin = grow * (WINDOW_MARGIN * max(sw, sh) + STEP_SHARE * self.step()) + 4
        hx, hy = 0.5 * sw + margin, 0.5 * sh + margin
        return (max(0, int(cx - hx)), max(0, int(cy - hy)), min(w, int(np.ceil(cx + hx)) + 1),
                min(h, int(np.ceil(cy + hy)) + 1))


def _case_box_to_frame(box, sx: float, sy: float, w: int, h: int) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    return (max(0, int(np.floor(x0 / sx))), max(0, int(np.floor(y0 / sy))),
            min(w, int(np.ceil((x1 + 1) / sx))), min(h, int(np.ceil((y1 + 1) / sy))))


def _init_objects(feat: FrameFeatures, case: Case, sx: float, sy: float) -> list[_Obj]:
    """Learn every object's colour model from the first frame (tracking resolution)."""
    h, w = feat.shape[:2]
    boxes: dict[str, tuple[int, int, int, int]] = {}
    for spec in case.objects:
        if spec.box is not None:
            boxes[spec.id] = _case_box_to_frame(spec.box, sx, sy, w, h)
        elif spec.mask is not None and case.resolve(spec.mask).exists():
            m = cv2.imread(str(case.resolve(spec.mask)), cv2.IMREAD_GRAYSCALE)
            ys, xs = np.nonzero(m > 127) if m is not None else ((), ())
            if len(xs):
                boxes[spec.id] = _case_box_to_frame((xs.min(), ys.min(), xs.max(), ys.max()), sx, sy, w, h)
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
        found = find_by_color(feat[:, :], color, count=len(specs), tolerance=tol)
        for spec, b in zip(specs, found):
            boxes[spec.id] = b
        for spec in specs[len(found):]:
            raise ObjectNotFound(spec.id, "no blob of its colour")
    background = background_sample(feat, list(boxes.values()))
    objs = []
    for j, spec in enumerate(case.objects):
        hint = rgb_to_features(spec.color) if spec.color is not None else None
        try:
            got = learn_from_box(feat, boxes[spec.id], background, hint)
        except NotFound as e:
            raise ObjectNotFound(spec.id, str(e)) from None
        x0, y0, x1, y1 = got.bbox
        o = _Obj(spec, j, got.model, spec.shape in CONVEX_SHAPES, (float(got.centroid[0]), float(got.centroid[1])))
        o.size = (float(x1 - x0 + 1), float(y1 - y0 + 1))
        o.ref_area = got.area
        objs.append(o)
    return objs


def _groups(objs: list[_Obj]) -> list[list[_Obj]]:
    """Objects whose colours cannot be told apart share a group (identity then comes from motion)."""
    groups: list[list[_Obj]] = []
    for o in objs:
        for g in groups:
            if any(o.model.similar(p.model) for p in g):
                g.append(o)
                break
        else:
            groups.append([o])
    return groups


@dataclass
class _Found:
    xy: tuple[float, float]
    box: tuple[float, float, float, float]
    area: float
    angle: float
    cut: bool  # touches the frame border with a small share of its usual area
    touches: bool = False  # touches the frame border


def _measure(sub: np.ndarray, feat: np.ndarray, rgb: np.ndarray, origin: tuple[int, int], o: _Obj, angles: bool,
             frame_size: tuple[int, int]) -> _Found | None:
    """Centroid, box, area (and marker angle) of the object pixels ``sub`` (uint8 0/1, cropped
    to the blob's bounding box at ``origin``), whose features are ``feat`` and raw pixels ``rgb``."""
    if o.convex:
        contours, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        hull = cv2.convexHull(contours[0] if len(contours) == 1 else np.concatenate(contours))
        region = np.zeros_like(sub)
        cv2.fillConvexPoly(region, hull, 1)
        region |= sub
    else:
        region = fill_holes(sub)
    m = cv2.moments(region, binaryImage=True)
    if m["m00"] <= 0:
        return None
    cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
    angle = _marker_angle(region, sub, feat, rgb, o.model, cx, cy) if angles else float("nan")
    w, h = frame_size
    x0, y0 = origin
    x1, y1 = x0 + sub.shape[1] - 1, y0 + sub.shape[0] - 1
    touches = x0 <= 0 or y0 <= 0 or x1 >= w - 1 or y1 >= h - 1
    cut = touches and m["m00"] < BORDER_CUT * o.ref_area
    return _Found((cx + x0, cy + y0), (x0, y0, x1, y1), float(m["m00"]), angle, cut, touches)


def _marker_angle(region: np.ndarray, main: np.ndarray, feat: np.ndarray, rgb: np.ndarray, model: ColorModel,
                  cx: float, cy: float) -> float:
    """Direction (radians, image axes: +x right, +y down) from the centroid to the marker's centroid.

    Marker pixels lie inside the object, away from its rim, and are clearly off its body colour:
    a brightness ``max(R, G, B)`` (unblurred, so thin stripes keep their contrast) off the body's
    median by a factor of ~1.35 (a dark or bright stripe of the body's hue; rim shading is kept
    out by a 3 px erosion), or another chroma (deeper inside: chroma is blurred by 4:2:0
    subsampling and compression). A marker centred on the centroid (a diameter stripe) gives
    its axis instead (defined mod pi).
    """
    r = np.sqrt(region.sum() / np.pi)
    e = 2 * max(3, int(round(0.15 * r))) + 1
    inner = cv2.erode(region, np.ones((e, e), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
    if inner.sum() < 10:
        return float("nan")
    v = brightness(rgb).astype(np.float32)
    body = v[inner & (main > 0)]
    if len(body) < 5:
        return float("nan")
    med = float(np.median(body))
    ratio = (v + 16.0) * (1.0 / (med + 16.0))
    marker = inner & ((ratio > MARKER_CONTRAST) | (ratio < 1.0 / MARKER_CONTRAST))
    e = 2 * max(2, int(round(0.2 * r))) + 1
    deep = cv2.erode(region, np.ones((e, e), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
    marker |= deep & (model.distance2(feat) > model.threshold)
    n = int(marker.sum())
    if n < max(3, 0.01 * region.sum()):
        return float("nan")
    ys, xs = np.nonzero(marker)
    dx, dy = xs.mean() - cx, ys.mean() - cy
    if np.hypot(dx, dy) > 0.03 * r:
        return float(np.arctan2(dy, dx))
    xm, ym = xs - xs.mean(), ys - ys.mean()
    return float(0.5 * np.arctan2(2 * (xm * ym).mean(), (xm * xm).mean() - (ym * ym).mean()))


@dataclass
class _Region:
    """One segmented rectangle of a frame: origin, features, component labels, and per label
    ``[x, y, width, height, area]`` and centroid ``[x, y]`` (window px) as lists."""

    x0: int
    y0: int
    feat: np.ndarray
    labels: np.ndarray
    stats: list[list[int]]
    cents: list[list[float]]


def _merge_windows(wins: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Union overlapping rectangles until none overlap (so components are never split or doubled)."""
    out = [list(b) for b in wins]
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    out[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return [tuple(b) for b in out]


def _at_inner_edge(reg: _Region, k: int, w: int, h: int) -> bool:
    """Whether component ``k`` of ``reg`` touches an edge of its window that is not the frame's."""
    x, y, bw, bh = reg.stats[k][:4]
    rh, rw = reg.labels.shape
    return ((x == 0 and reg.x0 > 0) or (y == 0 and reg.y0 > 0)
            or (x + bw == rw and reg.x0 + rw < w) or (y + bh == rh and reg.y0 + rh < h))


def _step_group(group: list[_Obj], frame: np.ndarray, angles: bool, grow: float = 1.0) -> dict[int, _Found | None]:
    """Find the group's objects in ``frame``; returns object index -> measurement (None if not seen).

    Objects are segmented in tight windows around their predictions; when an object is not
    found there, or its blob touches an inner window edge (it may continue outside), the step is
    redone in windows with 3x (then 9x) the margin: a bounce puts an object up to two steps
    from its prediction.
    """
    h, w = frame.shape[:2]
    out: dict[int, _Found | None] = {o.j: None for o in group}
    if any(o.searching() for o in group):
        wins = [(0, 0, w, h)]
    else:
        wins = _merge_windows([o.window(w, h, grow) for o in group])
    regions, cand = [], []  # cand: (region index, label, centroid x, y in frame px, area)
    min_area = max(3.0, 0.05 * min(o.ref_area for o in group))
    for x0, y0, x1, y1 in wins:
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        feat = to_features(frame[y0:y1, x0:x1])
        mask = group[0].model.mask(feat)
        for o in group[1:]:
            mask |= o.model.mask(feat)
        n, labels, stats, cents = components(mask)
        reg = _Region(x0, y0, feat, labels, stats.tolist(), cents.tolist())
        cand.extend((len(regions), k, reg.cents[k][0] + x0, reg.cents[k][1] + y0, float(reg.stats[k][4]))
                    for k in range(1, n) if reg.stats[k][4] >= min_area)
        regions.append(reg)
    can_widen = grow < MAX_GROW and wins != [(0, 0, w, h)]
    if not cand:
        return _step_group(group, frame, angles, grow * 3) if can_widen else out
    diag = float(np.hypot(w, h))
    cost = [[o.cost(cx, cy, a, diag) for _, _, cx, cy, a in cand] for o in group]
    if len(group) == 1:
        c = min(range(len(cand)), key=cost[0].__getitem__)
        taken = {0: c} if cost[0][c] < _FAR else {}
    else:
        rows, cols = linear_sum_assignment(np.array(cost))
        taken = {int(r): int(c) for r, c in zip(rows, cols) if cost[r][c] < _FAR}
    if can_widen and (len(taken) < len(group) or any(_at_inner_edge(regions[cand[c][0]], cand[c][1], w, h)
                                                     for c in taken.values())):
        return _step_group(group, frame, angles, grow * 3)  # missed, or cut by the window: look wider
    free = set(range(len(cand))) - set(taken.values())
    for r, c in taken.items():
        o = group[r]
        ri, k = cand[c][:2]
        reg = regions[ri]
        st = reg.stats
        # merge unassigned fragments of the same region lying within the object's extent
        x, y, bw, bh, ak = st[k]
        ex0, ey0 = x - 0.5 * o.size[0], y - 0.5 * o.size[1]
        ex1, ey1 = x + bw + 0.5 * o.size[0], y + bh + 0.5 * o.size[1]
        keep = [k]
        for cc in sorted(free):
            rj, kk = cand[cc][:2]
            fx, fy = reg.cents[kk]
            if rj == ri and ex0 <= fx <= ex1 and ey0 <= fy <= ey1 and st[kk][4] + ak < 1.5 * o.ref_area:
                keep.append(kk)
        xs0, ys0 = min(st[q][0] for q in keep), min(st[q][1] for q in keep)
        xs1, ys1 = max(st[q][0] + st[q][2] for q in keep), max(st[q][1] + st[q][3] for q in keep)
        lab_c = reg.labels[ys0:ys1, xs0:xs1]
        m = (np.isin(lab_c, keep) if len(keep) > 1 else lab_c == k).view(np.uint8)
        sub = reg.feat[ys0:ys1, xs0:xs1]
        raw = frame[reg.y0 + ys0:reg.y0 + ys1, reg.x0 + xs0:reg.x0 + xs1]
        f = _measure(m, sub, raw, (reg.x0 + xs0, reg.y0 + ys0), o, angles, (w, h))
        out[o.j] = f
        if f is not None and not f.cut:
            inner = cv2.erode(m, _K3, borderType=cv2.BORDER_CONSTANT, borderValue=0)
            n_in = cv2.countNonZero(inner)
            if n_in >= 5:
                o.model.adapt(np.array(cv2.mean(np.ascontiguousarray(sub), mask=inner)[:3], np.float32))
    # same-coloured twins merged into one blob: nobody gets it
    missing = [o for i, o in enumerate(group) if i not in taken]
    if missing:
        for r, c in taken.items():
            ri, k = cand[c][:2]
            reg = regions[ri]
            x, y, bw, bh = reg.stats[k][:4]
            x, y = x + reg.x0, y + reg.y0
            if cand[c][4] > 1.6 * group[r].ref_area or any(
                    x - 2 <= p[0] <= x + bw + 2 and y - 2 <= p[1] <= y + bh + 2
                    for p in (o.predict() for o in missing if not o.searching())):
                out[group[r].j] = None
    return out


def _step_frame(objs: list[_Obj], groups: list[list[_Obj]], frame: np.ndarray, angles: bool, first: bool):
    """Find every object in ``frame`` and update its motion state; returns, per object, its
    measurement in this sample, or None where it is not (wholly) visible."""
    seen: list[_Found | None] = [None] * len(objs)
    found = {}
    for g in groups:
        same = [o.unchanged(frame) for o in g]
        if all(f is not None for f in same):
            found.update((o.j, f) for o, f in zip(g, same))
            continue
        got = _step_group(g, frame, angles)
        for o in g:
            o.remember(got[o.j], frame)
        found.update(got)
    for o in objs:
        f = found.get(o.j)
        if f is None or f.cut:
            if f is not None:  # keep following a partly visible object without recording it
                o.seen_at(f.xy)
            else:
                o.lost += 1
            continue
        o.seen_at(f.xy, move=not first)
        o.size = (f.box[2] - f.box[0] + 1.0, f.box[3] - f.box[1] + 1.0)
        if first:
            o.ref_area = f.area
        elif not f.touches:
            o.ref_area = 0.9 * o.ref_area + 0.1 * f.area
        seen[o.j] = f
    return seen


def track(video_path: str | Path, case: Case, plan=None, min_frames: int = 0) -> Tracks:
    """Track ``case.objects`` through ``video_path``; see the module docstring.

    Returns :class:`~lawful.tracks.Tracks` in case pixels with ``t = frame * duration / n``
    (``n`` decoded frames). ``meta`` holds ``n_frames``, ``video_fps``, ``video_size``,
    ``track_size``, ``camera`` (motion summary), ``groups`` (objects of one colour), per-object
    ``thresholds`` and ``timing_s`` (wall seconds: total, waiting for decode, camera, objects).
    Raises :class:`~lawful.video.VideoError` (unreadable, or the file says it has fewer than
    ``min_frames`` frames) or :class:`ObjectNotFound`.
    """
    from lawful.suites.base import TrackingPlan

    plan = plan or TrackingPlan()
    every = max(1, int(plan.every))
    t_start = time.perf_counter()
    info, frames_in = open_frames(video_path, every=every, max_side=plan.max_side, prefetch=PREFETCH)
    if info.n_frames < min_frames:
        frames_in.close()
        raise VideoError(f"{Path(video_path).name}: only {info.n_frames} frames (need ≥ {min_frames})")
    frames_idx: list[int] = []
    rows: list[list[_Found | None]] = []
    objs: list[_Obj] = []
    groups: list[list[_Obj]] = []
    motion = cam.CameraMotion() if plan.compensate_camera else None
    size = None
    t_decode = t_camera = 0.0
    with closing(frames_in):  # stops the decoding thread, also when an object is not found
        while True:
            t0 = time.perf_counter()
            item = next(frames_in, None)
            t_decode += time.perf_counter() - t0
            if item is None:
                break
            idx, frame = item
            if size is None:
                h, w = frame.shape[:2]
                size = (w, h)
                objs = _init_objects(FrameFeatures(frame), case, case.width / w, case.height / h)
                groups = _groups(objs)
            seen = _step_frame(objs, groups, frame, plan.angles, first=not frames_idx)
            if motion is not None:
                t0 = time.perf_counter()
                motion.update(frame, [f.box for f in seen if f] + [o.window(*size) for o in objs if o.lost])
                t_camera += time.perf_counter() - t0
            frames_idx.append(idx)
            rows.append(seen)
    if size is None:
        raise VideoError(f"{video_path}: no decodable frames")
    elapsed = time.perf_counter() - t_start

    T = len(frames_idx)
    nan = float("nan")
    xy = np.array([[f.xy if f else (nan, nan) for f in row] for row in rows], float).reshape(T, len(objs), 2)
    box = np.array([[f.box if f else (nan,) * 4 for f in row] for row in rows], float).reshape(T, len(objs), 4)
    area = np.array([[f.area if f else 0.0 for f in row] for row in rows], float)
    vis = np.array([[f is not None for f in row] for row in rows], bool)
    ang = np.array([[f.angle if f else nan for f in row] for row in rows], float)
    camera_meta: dict = {"compensated": False}
    if motion is not None:
        summary = motion.summary()
        static = summary.get("max_shift_px", 0.0) <= STATIC_SHIFT_PX
        camera_meta = {"compensated": not static, "static": static, **summary}
        if not static:
            for i, A in enumerate(motion.transforms):
                xy[i], box[i], area[i], ang[i] = _to_frame0(A, xy[i], box[i], area[i], ang[i])
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
    tracks = Tracks.empty([o.spec.id for o in objs], T, fps=n_decoded / case.duration / every)
    tracks.frames = frames
    tracks.t = frames * case.duration / n_decoded
    tracks.xy, tracks.box, tracks.area, tracks.visible, tracks.angle = xy, box, area, vis, ang
    tracks.meta = {
        "n_frames": n_decoded,
        "samples": T,
        "every": every,
        "video_fps": info.fps,
        "video_size": [info.width, info.height],
        "track_size": [w, h],
        "camera": camera_meta,
        "thresholds": {o.spec.id: round(o.model.threshold, 2) for o in objs},
        "groups": [[o.spec.id for o in g] for g in groups],
        "timing_s": {"total": round(elapsed, 3), "decode": round(t_decode, 3), "camera": round(t_camera, 3),
                     "objects": round(elapsed - t_decode - t_camera, 3)},
    }
    return tracks


def _to_frame0(A: np.ndarray, xy: np.ndarray, box: np.ndarray, area: np.ndarray, ang: np.ndarray):
    """Map one sample's centroids ``[N, 2]``, boxes ``[N, 4]``, areas, angles into frame-0 pixels."""
    xy = cam.apply(A, xy)
    corners = np.stack([box[:, [0, 1]], box[:, [2, 1]], box[:, [0, 3]], box[:, [2, 3]]], 1)  # [N, 4, 2]
    c = cam.apply(A, corners)
    box = np.concatenate([c.min(1), c.max(1)], 1)
    s = cam.scale_of(A)
    return xy, box, area * s * s, ang + cam.rotation_of(A)
