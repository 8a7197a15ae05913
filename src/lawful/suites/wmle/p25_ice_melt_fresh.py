"""P25 — floating freshwater ice melting in fresh water leaves the level unchanged (WMLE appendix B.6).

A block of freshwater ice floats in a straight-sided glass of fresh water and melts away completely
(time-lapse). Floating, it displaces its own weight of water; melted, it becomes exactly that water, so
the level does not move.

Readings (``case.known``): ``bands`` — ``water_left`` / ``water_right``, ``level`` probes in the open water
beside the ice (clear of its widest extent); ``ice`` — a box around the block, read as the ``blobs`` of the
ice colour ``ice_color`` (the block is there while a blob is); ``walls`` — a horizontal strip across both
walls below the waterline, read as the two ``blobs`` of the wall colour ``wall_color`` (inner width =
right wall's left edge − left wall's right edge). *Before*: the first :data:`BEFORE_SHARE` of the samples;
*after*: the last :data:`AFTER_SHARE` (at least :data:`MIN_WINDOW` each). The level is the median over a
window of the two bands' mean row.

- M1 ``e1 = (y_before − y_after) / H_vessel`` (``H_vessel``: the inside height of ``known["vessel"]``);
  ``s1 = q(e1; 0.05)``.
- M2 ``e2 = |W_after − W_before| / W_before``; ``s2 = q(e2; 0.05)``.
- The melt must be seen (ice found in most of the *before* samples and in none of the last
  :data:`AFTER_SHARE`); otherwise both metrics are operational zeros.

Twin: the level rises by ``anti_rise_px`` in step with the melted volume.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, \
    style_of
from lawful.tracks import Tracks
from lawful.world import liquids as lq
from lawful.world.draw import Scene

DRAFT = 0.917
BEFORE_SHARE, AFTER_SHARE, MIN_WINDOW = 0.08, 0.15, 5
WATER_BANDS = ("water_left", "water_right")


def level_change(y_before: float | None, y_after: float | None, h_vessel: float) -> MetricScore:
    """M1: ``e1 = (y_before − y_after) / H_vessel``; ``s1 = q(e1; 0.05)``."""
    if y_before is None or y_after is None:
        return MetricScore.operational_zero("levels before and after not resolved")
    e1 = (y_before - y_after) / h_vessel
    return MetricScore.measured(q(e1, 0.05), e1, y_before=y_before, y_after=y_after)


def width_change(w_before: float | None, w_after: float | None) -> MetricScore:
    """M2: ``e2 = |W_after − W_before| / W_before``; ``s2 = q(e2; 0.05)``."""
    if w_before is None or w_after is None or not w_before > 0:
        return MetricScore.operational_zero("vessel widths not resolved")
    e2 = abs(w_after - w_before) / w_before
    return MetricScore.measured(q(e2, 0.05), e2, w_before=w_before, w_after=w_after)


def windows(T: int) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks of the *before* and *after* samples."""
    nb, na = max(MIN_WINDOW, int(np.ceil(BEFORE_SHARE * T))), max(MIN_WINDOW, int(np.ceil(AFTER_SHARE * T)))
    before, after = np.zeros(T, bool), np.zeros(T, bool)
    before[:nb], after[max(0, T - na):] = True, True
    return before, after


