"""P30 — a magnet entering a coil lights its indicator (WMLE appendix B.7).

A bar magnet rests on a rail left of a fixed coil whose ends are wired to a two-lamp indicator
(one lamp per current direction). Pushed, it slides through the coil, comes out the other side and
stops. The changing flux as the magnet enters induces a current: a lamp flashes at entry (and the
other one at exit, the current reversed).

- M1 ``s1 = 0.5·I[E] + 0.5·I[L]``: ``E`` the magnet's leading end seen crossing the coil's entrance
  (``case.known["coil"]``, from outside, tracked), ``L`` a lamp lit at some sample within
  ``MATCH_S`` = 0.5 s of that entry (a lamp already lit that stays lit in that window qualifies too).
  With entry confirmed but the lamps unreadable in the window (fewer than half its samples read),
  ``s1 = 0.5``, the lower bound, ``[0.5, 1]`` in the evidence. M2 is not defined.

Readings: one ``brightness`` probe per lamp (:mod:`lawful.perceive.regions`, boxes from
``case.known["lamps"]``). A lamp is lit where its mean luma exceeds its off level (the clip's 10th
percentile) by more than ``k·√2·σ`` (σ the luma series' measured noise,
:func:`lawful.perceive.noise.sigma`, ``k`` for ``noise.FALSE_ALARM``) and ``LIT_FLOOR`` luma levels.
(A lamp lit through more than 90 % of the clip shows no off level to compare with: it reads as unlit.)
The magnet's leading end is its tracked north half's front edge (plus the south half's length when
the south end leads, ``known["north_leads"]``). C's observation interval ends just after the entry
(inside the coil the windings hide the magnet); extra factor ``indicator_readable``: share of the
window's samples with both lamps read.

Twin: no flash at entry; only the exit lamp lights, when the magnet leaves the coil (over 0.5 s later).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import noise
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.suites.base import Law
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, event, frame_times, style_of,
)
from lawful.tracks import Tracks
from lawful.world.draw import Scene
from lawful.world.em import COPPER, Coil, Led, Magnet, colors_clear_of

MATCH_S = 0.5
LIT_FLOOR = 15.0  # luma levels (6 % of full scale): a smaller rise is no visible light, whatever the noise
LAMPS = ("entry", "exit")
CLEAR_AREA = 0.85  # a sighting with at least this share of the first area is whole (not behind the coil)
FIT_N = 4  # clear sightings extrapolated to the entrance
EDGE_PX = 2.0  # a clear sighting's box ends more than this short of the coil
LAMP_COLORS = {"entry": (40, 210, 70), "exit": (235, 60, 40)}


def entry_and_light(entered: bool | None, lit: bool | None) -> MetricScore:
    """M1: ``0.5·I[E] + 0.5·I[L]``; ``lit`` None (unreadable indicator) with entry gives the lower bound 0.5."""
    if entered is None:
        return MetricScore.operational_zero("the magnet was not tracked before the coil")
    if entered and lit is None:
        return MetricScore.measured(0.5, None, reason="entry confirmed, indicator unreadable: lower bound 0.5 "
                                    "(range 0.5-1)", low=0.5, high=1.0)
    return MetricScore.measured(0.5 * bool(entered) + 0.5 * bool(entered and lit), None,
                                E=float(bool(entered)), L=float(bool(lit)))


def lit_mask(luma: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, float, float]:
    """Samples where a lamp is lit (see the module docstring), its off level and threshold."""
    y = np.where(ok, np.asarray(luma, float), np.nan)
    if not np.isfinite(y).any():
        return np.zeros(len(y), bool), math.nan, math.nan
    off = float(np.nanpercentile(y, 10))
    s = noise.sigma(y)
    thr = max(noise.k_for() * math.sqrt(2) * (s if math.isfinite(s) else 0.0), LIT_FLOOR)
    return np.nan_to_num(y - off, nan=-np.inf) > thr, off, thr


def entry_index(tr, x0: float, north_leads: bool, first: int) -> tuple[float, int] | None:
    """Fractional sample at which the magnet's leading end reaches the coil's entrance ``x0``, and the last
    sample where the tracked half was seen whole and clear of the coil; None without evidence of entry.

    The leading end is the centroid plus half the first-frame box width (plus a whole one when the south
    half leads), from clear sightings only: area at least ``CLEAR_AREA`` of the first one, box ending more
    than ``EDGE_PX`` short of ``x0`` (a compressed edge spreads by a pixel or two), and before the first sample
    where the magnet's box reaches the coil (a blob taken for it behind it later is no approach). A crossing between two
    clear sightings is interpolated. Otherwise every sample after the last clear one shows the half hidden,
    shrunk or at the coil: the last ``FIT_N`` clear sightings are extrapolated linearly, and the crossing
    counts when it falls before the sample after the first of those (a magnet that stops short of the coil
    stays clear to the end: no entry).
    """
    vis = np.asarray(tr.visible, bool)
    w0 = float(tr.box[first, 2] - tr.box[first, 0])
    a0 = float(tr.area[first])
    lead = tr.x + 0.5 * w0 + (0.0 if north_leads else w0)
    clear = vis & (tr.area >= CLEAR_AREA * a0) & (tr.box[:, 2] < x0 - EDGE_PX)
    at_coil = np.flatnonzero(vis & (tr.box[:, 2] >= x0 - EDGE_PX))
    if len(at_coil):  # the approach ends where the magnet reaches the coil: a later sighting is no approach
        clear &= np.arange(len(vis)) < at_coil[0]
    idx = np.flatnonzero(clear)
    if len(idx) == 0 or lead[idx[0]] >= x0:
        return None
    for j, i in zip(idx[:-1], idx[1:]):
        if lead[j] < x0 <= lead[i]:
            return float(j + (x0 - lead[j]) / (lead[i] - lead[j]) * (i - j)), int(i)
    last = int(idx[-1])
    use = idx[-FIT_N:]
    if last + 1 >= len(vis) or len(use) < 2:
        return None
    slope, icpt = np.polyfit(use.astype(float), lead[use], 1)
    if slope <= 0:
        return None
    f = (x0 - icpt) / slope
    return (float(f), last) if last <= f <= last + 2 else None


def magnet_x(k: dict, t) -> np.ndarray:
    """Centre x (px) of the magnet at times ``t`` (s): at rest, then a smooth push to its stop."""
    u = np.clip((np.asarray(t, float) - k["t_go_s"]) / k["travel_s"], 0.0, 1.0)
    ease = u**3 * (10 - 15 * u + 6 * u * u)
    return k["x_start"] + (k["x_stop"] - k["x_start"]) * ease


def lamp_levels(k: dict, t, law: str = "true") -> dict[str, np.ndarray]:
    """Brightness (0–1) of each lamp: lit for ``flash_s`` from entry (leading end at the coil's entrance;
    law only) and from exit (trailing end past the coil's far end)."""
    t = np.asarray(t, float)
    lead, trail = magnet_x(k, t) + k["magnet_w"] / 2, magnet_x(k, t) - k["magnet_w"] / 2
    t_in = float(t[np.argmax(lead >= k["coil"][0])]) if (lead >= k["coil"][0]).any() else math.inf
    t_out = float(t[np.argmax(trail >= k["coil"][2])]) if (trail >= k["coil"][2]).any() else math.inf
    on = lambda t0: ((t >= t0) & (t < t0 + k["flash_s"])).astype(float)  # noqa: E731
    return {"entry": on(t_in) if law == "true" else np.zeros(len(t)), "exit": on(t_out)}


class CoilIndicator(WmleTask):
    """A magnet slides through a coil wired to a two-lamp indicator."""

    name = "coil_indicator"
    label = "P30"
    family = FAMILIES[6]
    level = "E"
    required_objects = ("magnet",)
    required_events = ("entry",)
    required_known = {"coil": "[x0, y0, x1, y1] (px) the coil's first-frame box; the magnet enters at x0",
                      "lamps": "{name: [x0, y0, x1, y1]} (px) a box on each indicator lamp"}
    optional_known = {"north_leads": "true when the magnet's north half (the tracked object) leads (default true)"}

    def probes(self, case: Case) -> list[Probe]:
        return [Probe(f"lamp_{n}", "brightness", tuple(float(v) for v in box))
                for n, box in case.known["lamps"].items()]

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        mw, mh = float(rng.uniform(56.0, 70.0)), float(rng.uniform(16.0, 20.0))
        rail_y = float(rng.uniform(250.0, 275.0))
        coil_len = float(rng.uniform(120.0, 150.0))
        cx0 = float(rng.uniform(250.0, 280.0))
        coil = [cx0, rail_y - mh / 2 - 10.0, cx0 + coil_len, rail_y + mh / 2 + 10.0]
        r = float(rng.uniform(6.0, 8.0))
        ly = float(rng.uniform(90.0, 120.0))
        lx = cx0 + coil_len / 2 + float(rng.uniform(-30.0, 30.0))
        lamps_xy = {"entry": [lx - 24.0, ly], "exit": [lx + 24.0, ly]}
        c_mag = colors_clear_of(seed, 1, COPPER)[0]
        k = {
            "coil": [round(v, 3) for v in coil], "turns": int(rng.integers(14, 20)), "rail_y": round(rail_y, 3),
            "magnet_w": round(mw, 3), "magnet_h": round(mh, 3),
            "x_start": round(cx0 - mw / 2 - float(rng.uniform(50, 80)), 3),
            "x_stop": round(cx0 + coil_len + mw / 2 + float(rng.uniform(40, 70)), 3),
            "t_go_s": round(float(rng.uniform(0.4, 0.7)), 4), "travel_s": round(float(rng.uniform(2.6, 3.0)), 4),
            "flash_s": round(float(rng.uniform(0.25, 0.4)), 4), "north_leads": bool(rng.integers(2)),
            "lamp_r": round(r, 3), "lamps_xy": {n: [round(v, 3) for v in p] for n, p in lamps_xy.items()},
            "lamps": {n: [round(p[0] - r, 3), round(p[1] - r, 3), round(p[0] + r, 3), round(p[1] + r, 3)]
                      for n, p in lamps_xy.items()},
            "color": list(c_mag), "style_seed": int(seed),
            "anti_note": "twin: the entry lamp stays dark; only the exit lamp lights",
        }
        n_half = _magnet(k, k["x_start"]).halves()[0]
        b = n_half.bbox()
        objects = [ObjectSpec(id="magnet", shape="block", color=tuple(c_mag),
                              box=(b[0] - 1, b[1] - 1, b[2] + 1, b[3] + 1))]
        prompt = (
            "Fixed side view of a short horizontal coil of copper wire on a bench, with a straight rail running "
            "through it. The two ends of the coil are wired to a small indicator with a green and a red lamp, "
            "mounted above it; at first both lamps are dark. A bar magnet, one half painted and marked N and the "
            "other half white and marked S, rests on the rail to the left of the coil. After a moment it is pushed "
            "and slides along the rail through the coil, comes out on the other side and stops. The camera does "
            "not move and time runs at a steady rate.")
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=int(seed), variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=4.0, prompt=prompt, objects=objects,
            assumptions=["a closed circuit of coil and indicator", "the lamps light for either current direction",
                         "fixed side view, uniform time"],
            criteria=["M1: 0.5 for the magnet entering the coil, 0.5 for a lamp lit within 0.5 s of the entry"],
            known=k)
        t = frame_times(case)
        x = magnet_x(k, t)
        lead = x + mw / 2
        i_in = int(np.argmax(lead >= cx0))
        case.truth = GroundTruth(tracks={}, events={"entry": float(t[i_in])}, quantities={"s1": 1.0, "anti_s1": 0.5})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k = case.known
        scene = Scene(case.width, case.height, style_of(case)).ground(k["rail_y"] + k["magnet_h"] / 2 + 34.0)
        c = k["coil"]
        ry = k["rail_y"] + k["magnet_h"] / 2
        scene.platform(c[0] - 200.0, ry, c[2] + 200.0, ry + 4.0, (120, 122, 128))  # the rail
        scene.platform(c[0] + 10, c[3], c[0] + 18, ry + 34.0)  # coil stands
        scene.platform(c[2] - 18, c[3], c[2] - 10, ry + 34.0)
        (xe, ye), (xx, yx) = k["lamps_xy"]["entry"], k["lamps_xy"]["exit"]
        scene.platform(xe - 16, ye - 14, xx + 16, ye + 14, (70, 72, 78))  # indicator box
        scene.marker_line((c[0] + 4, c[1]), (xe - 8, ye + 14), (150, 90, 50), 2)  # leads
        scene.marker_line((c[2] - 4, c[1]), (xx + 8, yx + 14), (150, 90, 50), 2)
        t = frame_times(case)
        x = magnet_x(k, t)
        lv = lamp_levels(k, t, law)
        coil = Coil(c[0], c[1], c[2], c[3], vertical=False, turns=k["turns"])
        r = k["lamp_r"]
        for i in range(len(t)):
            yield scene.frame([_magnet(k, float(x[i])), coil,
                               *(Led(*k["lamps_xy"][n], r, LAMP_COLORS[n], float(lv[n][i])) for n in LAMPS)])

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        tr = tracks["magnet"]
        t = np.asarray(tracks.t, float)
        vis = np.asarray(tr.visible, bool)
        x0 = float(case.known["coil"][0])
        seen = np.flatnonzero(vis)
        if len(seen) < 3:
            m.notes["unresolved"] = "the magnet was seen in fewer than 3 samples"
            return m
        entry = entry_index(tr, x0, bool(case.known.get("north_leads", True)), seen[0])
        m.notes["interval"] = [0, int(seen[-1]) + 1]
        entered = entry is not None
        if entered:
            f, last_clear = entry
            m.set("entry_time_s", float(np.interp(f, np.arange(len(t)), t)))
            m.events.append(event("magnet", "entry", f, tracks))
            m.notes["interval"] = [0, last_clear + 1]  # inside the coil the windings hide the magnet
        m.notes["entered"] = entered
        if not entered:
            m.notes["interval"] = [0, int(seen[-1]) + 1]
            return m
        t_e = m.get("entry_time_s")
        win = np.abs(t - t_e) <= MATCH_S + 1e-9
        read, lit_any = np.ones(len(t), bool), np.zeros(len(t), bool)
        for n in case.known["lamps"]:
            rs = tracks.regions.get(f"lamp_{n}")
            if rs is None:
                read[:] = False
                continue
            ok = np.asarray(rs.ok, bool)
            lit, off, thr = lit_mask(rs["luma"], ok)
            m.notes[f"lamp_{n}"] = {"off_luma": off, "threshold": thr, "lit_samples": int(lit.sum())}
            read &= ok
            lit_any |= lit
        m.notes["indicator_readable"] = float(read[win].mean()) if win.any() else 0.0
        if m.notes["indicator_readable"] < 0.5:
            m.notes["lit"] = None
            return m
        m.notes["lit"] = bool((lit_any & read & win).any())
        hits = np.flatnonzero(lit_any & read & win)
        if len(hits):
            m.events.append(event("indicator", "lit_at_entry", float(hits[0]), tracks))
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            return {"M1": MetricScore.operational_zero(m.notes["unresolved"])}
        return {"M1": entry_and_light(bool(m.notes.get("entered")), m.notes.get("lit"))}

    def extra_consistency(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float]:
        default = 0.0 if m.notes.get("entered") else 1.0  # no entry: no window to read
        return {"indicator_readable": float(m.notes.get("indicator_readable", default))}


def _magnet(k: dict, x: float) -> Magnet:
    return Magnet(x, k["rail_y"], k["magnet_w"], k["magnet_h"], 0.0, tuple(k["color"]), north_first=k["north_leads"])
