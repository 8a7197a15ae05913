"""What each probe kind reads from its region's pixels (:mod:`lawful.perceive.regions` documents the kinds and
re-exports :class:`Probe`): the first frame's media or background (:func:`_learn`), the selection, and one reader
per kind (:data:`READ`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np

from lawful.perceive.beam import beam_selections, is_beam, surfaces
from lawful.perceive.fit import fit_arc, fit_circle
from lawful.perceive.lines import MIN_PIXELS, fit_line

Kind = Literal["level", "brightness", "line", "blobs", "profile"]
KINDS = ("level", "brightness", "line", "blobs", "profile")


@dataclass(frozen=True)
class Probe:
    """One region reading a task asks for. ``region``: box ``(x0, y0, x1, y1)`` or polygon ``[(x, y), …]``
    in case pixels of the first frame. ``color`` / ``above``: RGB of what is read (see :mod:`lawful.perceive.regions`)."""

    name: str
    kind: Kind
    region: tuple
    color: tuple[int, int, int] | None = None
    above: tuple[int, int, int] | None = None
    select: Literal["color", "darker", "brighter"] = "color"
    count: int = 1
    learn: Literal["first", "each"] = "first"
    fit: Literal["outline", "pixels", "none"] = "outline"
    thin: float | None = None  # line, a beam: its band at most this share of its length wide (beam.is_beam), else not read
    edges: Literal["pixel", "subpixel"] = "pixel"  # blobs: extents at pixel edges, or sub-pixel (_subpixel_extents)
    pick: Literal["largest", "walls"] = "largest"  # blobs: the count largest, or a wall each side (_wall_blobs)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"probe '{self.name}': unknown kind '{self.kind}' (choices: {', '.join(KINDS)})")
        if self.pick == "walls" and (self.kind != "blobs" or self.count != 2):
            raise ValueError(f"probe '{self.name}': pick='walls' reads two blobs (kind='blobs', count=2)")
        if self.kind in ("line", "blobs", "profile") and self.select == "color" and self.color is None:
            raise ValueError(f"probe '{self.name}': select='color' needs a color")

    def box(self) -> tuple[float, float, float, float]:
        """The region's bounding box in case pixels."""
        if len(self.region) == 4 and np.ndim(self.region[0]) == 0:
            return tuple(float(v) for v in self.region)
        p = np.asarray(self.region, float).reshape(-1, 2)
        return (float(p[:, 0].min()), float(p[:, 1].min()), float(p[:, 0].max()), float(p[:, 1].max()))


K_SELECT = 4.0  # robust background sds a darker/brighter pixel must depart by
BAND_SHARE = 0.2  # a level's row whose share of the lower medium is within this of 0 or 1 is that medium, not the band


def _lab(rgb: np.ndarray) -> np.ndarray:
    """CIE Lab of RGB 0–255 pixels (any leading shape, uint8 or float) converted as one image row, OpenCV's
    vectorised path: a pixel at a time gives the same values (all 2^24 uint8 colours and 166M float pixels of
    warped clips and uniform noise compared; only NaN pixels differ, and no reading uses them)."""
    a = np.asarray(rgb, np.float32) / 255.0
    return cv2.cvtColor(a.reshape(1, -1, 3), cv2.COLOR_RGB2Lab).reshape(a.shape) if a.size else a


def _luma(img: np.ndarray) -> np.ndarray:
    return img @ np.array([0.299, 0.587, 0.114], np.float32)


