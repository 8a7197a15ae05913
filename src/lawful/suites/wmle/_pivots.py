"""Extraction for WMLE P10 (a block turned over about its support edge): pivot drift, ground gap, shape
change and the rotation, from first-frame pixels (samples where the block is hidden are skipped, never
interpolated).

- pivot ``P0``: the first-frame lower right corner of the block's box; ``r(t) = |c(t) - P0|`` for the
  centroid ``c``; the rotation ``φ(t)`` is the angle swept by ``c - P0`` since the first frame
  (clockwise on screen). A rigid body turning about a fixed ``P0`` keeps ``r`` constant and turns
  by exactly that angle;
- pivot drift: the corner carried back from the centroid, ``P(t) = c(t) - R(φ) (c0 - P0)``; with
  ``φ`` from the centroid this is the radial deviation ``|r(t) - r(0)|``;
- ground gap: the lowest corner's height above the first frame's (which stands on the floor), ``|y_low(t) -
  y_low(0)|``, read off the mask's box, whose bottom is the silhouette's lowest point at any angle: no pose model.
  The lowest corner of the first-frame box posed at ``(c, φ)`` inherits the centroid's error, which a 3-D view
  makes pose-dependent (its visible top face: studio seed 7600's lawful block read a 4.2 px gap where the box
  bottom moved 1.8 px, P95);
- shape: the mask area's mean edge ``sqrt(A)`` and, within 10° of an axis (where mask corners do not
  shorten the box), the edge lengths solved from the tracked box and ``φ``
  (``bw = w|cos φ| + h|sin φ|``, ``bh = w|sin φ| + h|cos φ|``), each compared with the first frame;
- noise adjustment: drift and gap are their 95th percentiles minus twice the noise floor
  ``n = max(1.5 px, jitter)`` (jitter: robust scatter of the centroid about a local smooth; 1.5 px
  is the resolution of colour-mask boundaries in compressed 4:2:0 video, where chroma is sampled
  every second pixel and blends with the floor and shadow; pixels of the image the masks are made
  in, ``tracks.meta["track_size"]``, so 4.5 case px for a 1920-wide case tracked at 640), combined in
  quadrature with the error of the frame the positions are measured in (below), clipped at zero and divided
  by the first-frame diagonal. Each sample's edge change has ``2 n_e`` removed, ``n_e`` being ``n``
  carried through the box-to-edge solve with a 1.5° orientation allowance (see :func:`shape_change`);
  the area edge ``sqrt(A)`` has ``n (w + h) / sqrt(w h)`` removed (every side of the ``w x h`` box
  shifted by ``n``) plus a motion-blur allowance for the mask smeared along the motion in one sample
  interval; ``e_shape`` is the 95th percentile of the largest relative change;
- ``Δθ``: the largest rotation seen within one run of consecutive visible samples lasting at least
  four samples and 0.3 s;
- the frame: every quantity compares positions with the first frame's, so the frame must hold still.
  Where the camera's motion was compensated, the compensation's stated standard error
  (``meta["camera"]["uncertainty_px"]``) is the frame's error. Where the tracker judged its camera
  estimate unreliable (the camera may have moved unseen), the block itself is the witness: it rests
  before the push and after the fall (box aspect ``bw / bh`` within its noise of the first or the
  last samples', which neither a pan nor a zoom changes), and in the longer rest its centroid and,
  through ``sqrt(A)``, the lever to its corner (half the diagonal) may not move. The rest's rate
  (least squares, with its standard error ``σ_v``) less ``k σ_v`` (:func:`lawful.perceive.noise.k_for`),
  times the clip's span, is frame motion the measurement cannot tell from a sliding pivot: beyond
  ``2 n`` the block is unresolved (unmeasurable, with the reason); within it, ``σ_v`` times the span
  is the frame's error.

The block's painted spot is not used: stray boundary pixels of a compressed video can tilt its
tracked direction by several degrees (too much for a 2-pixel scale).
"""

from __future__ import annotations

import math

import numpy as np

from lawful.case import Case
from lawful.perceive import events, noise as pnoise
from lawful.result import Measurement
from lawful.suites.wmle.common import event
from lawful.tracks import Tracks
from lawful.world.scenes.pivots import rot

MIN_RUN_SAMPLES, MIN_RUN_S = 4, 0.3
# Box-derived edges only within 10° of an axis: mask corners of a turned block are rounded off by
# blur and chroma subsampling, which shortens the box of a tilted block by ~2 px a side.
BOX_EDGE_MIN_COS2 = math.cos(math.radians(20.0))
# Orientation allowance in the box-to-edge solve.
ANGLE_RESOLUTION = math.radians(1.5)


