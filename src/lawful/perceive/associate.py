"""Find a colour group's objects in one frame: segment, associate, bound, measure.

:func:`step_group` segments the group's colour in windows around the objects' predictions,
assigns connected components by predicted position and blur-aware area
(``scipy.optimize.linear_sum_assignment``), merges fragments of one object (split by a marker
stripe) back, and bounds growth: a blob larger than the object and its measured streak allow
(past four times the object's own area spread) may run along a same-coloured string or wall;
it is opened with a kernel a fifth of the object's diameter and only the part nearest the
prediction is kept, or the object is not visible. Blobs much thinner than the object (a floor stripe of its
colour) are no candidates, except for a hoop, whose visible rim may show as thin arcs: those are taken
where the circle through their outline (:func:`lawful.perceive.blob.rim_centre`) pins its centre.
Where the colour mask misses a lone object, :func:`lawful.perceive.contrast.by_contrast` looks for it. A blob
beyond an object's gate, clear of where it was seen in the previous sample, whose pixels have not changed since is
not the object (:func:`_static_far`); nor, once lost, is what the contrast search finds where the pixels have not
changed since its last sighting.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np
from scipy.optimize import linear_sum_assignment

from lawful.perceive.objects import (_FAR, GROWTH, THIN, Found, Regions, Tracked, minor_spread, shade_range,
                                     unchanged_since)
from lawful.perceive.blob import RIM_SHAPES, measure, rim_centre
from lawful.perceive.contrast import _across, by_contrast
from lawful.perceive.segment import components, open_disc, to_features

_K3 = np.ones((3, 3), np.uint8)
MAX_GROW = 9.0  # widest window margin tried, relative to the first
OVERLONG = 1.5  # a blob reaching past this times the object's last size (+2 px and its blur) runs along something


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
    _blobs: dict = field(default_factory=dict)

    def blob(self, k: int) -> np.ndarray:
        """Component ``k`` as a uint8 0/1 mask cropped to its bounding box (made once; not to be written)."""
        m = self._blobs.get(k)
        if m is None:
            x, y, bw, bh = self.stats[k][:4]
            m = self._blobs[k] = (self.labels[y:y + bh, x:x + bw] == k).view(np.uint8)
        return m


def _merge_windows(wins: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Union overlapping rectangles until none overlap (so components are never split or doubled)."""
    if len(wins) < 2:
        return list(wins)
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


def _pieces_of_merged(reg: _Region, group: list[Tracked]) -> list[_Region]:
    """Object-sized pieces cut (:func:`_bounded`) out of blobs too large for any object of the group
    that lie at an object's prediction: an object landing on, or passing in front of, a surface of
    its own colour merges with it, and the merged blob is no candidate by area."""
    out = []
    smallest = GROWTH * min(o.area_range()[1] for o in group)  # no object's piece is cut from a blob under this
    for k in range(1, len(reg.stats)):
        x, y, bw, bh, area = reg.stats[k]
        if area <= smallest:
            continue

        def at(o: Tracked) -> bool:
            px, py = o.predict()
            g = 0.5 * o.gate()
            return reg.x0 + x - g <= px <= reg.x0 + x + bw + g and reg.y0 + y - g <= py <= reg.y0 + y + bh + g

        near = [o for o in group if at(o)]
        if len(near) != 1:
            continue  # same-coloured objects merged with each other: nobody gets a piece (see step_group)
        o = near[0]
        if area <= GROWTH * o.area_range()[1]:
            continue
        got = _bounded(reg.blob(k), (reg.x0 + x, reg.y0 + y), o)
        if got is None:
            continue
        m, (ox, oy) = got
        mo = cv2.moments(m, binaryImage=True)
        ph, pw = m.shape
        feat = reg.feat[oy - reg.y0:oy - reg.y0 + ph, ox - reg.x0:ox - reg.x0 + pw]
        out.append(_Region(ox, oy, feat, m.astype(np.int32), [[0, 0, 0, 0, 0], [0, 0, pw, ph, int(mo["m00"])]],
                           [[0.0, 0.0], [mo["m10"] / mo["m00"], mo["m01"] / mo["m00"]]]))
    return out


