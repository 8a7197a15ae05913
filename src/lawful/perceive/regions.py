"""Region readings beside tracks: per-frame measurements of things that are not objects.

A task declares :class:`Probe` s (``Task.probes(case)``); :func:`lawful.perceive.track.track` reads them
in the same decoding pass as the objects and returns them as ``tracks.regions[name]``, a
:class:`RegionSeries`. Every probe reads its region *in first-frame coordinates*: when the camera
is compensated, each frame's region is sampled through that frame's camera transform, so a level
or a beam stays where the scene put it. Positions and lengths come back in case pixels.

Kinds (the fields of ``RegionSeries.values``; ``[T]`` unless noted):

- ``level``      ``row``: the boundary row between an upper and a lower medium (a liquid surface in a
                 column band), fitted as the best single step of the band's row-mean colour profile
                 (two media over the whole band, or else in the 7 rows on either side of the step: a shadow
                 just over the surface, water darker near the floor), refined to sub-pixel by the upper
                 medium's share of the rows around it; ``contrast``
                 (Lab distance between the media); ``band`` (px): the rows at the step that are neither
                 medium (at most one for an area-sampled edge; a meniscus or a tilted surface is a strip, anywhere
                 in which the step may be fitted). ``sigma``: the row's standard error (an aliased edge's
                 quantisation and the profile's measured noise over the rows summed).
                 The media's colours are ``above`` / ``color`` when given, else learned from the top and
                 bottom rows of the region in the first frame (``learn="first"``) or in every frame
                 (``learn="each"``: a medium that changes colour — water freezing, ice melting — or
                 light that drifts; the level must then stay clear of the region's top and bottom rows).
- ``brightness`` ``luma`` (0–255), ``r``, ``g``, ``b``: means over the region; ``sigma``: standard error of luma.
- ``line``       selected pixels fitted by a straight line, refitted without stray pixels (farther from the
                 line than :data:`~lawful.perceive.lines.K_TRIM` robust sds of the pixels' distances, the sd at least
                 :data:`~lawful.perceive.lines.TRIM_FLOOR`: another beam's fringe, compression's smear): ``x``, ``y`` (centroid), ``angle`` (direction in
                 image coordinates, radians in (−π/2, π/2]), ``rms`` (perpendicular px), ``length`` (extent
                 along the line), ``n`` (pixels kept), ``angle_sd`` (the direction's standard error, rad, from
                 the scatter of the pixels' mean offsets over :data:`~lawful.perceive.lines.BIN`-px pieces; ends cut askew by the region left out: :func:`~lawful.perceive.lines.fit_line`). ``sigma``: rms / √n.
                 ``thin`` (a beam): only the pixels nearer the beam's colour than any of the region's own surface
                 colours are fitted (a backdrop of its hue: :mod:`lawful.perceive.beam`), and a reading is kept
                 only for a band at most that share of its length (plus 4 px) wide over at least half the
                 region's chord along it (not a surface's edge, not a fragment: :func:`~lawful.perceive.beam.is_beam`).
- ``blobs``      the ``count`` largest connected components of the selected pixels, ordered left to right,
                 ``[T, count]`` (NaN where fewer): ``x``, ``y``, ``area``, ``x0``, ``y0``, ``x1``, ``y1`` and a
                 circle fitted to each outline (:func:`lawful.perceive.fit.fit_circle`): ``cx``, ``cy``, ``r``,
                 ``roundness`` (1 − radial rms / r).
                 ``fit="pixels"`` fits the circle to all of a component's pixel centres instead, by geometric
                 least squares in a curvature parametrisation (a thin, short or straight arc: its centre
                 line, where an outline fit closes round the strip). ``fit="none"`` skips the fit (cx, cy, r,
                 roundness NaN): for a probe whose circle no metric reads (walls, ice).
                 ``edges="subpixel"`` gives ``x0``…``y1`` to a fraction of a pixel (:func:`_subpixel_extents`: the
                 blob's share of the pixels at each edge, as an area-sampled edge mixes it with what lies beyond):
                 for widths read between walls. ``pick="walls"`` (``count=2``) reads a vessel's two walls instead of the
                 two largest blobs: per side of the region's middle column, the innermost blob crossing at least half
                 of its rows (``[left, right]``, NaN for a side without one), and each wall's centre column
                 ``mid`` from the valley it leaves in the strip's column profile of distance to its colour, read
                 where blur has mixed a thin wall out of its colour too (:func:`region_kinds._wall_mids`).
- ``profile``    per column of the region, the first selected row from the top (``top`` ``[T, W]``, NaN
                 where none); ``RegionSeries.columns`` holds the columns' x.

Selection (line, blobs, profile): ``select="color"`` takes pixels nearer ``color`` than half-way to the
region's first-frame background colour (its median over the half of its pixels farthest from ``color``);
``"darker"`` / ``"brighter"`` take pixels whose luma departs from the first-frame background luma by more than
:data:`~lawful.perceive.region_kinds.K_SELECT` robust standard deviations of that background (a shadow, a
glow). With ``learn="each"`` the background is learned in every frame, and ``color`` moves (in Lab) as the
background moved since the first frame: light that drifts (a studio's exposure flicker, 3 L units from frame to
frame) brightens what is read and its surroundings alike, and a colour only 11 L units from the brine around it
(ice seen through it) is no longer taken for it in a bright frame. That needs the colour to cover less than half
of the region in the first frame (the farther half of its pixels is then background); where it covers more, the
first frame's colours are kept. A reading with no usable pixels is ``ok=False`` with NaN values, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from lawful.perceive.region_kinds import (  # noqa: F401 (Probe: the tasks import it here)
    KEYS, READ, Probe, _lab, _learn, _selected,
)

MARGIN = 0.12  # share of the frame kept around the regions so a compensated camera can move that far


@dataclass
class RegionSeries:
    """One probe's readings over the tracked samples: ``ok`` ``[T]``, ``sigma`` ``[T]``, ``values`` (see kinds)."""

    name: str
    kind: str
    ok: np.ndarray
    sigma: np.ndarray
    values: dict[str, np.ndarray] = field(default_factory=dict)
    columns: np.ndarray | None = None
    meta: dict = field(default_factory=dict)

    def __getitem__(self, key: str) -> np.ndarray:
        return self.values[key]

    @property
    def readable(self) -> float:
        """Share of samples with a reading."""
        return float(np.mean(self.ok)) if len(self.ok) else 0.0

    @classmethod
    def from_values(cls, name: str, kind: str, sigma=0.0, **values) -> "RegionSeries":
        """Readings made elsewhere (tests, another tool): ``ok`` where every ``[T]`` value is finite."""
        vals = {k: np.asarray(v, float) for k, v in values.items()}
        T = len(next(iter(vals.values())))
        ok = np.ones(T, bool)
        for v in vals.values():
            ok &= np.isfinite(v.reshape(T, -1)).any(1) if v.ndim > 1 else np.isfinite(v)
        return cls(name, kind, ok, np.broadcast_to(np.asarray(sigma, float), (T,)).copy(), vals)

    def to_dict(self, decimals: int = 2) -> dict:
        """JSON-friendly evidence."""
        def r(a):
            a = np.asarray(a, float)
            return np.where(np.isfinite(a), np.round(a, decimals), np.nan).tolist()
        out = {"kind": self.kind, "ok": self.ok.astype(bool).tolist(), "sigma": r(self.sigma),
               "values": {k: r(v) for k, v in self.values.items()}, **({"meta": self.meta} if self.meta else {})}
        if self.columns is not None:
            out["columns"] = r(self.columns)
        return _nan_to_none(out)