def water_level(tracks: Tracks) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Per sample: the mean row of the readable water bands, its standard error, and whether any was read."""
    regs = [tracks.regions.get(b) for b in WATER_BANDS]
    if any(r is None or "row" not in r.values for r in regs):
        return None
    rows = np.stack([np.where(r.ok, r["row"], np.nan) for r in regs])
    sig = np.stack([np.where(r.ok, r.sigma, np.nan) for r in regs])
    n = np.isfinite(rows).sum(0)
    with np.errstate(invalid="ignore"):
        y = np.nanmean(np.where(n > 0, rows, 0.0), 0) if n.any() else np.full(rows.shape[1], np.nan)
        s = np.sqrt(np.nansum(sig**2, 0)) / np.maximum(n, 1)
    y = np.where(n > 0, y, np.nan)
    return y, s, n > 0


def melt_seen(ice_ok: np.ndarray, before: np.ndarray, after: np.ndarray) -> str:
    """'' when the ice is there before and gone after, else why not."""
    if ice_ok[before].mean() < 0.5:
        return "no ice seen at the start"
    if ice_ok[after].any():
        return "ice still seen at the end"
    return ""


def inner_width(walls) -> np.ndarray:
    """Per sample, the inside width between two wall blobs (NaN where not both)."""
    return walls["x0"][:, 1] - walls["x1"][:, 0]


class MeltingScene:
    """The glass, water and floating ice block shared by P25 and P26 (parameters in ``case.known``)."""

    @staticmethod
    def layout(rng: np.random.Generator) -> dict:
        W_v = float(rng.integers(240, 281))
        xv0 = float(np.round(320 - W_v / 2 + rng.uniform(-50, 50))) - 0.5
        vessel = [xv0, 59.5, xv0 + W_v, 321.5]
        side0 = float(rng.uniform(62, 76))
        xc = xv0 + W_v / 2 + float(rng.uniform(-8, 8))
        y_w = float(rng.uniform(175, 195))
        tint = lq.LIQUID_TINTS[int(rng.integers(len(lq.LIQUID_TINTS)))]
        water = [int(0.45 * c + 0.55 * 235) for c in tint]
        glass = [int(v) for v in np.clip(np.asarray(lq.GLASS_TINT) + rng.uniform(-18, 10), 0, 255)]
        m = 9.0
        half = side0 / 2
        return {"vessel": vessel, "ice_side0": side0, "ice_x": xc, "waterline0": y_w, "water": water,
                "glass": glass, "ground_y": vessel[3] + 3.5, "wall_color": list(lq.WALL), "ice_color": list(lq.ICE),
                "bands": {"water_left": [xv0 + m, vessel[1] + 4, xc - half - m, vessel[3] - 4],
                          "water_right": [xc + half + m, vessel[1] + 4, xv0 + W_v - m, vessel[3] - 4]},
                "ice": [xc - half - 6, y_w - 30, xc + half + 6, y_w + side0 + 4],
                "walls": [xv0 - 12, y_w + 40, xv0 + W_v + 12, y_w + 56]}

    @staticmethod
    def probes(case: Case) -> list[Probe]:
        k = case.known
        return ([Probe(b, "level", tuple(float(v) for v in k["bands"][b])) for b in WATER_BANDS]
                + [Probe("ice", "blobs", tuple(k["ice"]), color=tuple(k["ice_color"])),
                   Probe("walls", "blobs", tuple(k["walls"]), color=tuple(k["wall_color"]), count=2)])

    @staticmethod
    def frame(scene: Scene, tank: lq.Tank, k: dict, y_w: float, side: float, extra=()) -> np.ndarray:
        layers = list(extra)
        if side > 0.5:
            top = y_w - (1 - DRAFT) * side
            box = (k["ice_x"] - side / 2, top, k["ice_x"] + side / 2, top + side)
            layers.insert(0, lq.draw_ice(box, y_w, tuple(k["water"])))
        return tank.draw(scene.static_layer.copy(), {0: (y_w, 0.0)}, layers=layers)

    @staticmethod
    def tank(case: Case) -> tuple[Scene, lq.Tank]:
        k = case.known
        scene = Scene(case.width, case.height, style_of(case)).ground(k["ground_y"])
        return scene, lq.Tank([tuple(k["vessel"])], tuple(k["water"]), open_top=(0,), glass=tuple(k["glass"]),
                              wall_color=tuple(k["wall_color"]))


class IceMeltFresh(WmleTask):
    """A floating ice block melting away in fresh water: the level stays where it was."""

    name = "ice_melt_fresh"
    label = "P25"
    family = FAMILIES[5]
    level = "H"
    required_objects = ()
    required_known = {
        "bands": "{water_left, water_right}: [x0, y0, x1, y1] (px) column bands in the open water beside the ice "
                 "(air over water), clear of the ice's widest extent",
        "ice": "[x0, y0, x1, y1] (px) a box around the floating ice", "ice_color": "[r, g, b] the ice's colour",
        "walls": "[x0, y0, x1, y1] (px) a horizontal strip across both vessel walls, below the waterline",
        "wall_color": "[r, g, b] the vessel walls' colour", "vessel": "[x0, y0, x1, y1] (px) the vessel's inside"}

    def probes(self, case: Case) -> list[Probe]:
        return MeltingScene.probes(case)

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        known = MeltingScene.layout(rng)
        known.update({"melt_start_s": float(rng.uniform(0.5, 0.7)), "melt_end_s": float(rng.uniform(4.3, 4.7)),
                      "style_seed": seed, "anti_rise_px": float(rng.uniform(8, 14)),
                      "anti_note": "twin: the level rises by anti_rise_px as the ice melts"})
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=6.0,
            prompt=("Time-lapse side view of a straight-sided clear glass of fresh water on a table, with a block of "
                    "freshwater ice floating in the middle. The ice slowly melts until nothing of it is left; nothing "
                    "is poured in or taken out and the water does not evaporate. The camera does not move."),
            objects=[],
            assumptions=["freshwater ice floating in fresh water", "no water added, spilled or evaporated",
                         "the glass keeps its shape and temperature changes of density are negligible",
                         "fixed side view"],
            criteria=["M1: level before minus after, over the vessel height (q, a = 0.05)",
                      "M2: relative change of the vessel's inside width (q, a = 0.05)"],
            known=known)
        H = known["vessel"][3] - known["vessel"][1]
        case.truth = GroundTruth(quantities={"e1": 0.0, "e2": 0.0, "anti_e1": known["anti_rise_px"] / H})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k = case.known
        scene, tank = MeltingScene.tank(case)
        t = frame_times(case)
        side = lq.melt_side(t, k["ice_side0"], k["melt_start_s"], k["melt_end_s"])
        melted = 1 - (side / k["ice_side0"]) ** 3
        y_w = k["waterline0"] - (k["anti_rise_px"] if law == "anti" else 0.0) * melted
        for yw, s in zip(y_w, side):
            yield MeltingScene.frame(scene, tank, k, float(yw), float(s))

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        lev = water_level(tracks)
        ice, walls = tracks.regions.get("ice"), tracks.regions.get("walls")
        if lev is None or ice is None or walls is None:
            m.notes["unresolved"] = "a region was never read"
            return m
        y, _, ok = lev
        before, after = windows(len(y))
        why = melt_seen(ice.ok, before, after)
        if why:
            m.notes["unresolved"] = why
            return m
        if (ok & before).sum() < MIN_WINDOW or (ok & after).sum() < MIN_WINDOW:
            m.notes["unresolved"] = "too few readable levels before or after"
            return m
        m.set("level_before_px", float(np.median(y[ok & before])))
        m.set("level_after_px", float(np.median(y[ok & after])))
        w = inner_width(walls)
        for name, sel in (("before", before), ("after", after)):
            good = sel & np.isfinite(w)
            m.set(f"width_{name}_px", float(np.median(w[good])) if good.sum() >= MIN_WINDOW else None,
                  f"vessel walls not found {name}")
        return m

    def extra_consistency(self, case: Case, tracks: Tracks, m: Measurement) -> dict[str, float]:
        out = self.readable(tracks, WATER_BANDS)
        w = tracks.regions.get("walls")
        seen = w is not None and "x0" in w.values
        out["readable_walls"] = float(np.mean(np.isfinite(inner_width(w)))) if seen else 0.0
        return out

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            why = m.notes["unresolved"]
            return {"M1": MetricScore.operational_zero(why), "M2": MetricScore.operational_zero(why)}
        v = case.known["vessel"]
        return {"M1": level_change(m.get("level_before_px"), m.get("level_after_px"), float(v[3] - v[1])),
                "M2": width_change(m.get("width_before_px"), m.get("width_after_px"))}