def _thin(reg: _Region, k: int, limit: float, w: int, h: int) -> bool:
    """Whether component ``k`` of ``reg`` is thinner (:func:`minor_spread`) than ``limit`` px and does
    not touch the frame border (where the object may be cut): a stripe of a floor or backdrop of the
    object's colour, never the whole object, however near the prediction."""
    x, y, bw, bh = reg.stats[k][:4]
    if limit <= 0:
        return False
    gx, gy = reg.x0 + x, reg.y0 + y
    if gx <= 0 or gy <= 0 or gx + bw >= w or gy + bh >= h:
        return False
    return minor_spread(reg.blob(k)) < limit


def _at_inner_edge(reg: _Region, k: int, w: int, h: int) -> bool:
    """Whether component ``k`` of ``reg`` touches an edge of its window that is not the frame's."""
    x, y, bw, bh = reg.stats[k][:4]
    rh, rw = reg.labels.shape
    return ((x == 0 and reg.x0 > 0) or (y == 0 and reg.y0 > 0)
            or (x + bw == rw and reg.x0 + rw < w) or (y + bh == rh and reg.y0 + rh < h))


def _overlong(m: np.ndarray, o: Tracked) -> bool:
    """Whether blob ``m`` reaches farther than the object can: past :data:`OVERLONG` times its last size on
    either side, plus 2 px and the longest blur its speed allows (studio P16 seed 5001: an orange bead on an
    orange rod took 3x its length of rod in 7 samples, 20 px off, with 50 % more colour pixels)."""
    pad = 2.0 + o.blur_range()[1]
    return m.shape[1] > OVERLONG * o.size[0] + pad or m.shape[0] > OVERLONG * o.size[1] + pad


def _bounded(m: np.ndarray, origin: tuple[int, int], o: Tracked) -> tuple[np.ndarray, tuple[int, int]] | None:
    """The part of an oversized blob ``m`` (uint8 0/1 at ``origin``) that can be the object: an
    opening with a disc a fifth of its diameter cuts strings and thin runs; the opened component
    nearest the prediction is kept if its area is one the object may have, else None."""
    n, labels, stats, cents = components(open_disc(m, max(1, int(round(0.2 * o.diam)))))
    if n <= 1:
        return None
    px, py = o.predict()
    d = np.hypot(cents[1:, 0] + origin[0] - px, cents[1:, 1] + origin[1] - py)
    k = 1 + int(np.argmin(d))
    if stats[k, 4] > GROWTH * o.area_range()[1] or d[k - 1] > o.reach():
        return None  # still a wall, not an object
    x, y, bw, bh = stats[k, :4]
    return (labels[y:y + bh, x:x + bw] == k).view(np.uint8), (origin[0] + x, origin[1] + y)


