"""P30 — a magnet entering a coil lights its indicator (WMLE appendix B.7).

A bar magnet rests on a rail left of a fixed coil whose ends are wired to a two-lamp indicator
(one lamp per current direction). Pushed, it slides through the coil, comes out the other side and
stops. The changing flux as the magnet enters induces a current: a lamp flashes at entry (and the
other one at exit, the current reversed).

- M1 ``s1 = 0.5·I[E] + 0.5·I[L]``: ``E`` the magnet's leading end seen crossing the coil's entrance
  (``case.known["coil"]``, from outside, tracked), ``L`` a lamp lit at some sample within
  ``MATCH_S`` = 0.5 s of that entry (a lamp already lit that stays lit in that window qualifies too).
  With entry confirmed but the lamps unreadable in the window (fewer than half its samples read),
  ``s1 = 0.5``, the lower bound, ``[0.5, 1]`` in the evidence. Without an entry seen, yet the magnet seen past the
  coil later (lost at the coil: a 3-frame exposure blur pales it there), M1 is unresolved, not ``E = 0``.
  M2 is not defined.

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

from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.suites.base import Law
from lawful.suites.wmle._electro import coil_entry_measurement, lit_mask  # noqa: F401  (tests use lit_mask)
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, style_of,
)
from lawful.tracks import Tracks
from lawful.world.em import COPPER, colors_clear_of
from lawful.world.scenes.electro import (  # noqa: F401  (LAMPS, LAMP_COLORS: the studio scene uses them)
    LAMP_COLORS, LAMPS, coil_indicator_frames, magnet_item, magnet_x,
)

MATCH_S = 0.5


def entry_and_light(entered: bool | None, lit: bool | None) -> MetricScore:
    """M1: ``0.5·I[E] + 0.5·I[L]``; ``lit`` None (unreadable indicator) with entry gives the lower bound 0.5."""
    if entered is None:
        return MetricScore.operational_zero("the magnet was not tracked before the coil")
    if entered and lit is None:
        return MetricScore.measured(0.5, None, reason="entry confirmed, indicator unreadable: lower bound 0.5 "
                                    "(range 0.5-1)", low=0.5, high=1.0)
    return MetricScore.measured(0.5 * bool(entered) + 0.5 * bool(entered and lit), None,
                                E=float(bool(entered)), L=float(bool(lit)))


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
        n_half = magnet_item(k, k["x_start"]).halves()[0]
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
        yield from coil_indicator_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return coil_entry_measurement(case, tracks, MATCH_S)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            return {"M1": MetricScore.operational_zero(m.notes["unresolved"])}
        return {"M1": entry_and_light(bool(m.notes.get("entered")), m.notes.get("lit"))}

    def extra_consistency(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float]:
        default = 0.0 if m.notes.get("entered") else 1.0  # no entry: no window to read
        return {"indicator_readable": float(m.notes.get("indicator_readable", default))}