def noise_adjusted(values: np.ndarray, noise_px: float, scale: float) -> float:
    """``max(0, P95(values) - 2 noise) / scale`` (NaN values ignored; NaN when none)."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if len(v) == 0 or scale <= 0:
        return math.nan
    return max(0.0, float(np.percentile(v, 95)) - 2.0 * noise_px) / scale


def largest_rotation(phi: np.ndarray, t: np.ndarray, min_samples: int = MIN_RUN_SAMPLES,
                     min_s: float = MIN_RUN_S) -> float | None:
    """Largest ``max φ - min φ`` (same units as ``phi``) within one run of consecutive finite samples
    lasting at least ``min_samples`` samples and ``min_s`` seconds; None when no run qualifies."""
    phi, t = np.asarray(phi, float), np.asarray(t, float)
    best = None
    edges = np.diff(np.concatenate([[0], np.isfinite(phi).astype(int), [0]]))
    for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)):
        if b - a < min_samples or t[b - 1] - t[a] < min_s - 1e-9:
            continue
        span = float(np.max(phi[a:b]) - np.min(phi[a:b]))
        best = span if best is None else max(best, span)
    return best


def edge_lengths(bw: np.ndarray, bh: np.ndarray, phi: np.ndarray, min_cos2: float = 0.5
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Edge lengths ``w, h`` of a rectangle from its axis-aligned box ``bw x bh`` and rotation ``phi``;
    NaN where ``|cos 2φ| < min_cos2`` (near 45° the box does not separate the edges)."""
    c, s = np.abs(np.cos(phi)), np.abs(np.sin(phi))
    det = c * c - s * s
    ok = np.abs(det) >= min_cos2
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(ok, (c * bw - s * bh) / det, np.nan)
        h = np.where(ok, (c * bh - s * bw) / det, np.nan)
    return w, h


def shape_change(box: np.ndarray, area: np.ndarray, phi: np.ndarray, noise: float) -> float:
    """Noise-adjusted relative edge-length change (95th percentile over posed samples).

    ``box`` ``[T, 4]`` inclusive pixel boxes, ``area`` ``[T]`` mask areas, ``phi`` ``[T]`` rotation
    since sample 0 (NaN: not posed). Per sample the largest of the box-derived width and height
    changes (within 10° of an axis, ``BOX_EDGE_MIN_COS2``; floor ``2 n_e`` removed with
    ``n_e = (n (|cos φ| + |sin φ|) + L sin 1.5°) / |cos 2φ|``, ``L`` the longer first-frame edge: the
    pixel floor and an orientation allowance carried through the solve) and the change of the
    mean edge ``sqrt(area)`` (floor ``n (w + h) / sqrt(w h)`` for boundaries each shifted by ``n``, plus
    ``b L / (2 sqrt(A))`` for a mask smeared by ``b = |Δφ| L`` along the motion, ``L`` the first-frame
    diagonal and ``Δφ`` the rotation over one sample interval), each divided by its first-frame length.
    NaN without posed samples.
    """
    bw = box[:, 2] - box[:, 0] + 1
    bh = box[:, 3] - box[:, 1] + 1
    w, h = edge_lengths(bw, bh, phi, BOX_EDGE_MIN_COS2)
    c, s = np.abs(np.cos(phi)), np.abs(np.sin(phi))
    with np.errstate(invalid="ignore", divide="ignore"):
        n_e = (noise * (c + s) + max(bw[0], bh[0]) * math.sin(ANGLE_RESOLUTION)) / np.abs(c * c - s * s)
        dw = np.maximum(0.0, np.abs(w - bw[0]) - 2 * n_e) / bw[0]
        dh = np.maximum(0.0, np.abs(h - bh[0]) - 2 * n_e) / bh[0]
    edge = np.sqrt(np.maximum(np.asarray(area, float), 0.0))
    diag = math.hypot(bw[0], bh[0])
    step = np.abs(np.gradient(phi)) if len(phi) > 1 else np.zeros(len(phi))
    smear = np.nan_to_num(step, nan=0.0) * diag * diag / (2.0 * max(edge[0], 1e-9))
    floor = noise * (bw[0] + bh[0]) / math.sqrt(bw[0] * bh[0]) + smear
    da = np.where(np.isfinite(phi), np.maximum(0.0, np.abs(edge - edge[0]) - floor) / edge[0], np.nan)
    per = np.fmax(np.fmax(np.nan_to_num(dw, nan=-1.0), np.nan_to_num(dh, nan=-1.0)), da)
    per = per[np.isfinite(phi)]
    if len(per) == 0:
        return math.nan
    return float(np.percentile(per, 95))