def step_group(group: list[Tracked], frame: np.ndarray, angles: bool, regions: Regions,
               grow: float = 1.0, prev: np.ndarray | None = None) -> dict[int, Found | None]:
    """Find the group's objects in ``frame``; returns object index -> measurement (None if not seen).

    Objects are segmented in windows around their predictions (a lost object's covers its reach);
    when an object is not found there, or its blob touches an inner window edge (it may continue
    outside), the step is redone with 3x (then 9x) the margin: a bounce puts an object up to two
    steps from its prediction. Blobs outside ``regions`` are ignored.
    """
    h, w = frame.shape[:2]
    out: dict[int, Found | None] = {o.j: None for o in group}
    wins = _merge_windows([o.window(w, h, grow) for o in group])
    segmented, cand = [], []  # cand: (region index, label, centroid x, y in frame px, area)
    strips: list[tuple[int, int]] = []  # thin components (region index, label): never the object, maybe a piece of it
    min_area = max(3.0, 0.05 * min(o.ref_area for o in group))
    thin = THIN * min(o.minor for o in group)
    # a hoop's visible part is its rim, which shows as arcs as thin as the rim where part of it is hidden or off its
    # colour: thin blobs are candidates, taken where the circle through their outline pins the hoop (below)
    rim = any(getattr(o.spec, "shape", None) in RIM_SHAPES for o in group)
    for x0, y0, x1, y1 in wins:
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        feat = to_features(frame[y0:y1, x0:x1])
        mask = group[0].model.mask(feat)
        for o in group[1:]:
            mask |= o.model.mask(feat)
        n, labels, stats, cents = components(mask)
        reg = _Region(x0, y0, feat, labels, stats.tolist(), cents.tolist())
        anywhere = regions.empty
        for k in range(1, n):
            area = reg.stats[k][4]
            if area < min_area:
                continue
            cx, cy = reg.cents[k][0] + x0, reg.cents[k][1] + y0
            if anywhere or regions.allows(cx, cy):
                if rim or not _thin(reg, k, thin, w, h):
                    cand.append((len(segmented), k, cx, cy, float(area)))
                else:
                    strips.append((len(segmented), k))
        segmented.append(reg)
        for piece in _pieces_of_merged(reg, group):
            cand.append((len(segmented), 1, piece.cents[1][0] + piece.x0, piece.cents[1][1] + piece.y0,
                         float(piece.stats[1][4])))
            segmented.append(piece)
    can_widen = grow < MAX_GROW and any(not o.lost for o in group) and wins != [(0, 0, w, h)]
    if not cand:
        if can_widen:
            return step_group(group, frame, angles, regions, grow * 3, prev)
        return _contrast_fill(group, frame, regions, out, prev)
    cost = [o.costs([c[2:] for c in cand]) for o in group]
    if prev is not None:
        _static_far(group, cand, segmented, cost, frame, prev)
    if len(group) == 1:
        c = min(range(len(cand)), key=cost[0].__getitem__)
        taken = {0: c} if cost[0][c] < _FAR else {}
    else:
        rows, cols = linear_sum_assignment(np.array(cost))
        taken = {int(r): int(c) for r, c in zip(rows, cols) if cost[r][c] < _FAR}
    if can_widen and (len(taken) < len(group) or any(_at_inner_edge(segmented[cand[c][0]], cand[c][1], w, h)
                                                     for c in taken.values())):
        return step_group(group, frame, angles, regions, grow * 3, prev)  # missed, or cut by the window: look wider
    free = set(range(len(cand))) - set(taken.values())
    for r, c in taken.items():
        o = group[r]
        ri, k = cand[c][:2]
        reg = segmented[ri]
        st = reg.stats
        # merge unassigned fragments of the same region that keep the union within the object's size; a thin one
        # too (a shadow band across a block leaves a strip of its colour above it: without it the centroid sinks)
        x, y, bw, bh, ak = st[k]
        keep = [k]
        for rj, kk in [cand[cc][:2] for cc in sorted(free)] + strips:
            if rj != ri:
                continue
            fx, fy, fw, fh, fa = st[kk]
            ux = max(x + bw, fx + fw) - min(x, fx)
            uy = max(y + bh, fy + fh) - min(y, fy)
            if o.holds(ux, uy) and fa + ak < 1.5 * o.expected_area():
                keep.append(kk)
        if len(keep) > 1:
            xs0, ys0 = min(st[q][0] for q in keep), min(st[q][1] for q in keep)
            xs1, ys1 = max(st[q][0] + st[q][2] for q in keep), max(st[q][1] + st[q][3] for q in keep)
            m = np.isin(reg.labels[ys0:ys1, xs0:xs1], keep).view(np.uint8)
        else:
            xs0, ys0 = x, y
            m = reg.blob(k)
        origin = (reg.x0 + xs0, reg.y0 + ys0)
        sub = reg.feat[origin[1] - reg.y0:origin[1] - reg.y0 + m.shape[0], origin[0] - reg.x0:origin[0] - reg.x0 + m.shape[1]]
        raw = frame[origin[1]:origin[1] + m.shape[0], origin[0]:origin[0] + m.shape[1]]
        f = measure(m, sub, raw, origin, o, angles, (w, h), frame)
        expected = o.ref_area + o.diam * min(f.blur, o.blur_range()[1]) if f is not None else 0.0
        # grown along a string or a wall? Judged on the colour pixels: the measured area fills a convex
        # object's hull, and a marker stripe notching the rim would count as growth; or reaching along a thin
        # support of its colour, which adds little area but drags the centroid (a bead on a rod of its colour)
        grown = f is not None and cv2.countNonZero(m) > o.growth_limit() * expected
        if f is not None and (grown or _overlong(m, o)):
            got = _bounded(m, origin, o)
            if got is None:
                if grown and f.area > GROWTH * expected:
                    continue
                got = m, origin  # within what the object's own area noise allows: keep it
            m, origin = got
            sub = reg.feat[origin[1] - reg.y0:origin[1] - reg.y0 + m.shape[0], origin[0] - reg.x0:origin[0] - reg.x0 + m.shape[1]]
            raw = frame[origin[1]:origin[1] + m.shape[0], origin[0]:origin[0] + m.shape[1]]
            f = measure(m, sub, raw, origin, o, angles, (w, h), frame)
        if f is not None and rim and not f.touches and minor_spread(m) < thin and rim_centre(m, o.diam) is None:
            f = None  # an arc whose outline does not pin a circle: its centroid lies up to a radius off the hoop's centre
        if (f is not None and len(group) == 1 and o.speed() > 0.5 * o.diam
                and (f.blur > 0.5 * o.diam or f.area < 0.5 * o.ref_area)):
            # a motion-blur streak: its colour core is not its mid-exposure point; the share-weighted
            # centroid of the whole (pale) streak is
            g = by_contrast(o, frame, regions, prev, _across(m, origin, o.vel))
            if g is not None and math.hypot(g.xy[0] - f.xy[0], g.xy[1] - f.xy[1]) < o.diam + g.blur:
                f = g
        out[o.j] = f
        if f is not None and not f.cut and f.blur < 0.5 * o.diam:
            if o.rgb is not None and o.shade is None:
                o.shade = shade_range(raw[m > 0], o.rgb)
            inner = cv2.erode(m, _K3, borderType=cv2.BORDER_CONSTANT, borderValue=0)
            if cv2.countNonZero(inner) >= 5:
                o.model.adapt(np.array(cv2.mean(np.ascontiguousarray(sub), mask=inner)[:3], np.float32))
                if o.rgb is not None:
                    (r, g, b), (sr, sg, sb, _) = o.rgb, cv2.mean(np.ascontiguousarray(raw), mask=inner)
                    o.rgb = (0.95 * r + 0.05 * sr, 0.95 * g + 0.05 * sg, 0.95 * b + 0.05 * sb)
    # same-coloured twins merged into one blob: nobody gets it
    missing = [o for i, o in enumerate(group) if i not in taken]
    if missing:
        for r, c in taken.items():
            ri, k = cand[c][:2]
            reg = segmented[ri]
            x, y, bw, bh = reg.stats[k][:4]
            x, y = x + reg.x0, y + reg.y0
            if cand[c][4] > 1.6 * group[r].expected_area() or any(
                    x - 2 <= p[0] <= x + bw + 2 and y - 2 <= p[1] <= y + bh + 2
                    for p in (o.predict() for o in missing)):
                out[group[r].j] = None
        return out
    return _contrast_fill(group, frame, regions, out, prev)


