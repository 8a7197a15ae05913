"""P33 — closed versus split jumping rings (WMLE appendix B.7).

Two matched coils stand side by side, each with an iron core rising out of it; a closed aluminium
ring rests on one core, a ring with a cut (split) on the other. The current in both coils is
switched on together: the changing flux drives a large current round the closed ring, which is
repelled and jumps up the core; the split ring carries no loop current and hardly moves.

- M1 ``r_h = h_open / h_closed``, each peak rise (px) divided by that ring's initial outer diameter
  (the width of its first-frame box in the case); ``s1 = clip((1 - r_h) / 0.20)``.

A peak counts only when the sample before it was seen (after a gap the top may have gone unseen), is not within two
mask edges of a rest just before it where the ring is lost right after it (never seen in flight), and a descent (a
later rise lower by more than ``k·σ·√2``, σ the ring's measured localisation noise) or a plateau (``PLATEAU_N``
following samples within that of it) establishes it; otherwise M1 is an operational zero, as it is when the split
ring goes unseen for ``GAP_N`` samples in a row (a twin's split ring, blurred in its flight, was lost for 9 samples
and "rose" 1.5 px). A rise that never leaves that noise band is a measured zero, whatever sample its noise peaks at
(the split ring may lift by 0 %). A closed-ring rise within noise (``≤ k·σ·√2``), seen throughout (no ``GAP_N``
samples unseen in a row), is a reliably observed zero: ``s1 = 0`` (measured, ``r_h`` undefined). A ring lost for
its flight has neither a zero nor a peak (a 3-frame exposure blur of flat seed 7201 lost the closed ring for the 9
samples of its jump: its highest sighting, the last one before the gap, 0.13 px up at the launch, made the lawful
clip score 13.9).

Reference: the split ring lifts by ``split_share`` (0–2 %) of its diameter and settles back within
``SHIVER_S``. Twin: the split ring jumps like the closed one (``anti_rise_factor`` 0.92–1.05 of its rise).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec, pad_box
from lawful.result import Measurement
from lawful.score.wmle import clip01
from lawful.suites.base import Law
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, style_of,
)
from lawful.suites.wmle._electro import ring_rise_measurement
from lawful.tracks import Tracks
from lawful.world.em import COPPER, colors_clear_of
from lawful.world.em import RINGS as IDS
from lawful.world.scenes.electro import ring_centre, ring_frames, ring_items, ring_lifts

PLATEAU_N = 3  # samples after a peak within noise of it that establish a plateau
GAP_N = 2  # the split ring unseen for this many samples in a row may have jumped out of sight


def rise_ratio(h_open: float | None, h_closed: float | None, closed_zero: bool = False) -> MetricScore:
    """M1: ``r_h = h_open / h_closed`` (rises per initial diameter); ``s1 = clip((1 - r_h) / 0.20)``."""
    if closed_zero:
        return MetricScore.measured(0.0, None, reason="the closed ring's rise is a reliably observed zero")
    if h_open is None or h_closed is None or not h_closed > 0:
        return MetricScore.operational_zero("a ring's peak rise was not established")
    r_h = h_open / h_closed
    return MetricScore.measured(clip01((1.0 - r_h) / 0.20), r_h, h_open=h_open, h_closed=h_closed)


def peak_rise(t: np.ndarray, rise: np.ndarray, threshold: float, ring: str = "closed",
              edge: float = 0.0) -> tuple[float | None, int | None, str]:
    """The highest rise of ``rise`` ``[T]`` (px, NaN unseen) and its sample, if a descent or a plateau after it
    establishes it (see the module docstring); else ``(None, None, reason)``. The split ring's rise (low is
    lawful) must be seen throughout: unseen for :data:`GAP_N` samples in a row after its first sighting, it may
    have jumped out of sight (the closed ring's missed top only lowers the score: it keeps the rule above). So must
    either ring whose rise is a zero: a ring lost in its flight is no ring at rest. A highest sighting within ``edge``
    (px: what localisation alone moves a centroid between two samples) of a rest just before it, lost right after
    it, was never seen in flight: no peak."""
    ok = np.flatnonzero(np.isfinite(rise))
    if len(ok) < 3:
        return None, None, "seen in fewer than 3 samples"
    gaps = np.diff(ok) - 1
    zero = float(rise[ok].max()) <= threshold  # never left the noise band of its rest
    if (ring == "split" or zero) and len(gaps) and gaps.max() >= GAP_N:
        j = int(np.argmax(gaps))
        return None, None, (f"unseen for {int(gaps[j])} samples in a row from t = {t[ok[j] + 1]:.2f} s: "
                            "it may have risen unseen")
    if zero:  # and seen throughout: every sample establishes a zero
        return 0.0, int(ok[0]), ""
    i = int(ok[np.argmax(rise[ok])])
    if i > 0 and not np.isfinite(rise[i - 1]):  # seen only after a gap: the true top may have been missed
        return None, None, "the highest sighting follows a gap in the track"
    lost_next = i + 1 < len(rise) and not np.isfinite(rise[i + 1])
    if lost_next and i > 0 and rise[i - 1] <= threshold and rise[i] <= edge:
        return None, None, "lost right after its last sighting at rest: never seen in flight"
    after = rise[i + 1:]
    after = after[np.isfinite(after)]
    h = float(rise[i])
    if len(after) and float(after.min()) < h - threshold:
        return h, i, ""
    if len(after) >= PLATEAU_N and np.all(np.abs(after[:PLATEAU_N] - h) <= threshold):
        return h, i, ""
    return None, None, "no descent or plateau after the highest point"


class JumpingRings(WmleTask):
    """A closed and a split ring on matched coils switched on together."""

    name = "jumping_rings"
    label = "P33"
    family = FAMILIES[6]
    level = "M"
    required_objects = IDS
    required_events = ("peak_closed", "peak_split")

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        d = float(rng.uniform(40.0, 52.0))
        coil_h = float(rng.uniform(60.0, 80.0))
        core_len = float(rng.uniform(190.0, 215.0))
        ring_h = float(rng.uniform(10.0, 14.0))
        sep = float(rng.uniform(200.0, 280.0))
        closed_left = bool(rng.integers(2))
        xs = (320.0 - sep / 2, 320.0 + sep / 2)
        c_closed, c_split = colors_clear_of(seed, 2, COPPER)
        k = {
            "ground_y": round(float(rng.uniform(320.0, 336.0)), 2), "coil_h_px": round(coil_h, 3),
            "coil_w_px": round(float(rng.uniform(70.0, 90.0)), 3), "turns": int(rng.integers(9, 15)),
            "core_w_px": round(float(rng.uniform(14.0, 20.0)), 3), "core_len_px": round(core_len, 3),
            "coils": {"closed": round(xs[0] if closed_left else xs[1], 3),
                      "split": round(xs[1] if closed_left else xs[0], 3)},
            "ring_d_px": round(d, 3), "ring_h_px": round(ring_h, 3), "gap_px": round(float(rng.uniform(3.0, 4.5)), 3),
            "gap_at": round(float(rng.uniform(0.25, 0.35)), 4),
            "rise_px": round(float(rng.uniform(1.4, 2.6)) * d, 3),
            "split_share": round(float(rng.uniform(0.0, 0.02)), 4),
            "t_on_s": round(float(rng.uniform(0.4, 0.8)), 4), "px_per_m": round(float(rng.uniform(330.0, 450.0)), 3),
            "colors": {"closed": list(c_closed), "split": list(c_split)}, "style_seed": int(seed),
            "anti_rise_factor": round(float(rng.uniform(0.92, 1.05)), 4),
            "anti_note": "twin: the split ring rises anti_rise_factor times the closed ring's rise",
        }
        k["rise_px"] = round(min(k["rise_px"], core_len - ring_h - 12.0), 3)
        first = ring_items(k, {b: 0.0 for b in IDS})[2:]
        objects = [ObjectSpec(id=b, shape="block" if b == "closed" else "other", color=tuple(k["colors"][b]),
                              box=pad_box(it.bbox()),
                              known={"diameter_px": k["ring_d_px"]}) for b, it in zip(IDS, first)]
        where = ("left", "right") if closed_left else ("right", "left")
        prompt = (
            "Fixed side view of two identical upright coils of copper wire standing side by side on a bench, each "
            "with an iron rod rising vertically out of its middle. A metal ring lies around each rod, resting on "
            f"top of its coil: on the {where[0]} coil a closed ring, on the {where[1]} coil an identical ring with a "
            "narrow cut through it. The rings are free to slide along the rods. A moment after the start the same "
            "alternating current is switched on in both coils at once; watch how far each ring moves up its rod "
            "and back. The camera does not move and time runs at a steady rate.")
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=int(seed), variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=2.5, prompt=prompt, objects=objects,
            assumptions=["matched coils and cores, switched on together", "rings of the same size and metal",
                         "the rings slide freely on the rods", "fixed side view, uniform time"],
            criteria=["M1: r_h = h_split / h_closed (rises per initial diameter) far below 1, "
                      "s1 = clip((1 - r_h) / 0.20)"], known=k)
        t = frame_times(case)
        lf = ring_lifts(k, t)
        tracks = {b: [(round(float(a), 5), *(round(v, 3) for v in ring_centre(k, b, float(h))))
                      for a, h in zip(t, lf[b])] for b in IDS}
        anti = ring_lifts(k, t, "anti")
        case.truth = GroundTruth(tracks=tracks, quantities={
            "r_h": float(lf["split"].max() / lf["closed"].max()),
            "anti_r_h": float(anti["split"].max() / anti["closed"].max())})
        return case, next(iter(self.render(case)))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        yield from ring_frames(case.known, case.width, case.height, style_of(case), frame_times(case), law)

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return ring_rise_measurement(case, tracks, IDS, peak_rise)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if m.notes.get("closed_zero"):
            return {"M1": rise_ratio(None, None, closed_zero=True)}
        if "unresolved" in m.notes:
            return {"M1": MetricScore.operational_zero(m.notes["unresolved"])}
        return {"M1": rise_ratio(m.get("rise_split_per_diameter"), m.get("rise_closed_per_diameter"))}
