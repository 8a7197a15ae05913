"""Motion state of one tracked object: prediction, where it may be, what area it may show.

:class:`Tracked` keeps an object's last centroid, velocity (px per sample) and a running bound
on its acceleration, and derives from them

- the **reach**: how far from the constant-velocity prediction the object can be. It grows with
  the samples since it was last seen like a ballistic uncertainty (``step · k`` for the speed,
  ``acc · k²`` for an unknown acceleration), so a lost object is looked for where it could be,
  never anywhere in the frame; a same-coloured blob outside the reach is not the object;
- the **expected area** under motion blur: a disc of diameter ``D`` moving ``s`` px during the
  exposure shows ``ref_area + D · s`` pixels; the blur length ``s`` is measured on the streak
  itself (:func:`streak_length`, against the object's own unblurred shape, so an elongated object's
  length along its motion is not taken for blur) and the exposure share (``s / speed``) is kept per object.
  Area checks (association cost, border cut, growth bound) compare against this range, not the
  first frame's area.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from lawful.perceive.camera_dense import _QUANT
from lawful.perceive.noise import MAD_TO_STD
from lawful.perceive.segment import ColorModel

REST_PX = 0.5  # |vx| + |vy| (px per sample) under which an object may be at rest
STILL_LEVELS = 8  # largest change of any pixel (0-255) around an object at rest that counts as none
# search-window margin past the predicted box: 4 px + these shares of the object's size and of its step
WINDOW_MARGIN, STEP_SHARE = 0.1, 0.5
ACC_FLOOR = 0.02  # least acceleration (object diameters per sample²) assumed for a lost object
ACC_MEMORY = 0.9  # decay per sample of the largest velocity change seen
FRAGMENT_EXTENT = 1.15  # fragments of one object merged must fit in this times its size (+2 px)
GROWTH = 1.6  # a blob larger than this times the largest expected area is not (only) the object
THIN = 0.5  # a blob thinner (minor-axis spread) than this share of the object's own is not the whole object
_FAR = 1e6  # cost of a blob an object may not take
# what a sighting updates: motion, size, area, blur, shape and colour (:meth:`Tracked.checkpoint`)
_SIGHTING_STATE = ("pos", "vel", "acc", "lost", "size", "ref_area", "area_dev", "exposure", "own", "own_speed",
                   "last_box", "seen_frame", "still", "rgb", "shade")
_LOG4 = math.log(4.0)
UNCHANGED_Z = 3.0  # noise sigmas within which a blob's pixels are those of an earlier frame


def unchanged_since(frame: np.ndarray, ref: np.ndarray, x: int, y: int, m: np.ndarray) -> bool:
    """Whether the blob ``m`` (a mask whose top left lies at ``x, y``, frame px) shows the pixels ``ref`` had there:
    its median difference to ``ref`` (the largest over the channels) within :data:`UNCHANGED_Z` robust sds (at least
    the two roundings' ``_QUANT``) of the median difference around it (its box grown by its size each way, the blob a
    ninth of that at most; a lighting change or a shake moves both alike). Scaling the surroundings' median difference
    itself as a sd counted noise twice (the largest of three channels' differences has a median of 1.3 sds, its own
    spread 0.5): under heavy pixel noise a ball launched 25 px in one sample, pale with blur, read 98 against a bound
    of 111 and was ruled unchanged (studio WMLE P3 seed 8500 under noise: both balls lost at launch)."""
    h, w = frame.shape[:2]
    bh, bw = m.shape
    X0, Y0, X1, Y1 = max(0, x - bw), max(0, y - bh), min(w, x + 2 * bw), min(h, y + 2 * bh)
    d = cv2.absdiff(frame[Y0:Y1, X0:X1], ref[Y0:Y1, X0:X1]).max(2)
    around = float(np.median(d))
    noise = max(MAD_TO_STD * float(np.median(np.abs(d - around))), _QUANT)
    return float(np.median(d[y - Y0:y - Y0 + bh, x - X0:x - X0 + bw][m > 0])) <= around + UNCHANGED_Z * noise


@dataclass
class Found:
    """One measurement of an object in one sample (tracking pixels)."""

    xy: tuple[float, float]
    box: tuple[float, float, float, float]
    area: float
    angle: float
    cut: bool  # touches the frame border with a small share of its expected area
    touches: bool = False  # touches the frame border
    blur: float = 0.0  # streak length along the motion (px), 0 when unblurred
    shape: tuple | None = None  # second moments of the measured region (:func:`moments2`)


def spreads(region: np.ndarray) -> tuple[float, float]:
    """Spreads (px) of the uint8 0/1 ``region`` along and across its long axis: square roots of the
    eigenvalues of its second moments (rotation leaves them unchanged)."""
    m = cv2.moments(region, binaryImage=True)
    if m["m00"] < 1:
        return 0.0, 0.0
    cxx, cyy, cxy = m["mu20"] / m["m00"], m["mu02"] / m["m00"], m["mu11"] / m["m00"]
    d = math.hypot(cxx - cyy, 2 * cxy)
    return math.sqrt(max(0.0, 0.5 * (cxx + cyy + d))), math.sqrt(max(0.0, 0.5 * (cxx + cyy - d)))


def shade_range(pixels: np.ndarray, rgb: tuple[float, float, float]) -> tuple[float, float]:
    """Tones of an object's RGB ``pixels`` ``[N, 3]`` as multiples of its mean colour ``rgb`` (``p . c / c . c``):
    their 2% and 98% quantiles (a lit ball: from its shaded rim to its highlight; a flat one: ~1 +- noise)."""
    c = np.asarray(rgb, np.float64)
    cc = float(c @ c)
    if len(pixels) < 2 or cc <= 0:
        return 1.0, 1.0
    lo, hi = np.quantile(np.asarray(pixels, np.float64).reshape(-1, 3) @ c / cc, [0.02, 0.98])
    return float(lo), float(hi)


def minor_spread(region: np.ndarray) -> float:
    """Spread (px) of the uint8 0/1 ``region`` across its long axis (:func:`spreads`). Motion blur only
    widens the other axis, so a blob much thinner than the object (a floor stripe of its colour) is
    not it."""
    return spreads(region)[1]


def moments2(region: np.ndarray | None, m: dict | None = None) -> tuple[float, float, float] | None:
    """Second central moments ``(cxx, cyy, cxy)`` (px²) of the uint8 0/1 ``region`` (or of its ``cv2.moments``
    ``m``, when the caller has them); None under 3 px."""
    m = cv2.moments(region, binaryImage=True) if m is None else m
    if m["m00"] < 3:
        return None
    return m["mu20"] / m["m00"], m["mu02"] / m["m00"], m["mu11"] / m["m00"]


def streak_length(region: np.ndarray, vel: tuple[float, float],
                  own: tuple[float, float, float] | None = None) -> float:
    """Blur length (px) of the uint8 0/1 ``region`` along ``vel`` (:func:`streak_length_of` its moments)."""
    return streak_length_of(moments2(region), vel, own)


def streak_length_of(c: tuple[float, float, float] | None, vel: tuple[float, float],
                     own: tuple[float, float, float] | None = None) -> float:
    """Blur length (px) along ``vel`` of a region with second moments ``c`` (:func:`moments2`; None: 0).

    Blur sweeps the object's own shape over ``s`` px along the motion: it adds ``s²/12`` to the
    variance along the motion and nothing across it. ``own``: the object's unblurred second moments
    (:func:`moments2`, from a still or slow sample); its along/across variance ratio in the motion's
    direction scales the measured across variance (so a uniform change of scale cancels) to the
    unblurred along variance. Without it the object is taken as round (ratio 1: a disc has
    ``D²/16`` both ways), which counts an elongated object's own length along the motion as blur.
    """
    speed = math.hypot(*vel)
    if speed < 1e-6 or c is None:
        return 0.0
    ux, uy = vel[0] / speed, vel[1] / speed

    def along_across(cxx: float, cyy: float, cxy: float) -> tuple[float, float]:
        return (ux * ux * cxx + 2 * ux * uy * cxy + uy * uy * cyy,
                uy * uy * cxx - 2 * ux * uy * cxy + ux * ux * cyy)

    par, perp = along_across(*c)
    ratio = 1.0
    if own is not None:
        own_par, own_perp = along_across(*own)
        if own_perp > 0.25:  # at least half a pixel across: a ratio worth trusting
            ratio = own_par / own_perp
    return math.sqrt(max(0.0, 12.0 * (par - ratio * perp)))


@dataclass
class Tracked:
    spec: object  # the case's ObjectSpec
    j: int
    model: ColorModel
    convex: bool
    pos: tuple[float, float]  # last seen centroid (tracking px)
    vel: tuple[float, float] = (0.0, 0.0)  # px per sample
    size: tuple[float, float] = (1.0, 1.0)  # bbox width, height
    ref_area: float = 1.0
    diam: float = 1.0  # unblurred extent across the motion (px)
    lost: int = 0  # samples since last seen
    still: tuple | None = None  # (measurement, crop box, crop pixels) of the last full measurement
    acc: float = 0.0  # largest recent change of velocity (px per sample²), decaying
    exposure: float = 0.0  # blur length / speed measured on streaks (0: no blur seen)
    rgb: tuple[float, float, float] | None = None  # mean colour of the object's pixels (0-255)
    shade: tuple[float, float] | None = None  # tones of its first unblurred sighting, multiples of ``rgb`` (shade_range)
    weak: bool = False  # its colour model holds a part of it: a group of its own, by contrast where colour fails
    last_box: tuple = (0, 0, -1, -1)  # box (inclusive, tracking px) of the last measurement
    seen_frame: np.ndarray | None = None  # the frame of that measurement (for :func:`unchanged_since`)
    area_dev: float = 0.05  # running mean of |area / ref_area - 1| of unblurred samples
    major: float = 0.0  # spreads (px) of the first-frame blob along and across its long axis (``spreads``)
    minor: float = 0.0
    own: tuple | None = None  # unblurred second moments (:func:`moments2`) from the slowest recent sample
    own_speed: float = 0.0  # speed (px per sample) of the sample ``own`` was measured on
    first_d2: np.ndarray | None = None  # first frame's colour distances, kept from the threshold's check to the look-alikes'
    overlaps: frozenset = frozenset()  # objects (``j``) whose boxes overlapped this one's in the first frame
    pending: dict | None = None  # state before the sighting that ended a loss, until the next sample confirms it
    rim: float = 0.0  # px the case's box reaches past the colour blob's in the first frame: parts of other colours
    # (a magnet's pale cap, a cart's wheels), kept out of the camera estimate on every side whichever way it turns

    # --- at rest ------------------------------------------------------------------------------
    def unchanged(self, frame: np.ndarray) -> Found | None:
        """The last measurement, if the object was at rest and no pixel of its surroundings has
        changed by more than :data:`STILL_LEVELS` since (a shift of ~0.1 px at an edge would)."""
        if self.still is None or self.lost or abs(self.vel[0]) + abs(self.vel[1]) > REST_PX:
            return None
        f, (x0, y0, x1, y1), crop = self.still
        return f if cv2.norm(frame[y0:y1, x0:x1], crop, cv2.NORM_INF) <= STILL_LEVELS else None

    def remember(self, f: Found | None, frame: np.ndarray) -> None:
        """Keep ``f`` and the pixels around it for :meth:`unchanged`."""
        if f is None or f.cut:
            self.still = None
            return
        h, w = frame.shape[:2]
        x0, y0, x1, y1 = max(0, f.box[0] - 2), max(0, f.box[1] - 2), min(w, f.box[2] + 3), min(h, f.box[3] + 3)
        self.still = (f, (x0, y0, x1, y1), frame[y0:y1, x0:x1].copy())

    def clear_of_last(self, x0: int, y0: int, x1: int, y1: int) -> bool:
        """Whether the box ``x0, y0, x1, y1`` (inclusive) shares no pixel with :attr:`last_box`."""
        bx0, by0, bx1, by1 = self.last_box
        return not (x0 <= bx1 and bx0 <= x1 and y0 <= by1 and by0 <= y1)

    def checkpoint(self) -> dict:
        """The state a sighting updates (motion, size, area, blur, shape, colour), for :meth:`restore`."""
        snap = {k: getattr(self, k) for k in _SIGHTING_STATE}
        snap["mean"] = self.model.mean.copy()
        return snap

    def restore(self, snap: dict, lost: int) -> None:
        """Put back the state of :meth:`checkpoint` ``snap``, lost for ``lost`` samples (a retracted sighting)."""
        for k in _SIGHTING_STATE:
            setattr(self, k, snap[k])
        self.model.mean = snap["mean"]
        self.lost = lost

    # --- motion -------------------------------------------------------------------------------
    def predict(self) -> tuple[float, float]:
        """Where constant velocity puts the object in the coming sample."""
        k = self.lost + 1
        return self.pos[0] + self.vel[0] * k, self.pos[1] + self.vel[1] * k

    def seen_at(self, xy: tuple[float, float], move: bool = True) -> None:
        """Record the object at ``xy`` (``move``: update velocity and acceleration bound)."""
        if move:
            k = self.lost + 1
            vel = ((xy[0] - self.pos[0]) / k, (xy[1] - self.pos[1]) / k)
            dv = math.hypot(vel[0] - self.vel[0], vel[1] - self.vel[1]) / k
            self.acc = max(ACC_MEMORY ** k * self.acc, dv)
            self.vel = vel
        self.pos, self.lost = xy, 0

    def speed(self) -> float:
        return math.hypot(*self.vel)

    def step(self) -> float:
        """Distance (px) the object moved per sample, times the samples since it was seen."""
        return self.speed() * (self.lost + 1)

    def gate(self) -> float:
        """Association radius (px) around the prediction: a reversal (bounce) misses it by 2 steps;
        while lost, an unknown acceleration (at least :data:`ACC_FLOOR` diameters per sample²)
        widens it quadratically with the samples since last seen."""
        k = self.lost + 1
        acc = self.acc if not self.lost else max(self.acc, ACC_FLOOR * self.diam)
        return max(4.0, 0.5 * max(self.size) + 2.0 * self.step() + 0.5 * acc * k * k)

    def reach(self, gate: float | None = None) -> float:
        """Farthest distance (px) from the prediction at which a blob may still be this object: a
        few gates for an object seen in the last sample (a bounce, a jerk), one gate (which
        already holds every reversal and acceleration it can have made since) once lost.
        ``gate``: :meth:`gate`, where the caller has it."""
        g = self.gate() if gate is None else gate
        return g if self.lost else 3.0 * g

    # --- blur ---------------------------------------------------------------------------------
    def blur_range(self) -> tuple[float, float]:
        """Least and most blur length (px) the coming sample may show: the measured exposure share
        of the speed, and at most the whole step (a shutter open for the whole frame interval)."""
        s = self.speed()
        return self.exposure * s * 0.5, max(self.exposure, 1.0) * s

    def area_range(self) -> tuple[float, float]:
        """Pixel area the object may show in the coming sample (colour core to full streak)."""
        lo_b, hi_b = self.blur_range()
        # a streak's colour core shrinks as the blur pales it: D / (D + s) of the disc
        lo = self.ref_area * self.diam / (self.diam + hi_b)
        return lo, self.ref_area + self.diam * hi_b

    def holds(self, ux, uy):
        """Whether an extent ``ux`` x ``uy`` px (numbers or arrays) fits in the object's size, :data:`FRAGMENT_EXTENT`
        times it +2 px: fragments of one object joined."""
        return (ux <= FRAGMENT_EXTENT * self.size[0] + 2) & (uy <= FRAGMENT_EXTENT * self.size[1] + 2)

    def expected_area(self) -> float:
        """Area of the object blurred by the measured exposure share of its current speed."""
        return self.ref_area + self.diam * self.exposure * self.speed()

    def note_blur(self, blur: float) -> None:
        """Update the exposure share from a streak measured on a fast sample."""
        s = self.speed()
        if s > 0.5 * self.diam and blur > 0:
            share = min(1.0, blur / s)
            self.exposure = share if self.exposure == 0 else 0.8 * self.exposure + 0.2 * share

    def note_shape(self, shape: tuple | None) -> None:
        """Keep a sample's second moments ``shape`` as the object's own unblurred shape when it is
        no faster than the one they came from, or slow enough that full-shutter blur adds under a
        tenth of its variance across the motion (``s²/12 < 0.1 · D²/16``: ``s < D / 4``), so a
        rotating object's shape follows it while it turns slowly."""
        s = self.speed()
        if shape is not None and (self.own is None or s <= max(self.own_speed, 0.25 * self.diam)):
            self.own, self.own_speed = shape, s

    def blur_of(self, c: tuple[float, float, float] | None) -> float:
        """Blur length (px) along this object's motion of a region with second moments ``c``
        (:func:`streak_length_of`)."""
        return streak_length_of(c, self.vel, self.own)

    def growth_limit(self) -> float:
        """Area (relative to the expected) past which a blob may hold more than the object: four
        times the object's own measured area spread, at least 10 %."""
        return 1.0 + max(0.1, 4.0 * self.area_dev)

    def note_area(self, area: float) -> None:
        """Update the reference area and its spread from an unblurred, uncut sample."""
        self.area_dev = 0.9 * self.area_dev + 0.1 * abs(area / self.ref_area - 1.0)
        self.ref_area = 0.9 * self.ref_area + 0.1 * area

    # --- association --------------------------------------------------------------------------
    def cost(self, x: float, y: float, area: float) -> float:
        """Cost of taking the blob at ``(x, y)`` of ``area`` for this object (:data:`_FAR`: not
        allowed): within :meth:`reach` of the prediction and of an area the blur model allows;
        a small fragment (split by a marker) is allowed when very near."""
        return self.costs([(x, y, area)])[0]

    def costs(self, blobs) -> list[float]:
        """:meth:`cost` of each ``(x, y, area)`` of ``blobs`` (the motion state's terms computed once)."""
        px, py = self.predict()
        g = self.gate()
        reach = self.reach(g)
        lo, hi = self.area_range()
        out = []
        hypot, log = math.hypot, math.log
        for x, y, area in blobs:
            d = hypot(x - px, y - py)
            ratio = log(lo / area) if area < lo else (log(area / hi) if area > hi else 0.0)
            out.append(d / g + 0.5 * ratio if (d < reach and ratio < _LOG4) or d < 0.5 * g else _FAR)
        return out

    def ghost_box(self) -> tuple[int, int, int, int]:
        """Box (end-exclusive, possibly beyond the frame) of twice the object's size around its
        prediction: where a lost object's pixels would be if it moved on as predicted. Unlike its
        search :meth:`window`, it does not grow while the object stays lost (out of the frame, the
        window soon covers most of the background the camera estimate needs)."""
        cx, cy = self.predict()
        sw, sh = self.size
        return int(cx - sw), int(cy - sh), int(cx + sw) + 1, int(cy + sh) + 1

    def window(self, w: int, h: int, grow: float = 1.0) -> tuple[int, int, int, int]:
        """Search rectangle (end-exclusive) around the predicted box, with a margin of half a step
        and a tenth of the object's size; a lost object's covers its :meth:`reach`. An object
        missed or cut by the window's edge makes the caller retry with a larger ``grow``."""
        cx, cy = self.predict()
        sw, sh = self.size
        if self.lost:
            hx = hy = self.reach() + 0.5 * max(sw, sh)
        else:
            margin = grow * (WINDOW_MARGIN * max(sw, sh) + STEP_SHARE * self.step()) + 4
            hx, hy = 0.5 * sw + margin, 0.5 * sh + margin
        return (max(0, int(cx - hx)), max(0, int(cy - hy)), min(w, math.ceil(cx + hx) + 1),
                min(h, math.ceil(cy + hy) + 1))


def inside(region, x: float, y: float) -> bool:
    """Whether ``(x, y)`` lies in ``region``: a box ``(x0, y0, x1, y1)`` or a polygon ``[[x, y], ...]``
    (an ``[n, 2]`` array; edges count as inside)."""
    r = np.asarray(region, np.float32)
    if r.ndim == 1:
        return bool(r[0] <= x <= r[2] and r[1] <= y <= r[3])
    return cv2.pointPolygonTest(r.reshape(-1, 1, 2), (float(x), float(y)), False) >= 0


@dataclass
class Regions:
    """Where objects may be looked for (tracking pixels): inside ``roi`` (a box or polygon, or None for
    the whole frame) and outside every ``exclude`` region; boxes are ``x0, y0, x1, y1``, polygons ``[n, 2]``."""

    roi: tuple | np.ndarray | None = None
    exclude: tuple = ()

    def allows(self, x: float, y: float) -> bool:
        if self.roi is not None and not inside(self.roi, x, y):
            return False
        return not any(inside(r, x, y) for r in self.exclude)

    @property
    def empty(self) -> bool:
        return self.roi is None and not self.exclude