def _learn(p: Probe, img: np.ndarray, m: np.ndarray, lab: np.ndarray | None = None) -> dict:
    """What the first frame's pixels ``m`` (finite ones) say about the region: the media's colours (level), the
    background (selection; ``lab``: the region's Lab where already converted, the same numbers)."""
    if p.kind == "level":
        rows = np.flatnonzero(m.any(1))
        k = max(1, len(rows) * 15 // 100)
        top, bot = rows[:k], rows[-k:]
        above = np.asarray(p.above, float) if p.above is not None else np.median(img[top][m[top]], 0)
        below = np.asarray(p.color, float) if p.color is not None else np.median(img[bot][m[bot]], 0)
        contrast = float(np.linalg.norm(_lab(np.asarray(below, np.float32)) - _lab(np.asarray(above, np.float32))))
        return {"above": above, "below": below, "contrast": contrast}
    if p.kind in ("brightness",):
        return {}
    px = img[m]
    if p.select == "color":
        lab = _lab(px) if lab is None else lab[m]
        target = _lab(np.asarray(p.color, np.float32))
        d = np.linalg.norm(lab - target, axis=1)
        far = d > np.quantile(d, 0.5) if len(d) else d.astype(bool)
        bg = _lab(np.median(px[far], 0).astype(np.float32)) if far.any() else target + 50
        out = {"target": target, "background_lab": bg, "background": np.median(px[far], 0) if far.any() else bg}
        if p.kind == "line" and p.thin is not None:
            contrast = float(np.linalg.norm(np.asarray(p.color, np.float32) - out["background"])) if far.any() else 0.0
            out["surfaces"] = surfaces(img, _lab(img), m, p.thin, target, float(np.linalg.norm(target - bg)), contrast)
        return out
    if p.kind == "blobs" and p.fit == "pixels":  # a thin strip: against its local background (_local_residual)
        return {"bg_luma": 0.0, "bg_sd": _pixel_noise(img, m), "local": True}
    lum = _luma(px)
    med = float(np.median(lum))
    sd = 1.4826 * float(np.median(np.abs(lum - med)))
    return {"bg_luma": med, "bg_sd": max(sd, 1.0)}


def _selected(p: Probe, img: np.ndarray, mask: np.ndarray, state: dict) -> np.ndarray:
    if p.select == "color":  # Lab of the region's pixels only (or a slice of the frame's, when shared)
        lab, half = state.get("lab"), 0.5 * float(np.linalg.norm(state["target"] - state["background_lab"]))
        if lab is not None or 2 * np.count_nonzero(mask) > mask.size:  # most of the box: no gather
            return mask & _near(_lab(img) if lab is None else lab, state["target"], half)  # off the frame: not in mask
        out = np.zeros(mask.shape, bool)  # a slanted polygon: its pixels only
        out[mask] = _near(_lab(img[mask])[:, None], state["target"], half)[:, 0]
        return out
    sign = 1 if p.select == "brighter" else -1
    if state.get("local"):
        dev = _local_residual(img, mask) * sign
        peak = float(np.percentile(dev[mask], 99)) if mask.any() else 0.0
        return mask & (dev > max(K_SELECT * state["bg_sd"], 0.5 * peak))
    dev = (_luma(np.asarray(img, np.float32)) - state["bg_luma"]) * sign
    return mask & (dev > K_SELECT * state["bg_sd"])


LOCAL_PX = 25  # side (px) of the square a thin strip's local background is the median over


def _pixel_noise(img: np.ndarray, mask: np.ndarray) -> float:
    """Robust sd of one pixel's luma (at least 1): from the differences of horizontal neighbours in the region,
    which a strip or an edge crosses in few of its pixel pairs."""
    lum = _luma(np.asarray(img, np.float32))
    pair = mask[:, 1:] & mask[:, :-1]
    d = (lum[:, 1:] - lum[:, :-1])[pair]
    d = d[np.isfinite(d)]
    return max(1.0, 1.4826 * float(np.median(np.abs(d))) / math.sqrt(2)) if len(d) else 1.0


def _local_residual(img: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Luma less its local background: the median over :data:`LOCAL_PX` px squares, which a strip under half as wide
    does not move, and an edge between two backgrounds does not cross.

    A ``brighter``/``darker`` blob read as a thin strip (``fit="pixels"``) is its core: the pixels beyond half the
    region's peak (its 99th percentile) of this, and beyond :data:`K_SELECT` times the first frame's pixel noise
    (:func:`_pixel_noise`; nothing but noise: nothing selected). Against one level for the whole region, a film lying
    on the edge between a bubble's inside and the backdrop (44 and 55 of 255) was told from them only by the two
    levels' spread (a threshold of 110), and a defocus that lowered it to 105 (flat P39 seed 1000) left nothing
    selected; a region drawn tight round a strip is all strip and edge, so its own spread is no noise."""
    lum = _luma(np.asarray(img, np.float32))
    ok = mask & np.isfinite(lum)
    lum = np.where(ok, lum, float(np.median(lum[ok])) if ok.any() else 0.0)
    bg = cv2.medianBlur(np.clip(np.rint(lum), 0, 255).astype(np.uint8), LOCAL_PX)
    return lum - bg


def _near(lab: np.ndarray, target: np.ndarray, half: float) -> np.ndarray:
    """Lab pixels ``[H, W, 3]`` within ``half`` of ``target``: the squared distance summed in float32 as
    ``(ΔL² + Δa²) + Δb²``, the order ``np.einsum`` sums in (checked bit for bit), in OpenCV's faster |Δ|."""
    d = cv2.absdiff(lab, tuple(float(v) for v in target))
    d *= d
    return d[..., 0] + d[..., 1] + d[..., 2] < half * half


def _level(p: Probe, img, mask, state):
    above, below = state["above"], state["below"]
    d = below - above
    dd = float(d @ d)
    if dd < 1e-6:
        return None
    cnt = mask.sum(1)
    rows = np.flatnonzero(cnt)
    if len(rows) < 4:
        return None
    box = cnt.min() == mask.shape[1]  # a box: no masked copy
    whole = img if box else cv2.bitwise_and(img, img, mask=np.ascontiguousarray(mask).view(np.uint8))
    # row sums in float64, column by column: numpy's order for img.sum(1) (and any order is exact on uint8)
    sums = cv2.reduce(whole, 1, cv2.REDUCE_SUM, dtype=cv2.CV_64F).reshape(-1, 3)
    f = (sums[rows] / cnt[rows, None] - above) @ d / dd  # row means: 0 above, 1 below
    n = len(f)
    # best single step: rows < k above-like, rows ≥ k below-like
    cum0 = np.concatenate([[0.0], np.cumsum(np.abs(f))])
    cum1 = np.concatenate([[0.0], np.cumsum(np.abs(1 - f))])
    cost = np.append(cum0[:-1] + (cum1[-1] - cum1[:-1]), cum0[-1])
    k = int(np.argmin(cost))
    if k == 0 or k == n:  # no boundary inside the region
        return None
    resid = f - (np.arange(n) >= k)  # against the step
    away = np.concatenate([resid[:max(0, k - 3)], resid[k + 3:]])  # rows more than 2.5 from the step
    noise = float(np.std(away)) if len(away) > 2 else 0.5
    if noise > 0.25:  # not two media over the whole band; maybe next to the step (a shadow over the surface)
        noise = _local_noise(f, k)
        if noise is None:
            return None
    # sub-pixel: the upper medium's share of the rows around the step (exact for an area-sampled edge), each
    # medium as the 3 rows beyond those show it (a backdrop seen through a glass changes with height)
    lo, hi = max(0, k - 3), min(n, k + 3)
    fa, fb = f[max(0, k - 6):lo], f[hi:k + 6]
    fa, fb = (_median3(fa), _median3(fb)) if len(fa) and len(fb) else (0.0, 1.0)
    g = (f[lo:hi] - fa) / (fb - fa) if fb - fa > 0.5 else f[lo:hi]
    row = rows[lo] - 0.5 + float(np.sum(1 - np.clip(g, 0, 1)))
    sigma = float(np.hypot(1 / np.sqrt(12), noise * np.sqrt(hi - lo)))  # an aliased edge; the summed rows' noise
    return {"row": float(row), "contrast": state["contrast"], "band": float(_band(f, k))}, sigma


def _band(f: np.ndarray, k: int) -> int:
    """Rows of the band at a step (``f`` row shares, step between rows ``k - 1`` and ``k``): the rows on either
    side of it, run on from it, that are neither medium (``BAND_SHARE`` < f < 1 − ``BAND_SHARE``). An area-sampled
    edge leaves at most one; a surface seen as a strip of its own (a meniscus, a tilted surface seen edge-on,
    foam) leaves its width, anywhere in which the best step may sit from one frame to the next."""
    mid = (f > BAND_SHARE) & (f < 1 - BAND_SHARE)
    up = k - 1
    while up >= 0 and mid[up]:
        up -= 1
    down = k
    while down < len(f) and mid[down]:
        down += 1
    return down - up - 1


def _local_noise(f: np.ndarray, k: int, rows: int = 7) -> float | None:
    """The step's noise from the ``rows`` rows beyond 2.5 on either side of it only, as a share of the step there,
    when those rows are two media (above-like above, below-like below, that noise at most 0.25): a band whose
    backdrop darkens just over the surface or whose water darkens towards the floor. None where they are not."""
    a, b = f[max(0, k - 3 - rows):max(0, k - 3)], f[k + 3:k + 3 + rows]
    if len(a) < 3 or len(b) < 3:
        return None
    ma, mb = float(np.median(a)), float(np.median(b))
    if not ma < 0.5 < mb:
        return None
    noise = float(np.std(np.concatenate([a - ma, b - mb]))) / (mb - ma)
    return noise if noise <= 0.25 else None


def _median3(x: np.ndarray) -> float:
    """``np.median`` of 1–3 finite values without its overhead: its mean of the middle one(s), a sum from +0."""
    v = sorted(x.tolist())
    return 0.0 + v[len(v) // 2] if len(v) % 2 else (0.0 + v[0] + v[1]) / 2


def _brightness(p: Probe, img, mask, state):
    px = np.asarray(img[mask], np.float32)
    if len(px) == 0:
        return None
    lum = _luma(px)
    r, g, b = px.mean(0)
    return {"luma": float(lum.mean()), "r": float(r), "g": float(g), "b": float(b)}, float(lum.std() / len(lum)**.5)


def _line(p: Probe, img, mask, state):
    sel = _selected(p, img, mask, state)
    if p.thin is None:
        return _fit_line(sel, mask)
    lab = state.get("lab")  # a beam: its own pixels, not the region's surfaces' (beam.beam_selections)
    lab_at = (lambda at: _lab(img[at])) if lab is None else (lambda at: lab[at])
    for s in beam_selections(sel, lab_at, state["target"], state.get("surfaces")):
        got = _fit_line(s, mask)
        if got is not None and is_beam(got, p.thin, mask):
            return got
    return None  # no thin band across the region


def _fit_line(sel: np.ndarray, mask: np.ndarray):
    ys, xs = np.nonzero(sel)
    return fit_line(np.stack([xs, ys], 1).astype(np.float32), mask)


BLOB_KEYS = ("x", "y", "area", "x0", "y0", "x1", "y1", "cx", "cy", "r", "roundness")


def _blobs(p: Probe, img, mask, state):
    sel = _selected(p, img, mask, state).astype(np.uint8)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(sel, connectivity=8)
    mids = None
    if p.pick == "walls":
        prof = _wall_profile(img, mask, p.color)
        mids = _wall_mids(prof)  # read whether or not the colour holds the walls
        order = _wall_blobs(stats, cents, mask, mids, prof)
        if not any(order) and np.isnan(mids).all():
            return None
    else:
        order = [k for k in np.argsort(-stats[1:, 4]) + 1 if stats[k, 4] >= MIN_PIXELS][:p.count]
        order.sort(key=lambda k: cents[k][0])
        if not any(order):
            return None
    out = {k: np.full(p.count, np.nan) for k in BLOB_KEYS}
    for j, k in enumerate(order):
        if not k:
            continue
        x, y, w, h, a = stats[k]
        if p.fit == "none":  # no metric reads the circle: cx, cy, r, roundness stay NaN
            pts = np.empty((0, 2))
        elif p.fit == "pixels":
            ys, xs = np.nonzero(labels == k)
            pts = np.stack([xs, ys], 1).astype(float)
        else:
            cs, _ = cv2.findContours((labels == k).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
            pts = max(cs, key=len).reshape(-1, 2).astype(float)
        cx, cy, r, rms = (fit_arc(pts) if p.fit == "pixels" else fit_circle(pts[:, 0], pts[:, 1])) if len(pts) >= 3 \
            else (np.nan,) * 4
        box = (x - 0.5, y - 0.5, x + w - 0.5, y + h - 0.5)
        if p.edges == "subpixel":
            box = _subpixel_extents(np.asarray(img, np.float32), mask, labels == k, box)
        vals = (cents[k][0], cents[k][1], a, box[0], box[1], box[2], box[3], cx, cy, r, 1 - rms / r if r > 0 else np.nan)
        for key, v in zip(BLOB_KEYS, vals):
            out[key][j] = v
    if mids is not None:
        out["mid"] = np.asarray(mids, float)
    return out, float("nan")


VALLEY_REACH = 8  # px either side of a wall's deepest column that hold its valley and the flanks' level
VALLEY_SHARE = 0.1  # a wall's valley is at least this share of its lower flank's distance to the wall colour deep


def _wall_profile(img: np.ndarray, mask: np.ndarray, color: tuple) -> tuple[int, np.ndarray, float] | None:
    """The strip's column profile of RGB distance to the wall ``color`` (rows averaged): ``(first column, profile,
    its standard error)``, None for a strip under 8 columns or 2 rows, or slanted (columns of unequal rows)."""
    cols, rows = np.flatnonzero(mask.any(0)), np.flatnonzero(mask.any(1))
    if len(cols) < 8 or len(rows) < 2:
        return None
    sub, m = img[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1], mask[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]
    if not m.all():
        return None
    d = np.linalg.norm(np.asarray(sub, np.float32) - np.asarray(color, np.float32), axis=2)
    return int(cols[0]), d.mean(0), float(np.median(d.std(0))) / math.sqrt(d.shape[0])


def _wall_mids(profile: tuple[int, np.ndarray, float] | None) -> list[float]:
    """Centre column (sub-pixel) of the wall each side of the region's middle (``[left, right]``, NaN where none),
    from the strip's :func:`_wall_profile`.

    The wall is the deepest valley of the strip's column profile of RGB distance to the wall ``color`` (rows
    averaged; linear in what a pixel mixes of the wall, as Lab is not), deeper than :data:`K_SELECT` times its noise
    (the rows' spread) and :data:`VALLEY_SHARE` of its lower flank (a flank: the farthest column within
    :data:`VALLEY_REACH` on its side). Its centre is the mean column weighted by each column's depth as a share of
    the valley's from its own side's flank (what an area-sampled edge mixes of the wall).

    Blur mixes a thin wall out of its colour and moves its edges, not its middle: a wall two pixels thick under a
    defocus of two keeps a third of its contrast (flat P25 seed 8400 blurred: 135 from the wall's colour, the water
    beside it 180, the backdrop 258) and its colour selection is empty. The blurred step between unlike flanks pulls
    the centre towards the flank nearer the wall's colour (half a pixel there), as does a patch of backdrop of nearly
    its colour beside it; in a still scene that lean is the same in every sample, so a width's relative change keeps
    it out."""
    out = [math.nan, math.nan]
    if profile is None:
        return out
    c0, prof, sem = profile
    half = len(prof) // 2
    for side, (lo, hi) in enumerate(((0, half), (half, len(prof)))):
        i = lo + int(np.argmin(prof[lo:hi]))
        if i < lo + 1 or i > hi - 2:
            continue  # at the strip's end or its middle: no valley seen whole
        a, b = max(0, i - VALLEY_REACH), min(len(prof), i + VALLEY_REACH + 1)
        fl, fr = prof[a:i].max(), prof[i + 1:b].max()
        depth = min(fl, fr) - prof[i]
        if depth <= max(K_SELECT * sem, VALLEY_SHARE * min(fl, fr)):
            continue
        # each column's share of the wall, from its own side's flank: unlike media either side (backdrop and water,
        # water turning to ice) leave the centre where the wall is
        g = np.r_[(fl - prof[a:i]) / (fl - prof[i]), 1.0, (fr - prof[i + 1:b]) / (fr - prof[i])]
        g = np.where(g > K_SELECT * sem / depth, np.minimum(g, 1.0), 0.0)
        j = i - a
        l = j - int(np.argmin(g[j::-1] > 0)) + 1 if (g[j::-1] <= 0).any() else 0
        r = j + int(np.argmin(g[j:] > 0)) if (g[j:] <= 0).any() else len(g)
        w = g[l:r]
        out[side] = float(c0 + a + l + (np.arange(len(w)) * w).sum() / w.sum())
    return out


def _wall_blobs(stats: np.ndarray, cents: np.ndarray, mask: np.ndarray, valleys: list[float],
                profile: tuple[int, np.ndarray, float] | None) -> list[int]:
    """``pick="walls"``: per side of the region's middle column, the innermost component that crosses at least half
    of the region's rows (a vessel's wall crosses a strip drawn across it), or 0 where none: ``[left, right]``.
    The two largest would be two pieces of one side where a wall shows split, or beside a patch of the backdrop
    the selection takes too (flat P25 seed 7200: both on the left in its first samples, an inside width of
    0.2 px), and a stone or a speck in the water is no wall. Where a side's wall was seen as a valley of the
    strip's :func:`_wall_profile` (``valleys``: :func:`_wall_mids`), a component is a piece of it only if it reaches
    halfway down that valley from the side's median (a thick glass wall split by a highlight: both pieces as deep):
    shaded water of nearly the wall's colour crosses the strip too (studio P24 seed 8900: taken for the right wall,
    6-54 px inside it, in its first samples; the vessel read half its width and the lawful clip scored 75.9)."""
    cols, rows = np.flatnonzero(mask.any(0)), np.flatnonzero(mask.any(1))
    if not len(cols):
        return [0, 0]
    mid, tall = 0.5 * (cols[0] + cols[-1]), 0.5 * (rows[-1] - rows[0] + 1)
    walls = [k for k in range(1, len(stats)) if stats[k, 4] >= MIN_PIXELS and stats[k, 3] >= tall]
    sides = [[k for k in walls if cents[k][0] < mid], [k for k in walls if cents[k][0] >= mid]]
    if profile is not None:
        c0, prof, _ = profile
        half = len(prof) // 2
        for s, (at, part) in enumerate(zip(valleys, (prof[:half], prof[half:]))):
            if math.isfinite(at):
                bar = 0.5 * (prof[int(round(at)) - c0] + float(np.median(part)))
                sides[s] = [k for k in sides[s] if prof[max(0, stats[k, 0] - c0):stats[k, 0] + stats[k, 2] - c0].min(
                    initial=math.inf) <= bar]
    return [max(sides[0], key=lambda k: stats[k, 0] + stats[k, 2]) if sides[0] else 0,
            min(sides[1], key=lambda k: stats[k, 0]) if sides[1] else 0]


REACH = 3  # px either side of a blob's pixel edge over which its sub-pixel edge is summed


def _subpixel_extents(img: np.ndarray, mask: np.ndarray, comp: np.ndarray, box: tuple) -> tuple:
    """``(x0, y0, x1, y1)`` of component ``comp`` to a fraction of a pixel: in each row (column) at least
    ``2·REACH`` px across, an edge is the blob's summed share of the pixels within ``REACH`` of its pixel edge, each
    pixel's share its colour's place between the pixel just beyond (outside) and the blob's median colour (inside),
    as an area-sampled edge mixes them; the median over those rows (columns). An edge that flickers between pixels
    (a rim half as dark as the wall) stays put. ``box``'s pixel edges where no row qualifies."""
    inside = np.median(img[comp], 0)
    x0, x1 = _edge_medians(img, mask, comp, inside, box[0], box[2])
    y0, y1 = _edge_medians(img.transpose(1, 0, 2), mask.T, comp.T, inside, box[1], box[3])
    return x0, y0, x1, y1


def _edge_medians(img, mask, comp, inside, lo: float, hi: float) -> tuple[float, float]:
    """Sub-pixel start and end of ``comp`` along axis 1, medians over its rows (``lo`` / ``hi`` where none)."""
    rows = np.flatnonzero(comp.any(1))
    first = np.argmax(comp[rows], 1)
    last = comp.shape[1] - 1 - np.argmax(comp[rows, ::-1], 1)
    ok = last - first + 1 >= 2 * REACH
    out = []
    for edge, sign, fallback in ((first, -1, lo), (last, 1, hi)):
        beyond = edge + sign * (REACH + 1)  # the reference pixel outside
        cols = edge[:, None] + (np.arange(-REACH, REACH) if sign < 0 else np.arange(1 - REACH, REACH + 1))
        good = ok & (beyond >= 0) & (beyond < comp.shape[1])
        r, c, b = rows[good], cols[good], beyond[good]
        good = mask[r[:, None], c].all(1) & mask[r, b]
        r, c, b = r[good], c[good], b[good]
        if not len(r):
            out.append(fallback)
            continue
        outside = img[r, b]
        d = inside - outside  # [n, 3]
        dd = (d * d).sum(1)
        strong = dd > 1e-6
        towards = ((img[r[:, None], c] - outside[:, None]) * d[:, None]).sum(2)
        share = np.clip(towards / np.where(strong, dd, 1)[:, None], 0, 1)
        pos = (c[:, 0] - 0.5 + REACH * 2 - share.sum(1)) if sign < 0 else (c[:, 0] - 0.5 + share.sum(1))
        pos = pos[strong]
        out.append(float(np.median(pos)) if len(pos) else fallback)
    return out[0], out[1]


def _profile(p: Probe, img, mask, state):
    sel = _selected(p, img, mask, state)
    sel = cv2.morphologyEx(sel.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)) > 0
    has = sel.any(0)
    if not has.any():
        return None
    top = np.where(has, np.argmax(sel, 0), np.nan).astype(float)
    return {"top": top}, float("nan")


READ = {"level": _level, "brightness": _brightness, "line": _line, "blobs": _blobs, "profile": _profile}
# The values each kind reads (present, all NaN, when a probe never reads a frame).
KEYS = {"level": ("row", "contrast", "band"), "brightness": ("luma", "r", "g", "b"),
        "line": ("x", "y", "angle", "rms", "length", "n", "angle_sd"), "blobs": BLOB_KEYS, "profile": ("top",)}