def jitter_px(xy: np.ndarray) -> float:
    """Robust scatter (px) of positions ``[n, 2]`` about a 7-sample Savitzky–Golay smooth."""
    res = []
    for k in range(2):
        v = np.asarray(xy[:, k], float)
        if np.isfinite(v).sum() < 8:
            continue
        d = v - events.smooth(v, 7, 2)
        d = d[np.isfinite(d)]
        res.append(1.4826 * float(np.median(np.abs(d - np.median(d)))))
    return max(res) if res else 0.0


def rest_windows(box: np.ndarray, vis: np.ndarray, noise: float) -> list[tuple[int, int]]:
    """Sample ranges ``[a, b)`` where the block rests: from sample 0 while its box aspect ``bw / bh`` stays
    within ``2 δ`` of the first sample's, and back from the last sample while it stays within ``2 δ`` of
    the median of the last four (``δ = a n sqrt(1/bw² + 1/bh²)``: each box side uncertain by ``n``).
    Hidden samples end a rest. The aspect of a turned rectangle does not change under a camera pan
    or zoom."""
    bw, bh = box[:, 2] - box[:, 0] + 1, box[:, 3] - box[:, 1] + 1
    with np.errstate(invalid="ignore", divide="ignore"):
        a = np.where(vis, bw / bh, np.nan)
        tol = 2 * a * noise * np.hypot(1 / bw, 1 / bh)
    out = []
    last = np.flatnonzero(np.isfinite(a))[-MIN_RUN_SAMPLES:]
    for ref, order in ((0, np.arange(len(a))), (last, np.arange(len(a))[::-1])):
        a_ref = float(np.median(a[ref]))
        still = np.abs(a - a_ref) <= tol
        n = int(np.argmin(still[order])) if not still.all() else len(a)
        out.append((0, n) if order[0] == 0 else (len(a) - n, len(a)))
    return out


def _rate(t: np.ndarray, v: np.ndarray) -> tuple[float, float]:
    """Least-squares slope of ``v`` over ``t`` and its standard error."""
    tc = t - t.mean()
    sxx = float(tc @ tc)
    slope = float(tc @ (v - v.mean())) / sxx
    r = v - v.mean() - slope * tc
    return slope, math.sqrt(float(r @ r) / max(len(t) - 2, 1) / sxx)


def rest_frame_motion(t: np.ndarray, xy: np.ndarray, box: np.ndarray, area: np.ndarray, vis: np.ndarray,
                      noise: float) -> dict | None:
    """Apparent motion of the frame where the block rests (the longer of :func:`rest_windows`, at least
    ``MIN_RUN_SAMPLES`` samples and ``MIN_RUN_S``): ``rate_px_s`` (centroid speed plus the rate the
    lever from the centroid to a corner, half the diagonal, grows at through ``sqrt(A)``), its standard
    error ``sd_px_s`` and the ``window``; None without such a rest."""
    a, b = max(rest_windows(box, vis, noise), key=lambda w: w[1] - w[0])
    if b - a < MIN_RUN_SAMPLES or t[b - 1] - t[a] < MIN_RUN_S - 1e-9:
        return None
    tt, edge = t[a:b], np.sqrt(area[a:b])
    (vx, sx), (vy, sy), (ve, se) = _rate(tt, xy[a:b, 0]), _rate(tt, xy[a:b, 1]), _rate(tt, edge)
    lever = 0.5 * math.hypot(box[a, 2] - box[a, 0] + 1, box[a, 3] - box[a, 1] + 1) / float(edge[0])
    return {"rate_px_s": math.hypot(vx, vy) + abs(ve) * lever, "sd_px_s": math.hypot(sx, sy) + se * lever,
            "window": [int(a), int(b)]}


