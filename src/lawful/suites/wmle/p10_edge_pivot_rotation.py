"""P10 — forced rotation about a support edge (WMLE appendix B.2).

A tall block stands on the floor. A horizontal rod pushes its upper left face until the block turns
about its lower right edge past the tipping angle, then it falls over about that same edge and
lies on its right face, without sliding away. A rigid block pivoting about a fixed edge keeps the
pivot in place, stays in contact with the floor and keeps its edge lengths.

M1 ``E = max(e_pivot, e_contact, e_shape)`` and ``s1 = I[Δθ ≥ 5°] · q(E; 0.02)``; M2 is not defined.

Extraction (first-frame pixels; samples where the block is hidden are skipped, never interpolated):

- pivot ``P0``: the first-frame lower right corner of the block's box; ``r(t) = |c(t) - P0|`` for the
  centroid ``c``; the rotation ``φ(t)`` is the angle swept by ``c - P0`` since the first frame
  (clockwise on screen). A rigid body turning about a fixed ``P0`` keeps ``r`` constant and turns
  by exactly that angle;
- pivot drift: the corner carried back from the centroid, ``P(t) = c(t) - R(φ) (c0 - P0)``; with
  ``φ`` from the centroid this is the radial deviation ``|r(t) - r(0)|``;
- ground gap: the lowest corner of the block posed at ``(c, φ)``, ``|y_low(t) - y_low(0)|`` (the
  first frame stands on the floor);
- shape: the mask area's mean edge ``sqrt(A)`` and, within 10° of an axis (where mask corners do not
  shorten the box), the edge lengths solved from the tracked box and ``φ``
  (``bw = w|cos φ| + h|sin φ|``, ``bh = w|sin φ| + h|cos φ|``), each compared with the first frame;
- noise adjustment: drift and gap are their 95th percentiles minus twice the pixel noise floor
  ``n = max(1.5 px, jitter)`` (jitter: robust scatter of the centroid about a local smooth; 1.5 px
  is the resolution of colour-mask boundaries in compressed 4:2:0 video, where chroma is sampled
  every second pixel and blends with the floor and shadow), clipped at zero and divided by the
  first-frame diagonal. Each sample's edge change has ``2 n_e`` removed, ``n_e`` being ``n``
  carried through the box-to-edge solve with a 1.5° orientation allowance (see :func:`shape_change`);
  the area edge ``sqrt(A)`` has ``n (w + h) / sqrt(w h)`` removed (every side of the ``w x h`` box
  shifted by ``n``) plus a motion-blur allowance for the mask smeared along the motion in one sample
  interval; ``e_shape`` is the 95th percentile of the largest relative change;
- ``Δθ``: the largest rotation seen within one run of consecutive visible samples lasting at least
  four samples and 0.3 s.

The block carries a painted spot so that its turning is visible to a generator; the extraction does
not rely on the spot's tracked direction, which stray boundary pixels of a compressed video can
tilt by several degrees (too much for a 2-pixel scale).

Twin: the block's support edge slides right by ``anti_slide_fraction`` (0.15–0.30) of its diagonal
as it turns over.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import events
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, event, \
    frame_times, style_of
from lawful.tracks import Tracks
from lawful.world.appearance import Style, object_colors
from lawful.world.draw import Block, Scene

G = 9.81
MIN_ROTATION_DEG = 5.0
MIN_RUN_SAMPLES, MIN_RUN_S = 4, 0.3
NOISE_FLOOR_MIN_PX = 1.5
# Box-derived edges only within 10° of an axis: mask corners of a turned block are rounded off by
# blur and chroma subsampling, which shortens the box of a tilted block by ~2 px a side.
BOX_EDGE_MIN_COS2 = math.cos(math.radians(20.0))
# Orientation allowance in the box-to-edge solve.
ANGLE_RESOLUTION = math.radians(1.5)
ROD_COLOR = (128, 131, 136)
ROD_THICK = 10.0


def rotation_about_edge(e_pivot: float | None, e_contact: float | None, e_shape: float | None,
                        rotation_deg: float | None) -> MetricScore:
    """M1: ``s1 = I[Δθ ≥ 5°] q(max(e_pivot, e_contact, e_shape); 0.02)``."""
    if rotation_deg is None:
        return MetricScore.operational_zero("no posed interval to measure the rotation")
    if rotation_deg < MIN_ROTATION_DEG:
        return MetricScore.measured(0.0, None, f"rotation {rotation_deg:.1f}° < {MIN_ROTATION_DEG:g}°",
                                    rotation_deg=rotation_deg)
    errs = [e_pivot, e_contact, e_shape]
    if any(e is None for e in errs):
        return MetricScore.operational_zero("pivot, contact or shape error not resolved", rotation_deg=rotation_deg)
    E = max(errs)
    return MetricScore.measured(q(E, 0.02), E, e_pivot=e_pivot, e_contact=e_contact, e_shape=e_shape,
                                rotation_deg=rotation_deg)


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


def rot(phi: float | np.ndarray) -> np.ndarray:
    """Screen-clockwise rotation matrices ``[..., 2, 2]`` (image axes, y down)."""
    c, s = np.cos(phi), np.sin(phi)
    return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)


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


# ----------------------------------------------------------------------------- scene and motion


@dataclass
class SpottedBlock(Block):
    """A block with a dark round spot at body offset ``(spot_dx, spot_dy)`` (px, before rotation).

    Painted with a soft light gradient and no dark edge (unlike :class:`Block`), so that the spot is
    the only part of the face far from the body's lightness: the tracker's marker angle is the
    direction from the centroid to such pixels. The spot is large so that stray pixels (a compressed
    edge against a dark floor) barely move that direction.
    """

    spot_dx: float = 0.0
    spot_dy: float = 0.0
    spot_r: float = 6.0

    def draw(self, img: np.ndarray, style: Style) -> None:
        x0, y0, x1, y1 = self.bbox()
        hgt, wid = img.shape[:2]
        c0, r0 = max(int(math.floor(x0)) - 2, 0), max(int(math.floor(y0)) - 2, 0)
        c1, r1 = min(int(math.ceil(x1)) + 3, wid), min(int(math.ceil(y1)) + 3, hgt)
        if c1 <= c0 or r1 <= r0:
            return
        dx = (np.arange(c0, c1, dtype=np.float32) - self.x)[None, :]
        dy = (np.arange(r0, r1, dtype=np.float32) - self.y)[:, None]
        c, s = math.cos(self.angle), math.sin(self.angle)
        qx, qy = c * dx + s * dy, -s * dx + c * dy  # body coordinates
        ex, ey = np.abs(qx) - self.w / 2, np.abs(qy) - self.h / 2
        d = np.sqrt(np.maximum(ex, 0) ** 2 + np.maximum(ey, 0) ** 2) + np.minimum(np.maximum(ex, ey), 0)
        alpha = np.clip(0.5 - d, 0.0, 1.0)[..., None]
        lx, ly = style.light_dir
        grad = (dx * lx + dy * ly) / (0.5 * math.hypot(self.w, self.h))
        intensity = 0.9 + 0.05 * grad
        col = np.asarray(self.color, np.float32) * intensity[..., None]
        ds = np.hypot(qx - self.spot_dx, qy - self.spot_dy)
        spot = np.clip(self.spot_r - ds + 0.5, 0.0, 1.0)[..., None]
        col = col * (1 - spot) + 0.3 * np.asarray(self.color, np.float32) * spot
        win = img[r0:r1, c0:c1].astype(np.float32)
        img[r0:r1, c0:c1] = np.clip(win * (1 - alpha) + col * alpha + 0.5, 0, 255).astype(np.uint8)


def tilt(k: dict, t: np.ndarray) -> np.ndarray:
    """Rotation φ (rad, clockwise) of the block at times ``t``: at rest until the rod reaches it, pushed
    at a steady rate past the tipping angle, then falling about its edge until it lies on its side."""
    t = np.asarray(t, float)
    w_rate = math.radians(k["push_rate_deg_s"])
    phi_tip = math.atan2(k["w_px"], k["h_px"])
    phi_push = math.radians(k["push_to_deg"])
    t_push_end = k["contact_s"] + phi_push / w_rate
    wn2 = 3.0 * k["g"] / (2.0 * k["diag_m"])  # psi'' = (3 g / 2 d) sin psi about the corner

    def fall(_, y):
        return (y[1], wn2 * math.sin(y[0]))

    def lands(_, y):
        return y[0] + phi_tip - math.pi / 2

    lands.terminal, lands.direction = True, 1
    sol = solve_ivp(fall, (0.0, 10.0), (phi_push - phi_tip, w_rate), events=lands, dense_output=True,
                    rtol=1e-9, atol=1e-12)
    t_land = float(sol.t_events[0][0])
    out = np.zeros_like(t)
    push = (t >= k["contact_s"]) & (t < t_push_end)
    out[push] = w_rate * (t[push] - k["contact_s"])
    falling = (t >= t_push_end) & (t < t_push_end + t_land)
    if falling.any():
        out[falling] = sol.sol(t[falling] - t_push_end)[0] + phi_tip
    out[t >= t_push_end + t_land] = math.pi / 2
    return out


def pivot_x(k: dict, phi: np.ndarray, law: str) -> np.ndarray:
    """Pivot column (px): fixed in the reference; sliding right as the block turns in the twin."""
    base = np.full_like(np.asarray(phi, float), k["pivot_x"])
    if law == "anti":
        base = base + k["anti_slide_fraction"] * k["diag_px"] * np.asarray(phi) / (math.pi / 2)
    return base


def block_pose(k: dict, phi: float, px: float) -> tuple[float, float]:
    """Block centre (px) for rotation ``phi`` about the lower right corner at ``(px, ground_y)``."""
    c = np.array([px, k["ground_y"]]) + rot(phi) @ np.array([-k["w_px"] / 2, -k["h_px"] / 2])
    return float(c[0]), float(c[1])


def rod_tip(k: dict, t: float, law: str) -> float:
    """Rod tip column (px): approaching at a steady speed, on the block's left face while pushing, then
    held where the push ended."""
    face0 = k["pivot_x"] - k["w_px"]
    if t < k["contact_s"]:
        return face0 - k["rod_speed_px_s"] * (k["contact_s"] - t)
    phi = min(math.radians(k["push_rate_deg_s"]) * (t - k["contact_s"]), math.radians(k["push_to_deg"]))
    P = np.array([float(pivot_x(k, np.array(phi), law)), k["ground_y"]])
    A = P + rot(phi) @ np.array([-k["w_px"], 0.0])
    B = P + rot(phi) @ np.array([-k["w_px"], -k["h_px"]])
    lam = (k["rod_y"] - A[1]) / (B[1] - A[1])
    return float(A[0] + lam * (B[0] - A[0]))


class EdgePivotRotation(WmleTask):
    """A rod pushes a tall block over about its lower right edge."""

    name = "edge_pivot_rotation"
    label = "P10"
    family = FAMILIES[1]
    level = "M"
    required_objects = ("block",)
    required_events = ("rotation_start",)

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        w = float(rng.uniform(44.0, 56.0))
        h = float(rng.uniform(84.0, 100.0))
        ground_y = float(rng.uniform(296.0, 318.0))
        px = float(rng.uniform(320.0, 380.0))
        h_m = float(rng.uniform(0.2, 0.35))
        ppm = h / h_m
        phi_tip = math.degrees(math.atan2(w, h))
        color = object_colors(seed, 1)[0]
        k = {
            "g": G, "w_px": round(w, 3), "h_px": round(h, 3), "ground_y": round(ground_y, 2), "pivot_x": round(px, 3),
            "px_per_m": round(ppm, 4), "diag_px": round(math.hypot(w, h), 4),
            "diag_m": round(math.hypot(w, h) / ppm, 6),
            "contact_s": round(float(rng.uniform(0.35, 0.55)), 4),
            "push_rate_deg_s": round(float(rng.uniform(32.0, 44.0)), 3),
            "push_to_deg": round(phi_tip + float(rng.uniform(3.0, 5.0)), 4),
            "rod_y": round(ground_y - float(rng.uniform(0.74, 0.84)) * h, 2), "rod_speed_px_s": 90.0,
            "spot": [round(-0.2 * w, 3), round(-0.3 * h, 3), round(0.26 * w, 3)],
            "color": list(color), "style_seed": int(seed),
            "anti_slide_fraction": round(float(rng.uniform(0.15, 0.30)), 5),
            "anti_note": "twin: the support edge slides right by anti_slide_fraction of the diagonal as the "
                         "block turns",
        }
        duration = 3.0
        cx, cy = block_pose(k, 0.0, px)
        objects = [ObjectSpec(id="block", shape="block", color=tuple(color),
                              box=(cx - w / 2 - 1, cy - h / 2 - 1, cx + w / 2 + 1, cy + h / 2 + 1),
                              known={"width_px": w, "height_px": h})]
        prompt = (
            "Fixed side view of a tall rectangular block with a dark spot painted near its upper left corner, "
            "standing upright on a flat floor. A grey metal rod comes in horizontally from the left, touches the "
            "block's left face near the top and pushes it slowly to the right. The block tips over about its "
            "lower right edge, which stays in place on the floor, and falls onto its right side, where it lies "
            "still. It does not slide. The camera does not move and time runs at a steady rate.")
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=int(seed), variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration, prompt=prompt, objects=objects,
            assumptions=["rigid block", "no sliding at the support edge", "the floor is flat and fixed",
                         "fixed side view, uniform time"],
            criteria=["M1: I[rotation >= 5 deg] q(max(pivot drift, ground gap, shape change); 0.02)"], known=k)
        t = frame_times(case)
        phi = tilt(k, t)
        rows = [(round(float(a), 5), *map(lambda v: round(v, 3), block_pose(k, float(p), px))) for a, p in zip(t, phi)]
        case.truth = GroundTruth(tracks={"block": rows},
                                 events={"rotation_start": k["contact_s"]},
                                 quantities={"E": 0.0, "rotation_deg": 90.0,
                                             "anti_e_pivot": k["anti_slide_fraction"]})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k = case.known
        scene = Scene(case.width, case.height, style_of(case)).ground(k["ground_y"])
        t = frame_times(case)
        phi = tilt(k, t)
        pxs = pivot_x(k, phi, law)
        dx, dy, sr = k["spot"]
        for i in range(len(t)):
            tip = rod_tip(k, float(t[i]), law)
            cx, cy = block_pose(k, float(phi[i]), float(pxs[i]))
            rod_len = tip + 30.0
            items = [Block(tip - rod_len / 2, k["rod_y"], rod_len, ROD_THICK, 0.0, ROD_COLOR),
                     SpottedBlock(cx, cy, k["w_px"], k["h_px"], float(phi[i]), tuple(k["color"]), dx, dy, sr)]
            yield scene.frame(items)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        tr = tracks["block"]
        t = np.asarray(tracks.t, float)
        vis = np.asarray(tr.visible, bool)
        if vis.sum() < MIN_RUN_SAMPLES or not vis[0]:
            m.notes["unresolved"] = "block not tracked from the first frame"
            return m
        noise = max(NOISE_FLOOR_MIN_PX, jitter_px(np.where(vis[:, None], tr.xy, np.nan)))
        c0 = tr.xy[0]
        bw0, bh0 = tr.box[0, 2] - tr.box[0, 0] + 1, tr.box[0, 3] - tr.box[0, 1] + 1
        diag0 = math.hypot(bw0, bh0)
        corners = np.array([[-bw0, -bh0], [bw0, -bh0], [bw0, bh0], [-bw0, bh0]]) / 2  # about c0, φ = 0
        p0 = c0 + corners[2]
        rel = np.where(vis[:, None], tr.xy - p0, np.nan)
        phi = np.full(len(t), np.nan)
        phi[vis] = np.unwrap(np.arctan2(rel[vis, 1], rel[vis, 0]))
        phi = phi - phi[0]
        posed = vis & np.isfinite(phi)
        R = rot(np.where(posed, phi, 0.0))
        drift = np.where(posed, np.hypot(*(tr.xy - np.einsum("tij,j->ti", R, c0 - p0) - p0).T), np.nan)
        low = tr.y + np.einsum("tij,kj->tki", R, corners)[..., 1].max(axis=1)
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
            m.events.append(event("block", "rotation_start", float(moving[0]), tracks))
        down = np.flatnonzero(np.isfinite(phi) & (np.abs(phi) > math.radians(80.0)))
        if len(down):
            m.events.append(event("block", "lies_down", float(down[0]), tracks))
        if np.isfinite(drift).any():
            m.notes["drift_px_p95"] = float(np.nanpercentile(drift, 95))
            m.notes["gap_px_p95"] = float(np.nanpercentile(gap, 95))
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            return {"M1": MetricScore.operational_zero(m.notes["unresolved"])}
        return {"M1": rotation_about_edge(m.get("e_pivot"), m.get("e_contact"), m.get("e_shape"),
                                          m.get("rotation_deg"))}