def _static_far(group: list[Tracked], cand: list[tuple], segmented: list[_Region], cost: list[list[float]],
                frame: np.ndarray, prev: np.ndarray) -> None:
    """Rule out (cost ``_FAR``, in place) a blob beyond an object's gate, clear of where it was last seen, whose
    pixels are those of the previous sample (:func:`lawful.perceive.objects.unchanged_since`): the object was seen
    elsewhere then, and what stood still here was something else (a ghost of it that a starved codec left on the
    background: studio Principia projectile seed 7900 under CRF 35 took one 5 steps behind its prediction and
    followed it for the rest of the clip). Not for a lost object: it may have arrived anywhere within its reach
    unseen, and a faint blob of it under codec noise reads as unchanged since its last sighting as often as not
    (studio Principia drop seed 7001 under CRF 35: the ball's first sample after its impact)."""
    for r, o in enumerate(group):
        if o.lost:
            continue
        px, py = o.predict()
        g = o.gate()
        for c, (ri, k, cx, cy, _) in enumerate(cand):
            if cost[r][c] >= _FAR or math.hypot(cx - px, cy - py) <= g:
                continue
            reg = segmented[ri]
            x, y, bw, bh = reg.stats[k][:4]
            x, y = x + reg.x0, y + reg.y0
            # (overlapping where it was, it may have moved a little)
            if o.clear_of_last(x, y, x + bw - 1, y + bh - 1) and unchanged_since(frame, prev, x, y, reg.blob(k)):
                cost[r][c] = _FAR


def _contrast_fill(group: list[Tracked], frame: np.ndarray, regions: Regions, out: dict[int, Found | None],
                   prev: np.ndarray | None) -> dict[int, Found | None]:
    """Look for a lone object the colour mask missed with :func:`by_contrast`."""
    if len(group) == 1 and out[group[0].j] is None:
        out[group[0].j] = by_contrast(group[0], frame, regions, prev)
    return out