def frame_error(camera: dict, t: np.ndarray, xy: np.ndarray, box: np.ndarray, area: np.ndarray,
                vis: np.ndarray, noise: float, px: float) -> tuple[float, str | None, dict]:
    """Standard error (case px) of the frame positions are compared in, a reason when the frame cannot be
    trusted (None otherwise) and the evidence (see the module docstring). ``camera``: the tracker's
    camera summary; ``px``: case px per tracked px."""
    if camera.get("reliable", True):
        sd = float(camera.get("uncertainty_px") or 0.0) * px if camera.get("compensated") else 0.0
        return sd, None, {"frame_sd_px": sd}
    why = f"camera estimate unreliable ({camera.get('reason', 'no reason given')})"
    rest = rest_frame_motion(t, xy, box, area, vis, noise)
    if rest is None:
        return math.nan, f"{why} and the block never rests to show the frame still", {}
    span = float(np.max(t[vis]) - t[0])
    moved = max(0.0, rest["rate_px_s"] - pnoise.k_for() * rest["sd_px_s"]) * span
    ev = {**rest, "frame_moved_px": moved, "frame_sd_px": rest["sd_px_s"] * span}
    if moved > 2 * noise:
        return math.nan, (f"{why}; the resting block (samples {rest['window'][0]}-{rest['window'][1] - 1}) moves "
                          f"{rest['rate_px_s']:.2f} ± {rest['sd_px_s']:.2f} px/s: the frame may move {moved:.1f} px "
                          f"over the clip, beyond the {2 * noise:.1f}-px noise allowance"), ev
    return rest["sd_px_s"] * span, None, ev


def edge_pivot_measurement(case: Case, tracks: Tracks, oid: str = "block") -> Measurement:
    """``noise_floor_px``, ``rotation_deg``, ``e_pivot``, ``e_contact``, ``e_shape`` and the events
    ``rotation_start`` (|φ| > 1°) and ``lies_down`` (|φ| > 80°) of ``oid`` (see the module docstring);
    ``notes["unresolved"]`` when the block is not tracked from the first frame or the frame may have moved;
    ``notes["frame"]``: the frame's evidence."""
    m = Measurement()
    tr = tracks[oid]
    t = np.asarray(tracks.t, float)
    vis = np.asarray(tr.visible, bool)
    if vis.sum() < MIN_RUN_SAMPLES or not vis[0]:
        m.notes["unresolved"] = "block not tracked from the first frame"
        return m
    px = tracks.case_px_per_tracked_px(case.width)
    noise = max(pnoise.mask_edge(tracks, case.width), jitter_px(np.where(vis[:, None], tr.xy, np.nan)))
    sd, why, m.notes["frame"] = frame_error(tracks.meta.get("camera") or {}, t, tr.xy, tr.box, tr.area, vis,
                                           noise, px)
    if why:
        m.notes["unresolved"] = why
        return m
    noise = math.hypot(noise, sd)
    c0 = tr.xy[0]
    bw0, bh0 = tr.box[0, 2] - tr.box[0, 0] + 1, tr.box[0, 3] - tr.box[0, 1] + 1
    diag0 = math.hypot(bw0, bh0)
    p0 = c0 + np.array([bw0, bh0]) / 2  # the first frame's lower right corner
    rel = np.where(vis[:, None], tr.xy - p0, np.nan)
    phi = np.full(len(t), np.nan)
    phi[vis] = np.unwrap(np.arctan2(rel[vis, 1], rel[vis, 0]))
    phi = phi - phi[0]
    posed = vis & np.isfinite(phi)
    R = rot(np.where(posed, phi, 0.0))
    drift = np.where(posed, np.hypot(*(tr.xy - np.einsum("tij,j->ti", R, c0 - p0) - p0).T), np.nan)
    low = tr.box[:, 3]  # the silhouette's lowest point, at any angle its lowest corner
    gap = np.where(posed, np.abs(low - low[0]), np.nan)
    rotation = largest_rotation(np.where(posed, phi, np.nan), t)
    m.set("noise_floor_px", noise)
    m.set("rotation_deg", math.degrees(rotation) if rotation is not None else None,
          "no run of posed samples long enough")
    m.set("e_pivot", noise_adjusted(drift, noise, diag0), "no posed samples")
    m.set("e_contact", noise_adjusted(gap, noise, diag0), "no posed samples")
    m.set("e_shape", shape_change(tr.box, tr.area, np.where(posed, phi, np.nan), noise),
          "no posed samples")
    moving = np.flatnonzero(np.isfinite(phi) & (np.abs(phi) > math.radians(1.0)))
    if len(moving):
        m.events.append(event(oid, "rotation_start", float(moving[0]), tracks))
    down = np.flatnonzero(np.isfinite(phi) & (np.abs(phi) > math.radians(80.0)))
    if len(down):
        m.events.append(event(oid, "lies_down", float(down[0]), tracks))
    if np.isfinite(drift).any():
        m.notes["drift_px_p95"] = float(np.nanpercentile(drift, 95))
        m.notes["gap_px_p95"] = float(np.nanpercentile(gap, 95))
    return m