def _nan_to_none(x):
    if isinstance(x, dict):
        return {k: _nan_to_none(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_nan_to_none(v) for v in x]
    return None if isinstance(x, float) and x != x else x


# --- reading ------------------------------------------------------------------------------------


class Reader:
    """Collects crops of the probes' regions while frames are decoded, reads them at the end.

    ``sx, sy``: case pixels per tracking pixel. Crops are kept (not read at once) because camera
    transforms are final only after the last frame.
    """

    def __init__(self, probes, frame_size: tuple[int, int], sx: float, sy: float, margin: bool):
        self.probes = list(probes)
        self.sx, self.sy = sx, sy
        w, h = frame_size
        boxes = np.array([self._track_box(p) for p in self.probes], float)
        mx, my = (MARGIN * w, MARGIN * h) if margin else (1.0, 1.0)
        self.origin = (max(0, int(np.floor(boxes[:, 0].min() - mx))), max(0, int(np.floor(boxes[:, 1].min() - my))))
        self.end = (min(w, int(np.ceil(boxes[:, 2].max() + mx)) + 1), min(h, int(np.ceil(boxes[:, 3].max() + my)) + 1))
        self.crops: list[np.ndarray] = []

    def _track_box(self, p: Probe) -> tuple[float, float, float, float]:
        x0, y0, x1, y1 = p.box()
        return ((x0 + 0.5) / self.sx - 0.5, (y0 + 0.5) / self.sy - 0.5, (x1 + 0.5) / self.sx - 0.5,
                (y1 + 0.5) / self.sy - 0.5)

    def add(self, frame: np.ndarray) -> None:
        (x0, y0), (x1, y1) = self.origin, self.end
        self.crops.append(frame[y0:y1, x0:x1].copy())

    def read(self, transforms: list[np.ndarray] | None) -> dict[str, RegionSeries]:
        """Every probe's readings; ``transforms``: frame → frame-0 ``[2, 3]`` (tracking px) per crop, or None.

        A frame that needs no warp is read from its uint8 crop (regions are views, no float copy; no pixel
        can fall outside the frame, so no finiteness test), with Lab converted once per frame over
        :meth:`_lab_boxes` for every colour-selecting probe: the same numbers as reading float32 copies."""
        geo = []
        for p in self.probes:
            bx = self._track_box(p)
            X0, Y0 = int(np.floor(bx[0])), int(np.floor(bx[1]))
            W, H = int(np.ceil(bx[2])) - X0 + 1, int(np.ceil(bx[3])) - Y0 + 1
            geo.append((X0, Y0, W, H, self._mask(p, X0, Y0, W, H)))
        small = [_too_small(p, g[4]) for p, g in zip(self.probes, geo)]
        colour = [p.kind in ("line", "blobs", "profile") and p.select == "color" and not s
                  for p, s in zip(self.probes, small)]
        boxes, lab_at = self._lab_boxes(geo, colour)
        ox, oy = self.origin
        rows: list[list] = [[] for _ in self.probes]
        states: list[dict] = [{} for _ in self.probes]
        for i, c in enumerate(self.crops):
            A = None if transforms is None else transforms[i]
            ident = A is None or bool(np.all(np.abs(A - np.eye(2, 3)) <= 1e-8 + 1e-5 * np.eye(2, 3)))  # np.allclose
            labs = [_lab(c[y0:y1, x0:x1]) for x0, y0, x1, y1 in boxes] if ident else None
            c32 = None if ident else c.astype(np.float32)  # warped once per probe: converted once per frame
            inv = None if ident else np.linalg.inv(np.vstack([A, [0, 0, 1]]))[:2]  # frame 0 → this frame
            for j, p in enumerate(self.probes):
                if small[j]:
                    rows[j].append(None)
                    continue
                X0, Y0, W, H, mask = geo[j]
                img, m = (_cut(c, ox, oy, X0, Y0, W, H), mask) if ident else self._aligned(c32, inv, X0, Y0, W, H, mask)
                fresh = i == 0 or (p.learn == "each" and states[j].get("each", True))  # learn="each": every frame
                lab = _cut(labs[lab_at[j][0]], *lab_at[j][1:], X0, Y0, W, H) if colour[j] and ident else None
                state = _learn(p, np.asarray(img, np.float32), m, lab) if fresh else states[j]
                if i and fresh and "target" in state:  # light that drifts moves what is selected with the background
                    state = {**state, "target": states[j]["target"] + state["background_lab"]
                             - states[j]["background_lab"]}
                elif not i and p.learn == "each" and "target" in state:
                    state["each"] = _background_is_half(p, img, m, state, lab)
                states[j] = states[j] if i else state
                if colour[j]:  # the Lab of an unwarped frame's box holding the region
                    state = {**state, "lab": lab}
                rows[j].append(READ[p.kind](p, img, m, state))
        out = {p.name: _series(p, rows[j], states[j], geo[j][4], geo[j][:2], self.sx, self.sy)
               for j, p in enumerate(self.probes)}
        for p, why in zip(self.probes, small):
            if why:
                out[p.name].meta["reason"] = why
        return out

    def _lab_boxes(self, geo: list, colour: list[bool]) -> tuple[list[tuple], dict[int, tuple[int, int, int]]]:
        """Crop boxes ``(x0, y0, x1, y1)`` whose Lab an unwarped frame needs (the colour probes' regions clipped
        to the crop, or their union where that is smaller) and, per probe, its box and the box's frame origin."""
        ox, oy = self.origin
        own = {j: (max(0, g[0] - ox), max(0, g[1] - oy), min(self.end[0], g[0] + g[2]) - ox,
                   min(self.end[1], g[1] + g[3]) - oy) for j, g in enumerate(geo) if colour[j]}
        if not own:
            return [], {}
        b = np.array(list(own.values()))
        union = tuple(int(v) for v in (*b[:, :2].min(0), *b[:, 2:].max(0)))
        one = (union[2] - union[0]) * (union[3] - union[1]) <= np.prod(b[:, 2:] - b[:, :2], 1).sum()
        boxes = [union] if one else list(own.values())
        at = {j: 0 if one else k for k, j in enumerate(own)}
        return boxes, {j: (k, ox + boxes[k][0], oy + boxes[k][1]) for j, k in at.items()}

    def _mask(self, p: Probe, X0: int, Y0: int, W: int, H: int) -> np.ndarray:
        if len(p.region) == 4 and np.ndim(p.region[0]) == 0:
            return np.ones((H, W), bool)
        poly = np.asarray(p.region, float).reshape(-1, 2)
        pts = np.stack([(poly[:, 0] + 0.5) / self.sx - 0.5 - X0, (poly[:, 1] + 0.5) / self.sy - 0.5 - Y0], 1)
        m = np.zeros((H, W), np.uint8)
        cv2.fillPoly(m, [np.round(pts * 16).astype(np.int32)], 1, shift=4)
        return m > 0

    def _aligned(self, crop: np.ndarray, inv: np.ndarray, X0: int, Y0: int, W: int, H: int, mask: np.ndarray):
        """The region ``[X0, X0+W) x [Y0, Y0+H)`` of frame 0's pixels as this frame shows them (``inv``: frame 0 →
        this frame; float32 RGB, NaN off the frame) and ``mask`` where it is on the frame (finite in every channel)."""
        ox, oy = self.origin
        # dst pixel u (region-local) ↦ crop pixel inv(u + (X0, Y0)) − origin
        G = inv.copy()
        G[:, 2] = inv[:, :2] @ np.array([X0, Y0], float) + inv[:, 2] - np.array([ox, oy], float)
        out = cv2.warpAffine(np.asarray(crop, np.float32), G, (W, H), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                             borderMode=cv2.BORDER_CONSTANT, borderValue=(np.nan,) * 3)
        fin = np.isfinite(out)
        return out, mask & fin[..., 0] & fin[..., 1] & fin[..., 2]  # np.isfinite(out).all(2), without a reduction


def _background_is_half(p: Probe, img: np.ndarray, mask: np.ndarray, state: dict, lab: np.ndarray | None) -> bool:
    """Whether the colour selected in the first frame covers less than half of the region, so that the farther half
    of its pixels (whose median is the background) is background: only then does ``learn="each"`` move the colour
    with it. (A region the colour fills, a box drawn tight round a block of ice, gives a background of the ice's own
    shading; learned again once the ice has melted, it moved the colour onto the water: P26 read ice to the end.)"""
    return 2 * int(np.count_nonzero(_selected(p, img, mask, {**state, "lab": lab}))) < int(np.count_nonzero(mask))


def _cut(a: np.ndarray, ox: int, oy: int, X0: int, Y0: int, W: int, H: int) -> np.ndarray:
    """The box ``[X0, X0+W) x [Y0, Y0+H)`` of an image whose pixel (0, 0) is ``(ox, oy)``: a view when it lies
    inside, else a zero-padded copy (black, Lab 0, off the frame)."""
    ys, xs = Y0 - oy, X0 - ox
    if ys >= 0 and xs >= 0 and ys + H <= a.shape[0] and xs + W <= a.shape[1]:
        return a[ys:ys + H, xs:xs + W]
    out = np.zeros((H, W, a.shape[2]), a.dtype)
    src = a[max(0, ys):max(0, ys + H), max(0, xs):max(0, xs + W)]
    out[max(0, -ys):max(0, -ys) + src.shape[0], max(0, -xs):max(0, -xs) + src.shape[1]] = src
    return out


def _too_small(p: Probe, mask: np.ndarray) -> str | None:
    """Why a probe's region cannot be read at the tracking size (a level needs rows of both media), or None."""
    rows = int(mask.any(1).sum())
    need = 3 if p.kind == "level" else 1
    if rows < need or not mask.any():
        return f"region {p.name} spans {rows} row(s) at the working size (a {p.kind} reading needs {need})"
    return None


def _series(p: Probe, rows: list, state: dict, mask: np.ndarray, origin, sx: float, sy: float) -> RegionSeries:
    """One probe's per-frame readings ``rows`` (``(values, sigma)`` or None) as a :class:`RegionSeries`."""
    T = len(rows)
    ok = np.array([r is not None for r in rows], bool)
    keys = next((list(r[0]) for r in rows if r is not None), list(KEYS[p.kind]))  # never read: all NaN
    shape = {"blobs": (p.count,), "profile": (mask.shape[1],)}.get(p.kind, ())
    values = {k: np.full((T, *shape), np.nan) for k in keys}
    sigma = np.full(T, np.nan)
    for i, r in enumerate(rows):
        if r is not None:
            for k in keys:
                values[k][i] = r[0][k]
            sigma[i] = r[1]
    X0, Y0 = origin
    scale = {"x": ("x", sx), "cx": ("x", sx), "x0": ("x", sx), "x1": ("x", sx), "mid": ("x", sx), "y": ("y", sy),
             "cy": ("y", sy), "y0": ("y", sy), "y1": ("y", sy), "row": ("y", sy), "top": ("y", sy)}
    for k, v in values.items():  # tracking px of the region → case px of frame 0
        if k in scale:
            ax, s = scale[k]
            values[k] = (v + (X0 if ax == "x" else Y0) + 0.5) * s - 0.5
        elif k == "band":  # rows
            values[k] = v * sy
        elif k in ("rms", "length", "r"):
            values[k] = v * np.sqrt(sx * sy)
        elif k == "area":
            values[k] = v * sx * sy
    if p.kind in ("level", "line"):
        sigma = sigma * (sy if p.kind == "level" else np.sqrt(sx * sy))
    columns = (np.arange(mask.shape[1]) + X0 + 0.5) * sx - 0.5 if p.kind == "profile" else None
    meta = {k: v for k, v in state.items() if k in ("background", "above", "below", "bg_luma", "bg_sd")}
    return RegionSeries(p.name, p.kind, ok, sigma, values, columns,
                        {k: [round(float(x), 2) for x in np.atleast_1d(v)] for k, v in meta.items()})
