"""P20 — refraction and total internal reflection of four beams at a water surface (WMLE B.4).

Four submerged lasers of different colours each aim at a fixed point of a still water surface from
below and turn slowly, so each beam's incidence in the water sweeps across the critical angle
(48.6° for n = 1.333): below it the beam leaves into the air, bent away from the normal; beyond it
the beam is totally reflected back into the water. One water, one index: every refraction gives
the same ``n = sin θ_air / sin θ_water``, and a total reflection at ``θ_water`` says ``n ≥ 1 / sin θ_water``.

Readings per beam ``k`` (colour probes, regions in ``case.known["beam_regions"]``): ``in_k`` (water, the
laser's side of the normal at its entry point), ``out_k`` (air, the far side) and ``back_k`` (water, the
far side: the totally reflected beam), and the surface row (a ``level`` band). A frame of beam ``k``
is a refraction when ``in_k`` and ``out_k`` are read, a total reflection when ``in_k`` and ``back_k`` are
read and ``out_k`` is not. A refraction that leaves flatter than ``MAX_AIR_DEG`` from the normal
(it runs along the region's edge at the surface, which cuts the beam askew) is not used, nor one with a line too
short to state its direction's error; one whose ``n`` is off its beam's local trend by more than ``k`` robust sds
(a line spoilt where another beam crosses) is left out. Each ``n`` carries its standard error from the lines' direction
errors, each the line's own (``angle_sd``) and, in quadrature, the error its beam's lines share over the clip: they
must meet the surface at one point, and how far apart they cross it says how far a block next to the entry point
(where a turning beam never moves on) has turned them (:func:`_crossing_sd`).

- M1 ``e1 = std(n) / mean(n)`` over every refraction of every beam, ``s1 = q(e1; 0.05)``, each reading weighted by
  ``1 / sd²`` (a compression-spoilt line, or a steep beam whose ``n`` rests on a small ``sin θ_water``, counts
  little). The variance that the readings add is taken out (:func:`_noise_var`: within a beam, its scatter about a
  local quadratic or about one quadratic over the clip, whichever is larger, since a stale compression block
  spoils several frames alike; between beams, each mean's error, at least its lines' own), and a spread no larger
  than ``k`` times what that noise leaves by chance is not claimed (``e1_floor``; operational zero where it reaches
  the tolerance: such beams cannot be read well enough). A total reflection enters as its
  bound ``1 / sin θ_water`` only when the bound exceeds the refractions' mean by more than ``k·σ`` (a reflection the
  refractions' index forbids). No refraction read: operational zero. M2 is not defined.

Twin: each beam bends and reflects as for its own index (``anti_n``, spread 0.88–1.24 × 1.333), so the
inferred indices disagree.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth
from lawful.perceive import noise
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle import _beams
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, frame_times, style_of,
)
from lawful.tracks import Tracks
from lawful.world import optics
from lawful.world.draw import Scene

N_WATER = 1.333
COLORS = ((245, 45, 35), (40, 225, 70), (150, 60, 250), (250, 190, 20))
NAMES = ("red", "green", "violet", "amber")
MIN_REFRACTIONS = 5
TOL_E1 = 0.05  # the seed's tolerance a of M1
BEAM_PX = 5.0  # beam core width: a 3-px beam loses its colour to 4:2:0 chroma at CRF 35 (n biased by 0.5 %)
MAX_AIR_DEG = 72.0  # a refracted beam flatter than this hugs the surface: its region's edge cuts it askew
GAP = 7.0  # px kept clear of the surface and the normal by the beam regions
RADIUS = 150.0  # px from a laser's aperture to its entry point
TANK = (30.0, 20.0, 610.0, 345.0)
WATER = (70, 140, 200)


def index_metric(n_by_beam: dict[str, list], bounds: list[float],
                 sd_by_beam: dict[str, list] | None = None) -> MetricScore:
    """M1 from per-beam index series (time order, NaN where no refraction), total-reflection bounds and,
    optionally, each reading's standard error from its lines' fits (``sd_by_beam``, same shape): the readings are
    then weighted by ``1 / sd²`` (a frame whose lines say little about ``n``, e.g. a steep beam with
    ``cot θ_water`` large, counts little), and the spread the readings add is taken out (:func:`_noise_var`)."""
    series = {k: np.asarray(v, float) for k, v in n_by_beam.items()}
    weights = {k: _weights(v, (sd_by_beam or {}).get(k)) for k, v in series.items()}
    use = {k: np.isfinite(v) & (np.nan_to_num(weights[k], nan=1.0) > 0) for k, v in series.items()}
    vals = np.concatenate([v[use[k]] for k, v in series.items()]) if series else np.array([])
    if len(vals) < MIN_REFRACTIONS:
        return MetricScore.operational_zero(f"{len(vals)} refractions read (< {MIN_REFRACTIONS})")
    w = np.concatenate([np.nan_to_num(weights[k][use[k]], nan=1.0) for k in series])
    sig2, chance = _noise_var(series, weights)
    mean = float(np.average(vals, weights=w))
    forbidden = [b for b in bounds if math.isfinite(b) and b > mean + noise.k_for() * math.sqrt(sig2)]
    allv, allw = np.r_[vals, forbidden], np.r_[w, np.full(len(forbidden), float(np.mean(w)))]
    m = float(np.average(allv, weights=allw))
    excess = float(np.average((allv - m) ** 2, weights=allw)) - sig2
    floor = math.sqrt(noise.k_for() * chance) / m
    info = dict(n_mean=mean, n_noise=math.sqrt(sig2), refractions=float(len(vals)),
                forbidden_reflections=float(len(forbidden)), e1_floor=floor)
    if floor >= TOL_E1:  # the readings could hide a spread the size of the tolerance: no verdict
        return MetricScore.operational_zero(f"beams too noisy: a spread up to e1 = {floor:.3f} is noise", **info)
    e1 = math.sqrt(excess) / m if excess > noise.k_for() * chance else 0.0
    return MetricScore.measured(q(e1, TOL_E1), e1, **info)


def _weights(v: np.ndarray, sd) -> np.ndarray:
    """``1 / sd²`` per reading (0 where a reading has none); NaN everywhere where no reading has a standard error
    (equal weights, none stated)."""
    sd = np.asarray(sd if sd is not None and len(sd) == len(v) else np.full(len(v), np.nan), float)
    if not (np.isfinite(sd) & (sd > 0)).any():
        return np.full(len(v), np.nan)
    return np.where(np.isfinite(sd) & (sd > 0), 1.0 / np.where(sd > 0, sd, 1.0) ** 2, 0.0)


def _noise_var(series: dict[str, np.ndarray], weights: dict[str, np.ndarray]) -> tuple[float, float]:
    """Variance the readings add to the weighted spread of ``n`` (within a beam and between its mean and the others'),
    and the standard deviation of the spread they leave by chance once that is taken out (a sample variance over
    ``d`` degrees of freedom scatters by ``σ² √(2/d)``: the beams' means, ``K − 1``; the frames about their beams'
    quadratics, ``N − 3K``). M1 claims a spread only beyond ``k`` of those.

    Within: the larger of the noise about a local quadratic (:func:`lawful.perceive.noise.sigma`) and the weighted
    scatter about one quadratic over the beam's frames (a compression block stays several frames, so a 5-sample fit
    takes its error for motion); ``n`` drifting slower than that quadratic still counts against the law. A beam's
    mean: its frames' own line errors (``1 / mean weight``: a block next to the entry point stays all clip, so they
    do not average out), or the within noise over its frames where that is larger. Pooled by weight."""
    within, between, mass, dof = [], [], [], []
    for k, v in series.items():
        stated = np.isfinite(weights[k]).any()
        t = np.flatnonzero(np.isfinite(v) & (np.nan_to_num(weights[k], nan=1.0) > 0))
        if len(t) < 5:
            continue
        w = np.nan_to_num(weights[k][t], nan=1.0)
        r = v[t] - np.polyval(np.polyfit(t, v[t], noise.DEGREE, w=np.sqrt(w)), t)
        loc = noise.sigma(v)
        s2 = max(float(np.average(r**2, weights=w)) * len(t) / (len(t) - 3), loc**2 if math.isfinite(loc) else 0.0)
        within.append(s2)
        between.append(max(s2 / len(t), 1.0 / float(w.mean()) if stated else 0.0))
        mass.append(float(w.sum()))
        dof.append(len(t))
    if not mass:
        return 0.0, 0.0
    sw, sb = float(np.average(within, weights=mass)), float(np.average(between, weights=mass))
    K, N = len(mass), int(sum(dof))
    return sw + sb, math.hypot(sb * math.sqrt(2.0 / (K - 1)) if K > 1 else 0.0, sw * math.sqrt(2.0 / max(N - 3 * K, 1)))


def beam_frame(inc, out, sd_in: float = math.nan, sd_out: float = math.nan) -> tuple[float, float]:
    """``n = sin θ_air / sin θ_water`` from the water-side and air-side lines (horizontal surface), and its
    standard error from the lines' direction errors ``sd_in``, ``sd_out`` (rad)."""
    up = np.array([0.0, 1.0])
    tw, ta = _beams.angle_from_normal(inc[1], up), _beams.angle_from_normal(out[1], up)
    if math.sin(tw) <= 0:
        return math.nan, math.nan
    n = math.sin(ta) / math.sin(tw)
    return n, n * math.hypot(sd_out / math.tan(ta) if ta > 0 else math.nan, sd_in / math.tan(tw))


class TotalInternalReflection(WmleTask):
    """Four submerged lasers sweeping across the critical angle at fixed points of a water surface."""

    name = "total_internal_reflection"
    label = "P20"
    family = FAMILIES[3]
    level = "H"
    required_objects = ()
    required_known = {
        "beams": "[{color: RGB, in: polygon, out: polygon, back: polygon}] per beam (px): the water on its "
                 "laser's side of the normal at its entry point, the air and the water on the far side; "
                 "optional color_water: the beam's RGB seen in the water (default color)",
        "surface_region": "box [x0, y0, x1, y1] (px): a column band across the surface, clear of the beams",
    }

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        ys = float(rng.uniform(140.0, 160.0))
        xs = 182.0 + 115.0 * np.arange(4) + rng.uniform(-6, 6, 4)
        order = rng.permutation(4)
        sweeps = []
        for k in range(4):
            lo, hi = float(rng.uniform(18.0, 30.0)), float(rng.uniform(56.0, 64.0))
            sweeps.append((lo, hi) if rng.integers(2) else (hi, lo))
        anti = (N_WATER * np.array([0.88, 1.0, 1.12, 1.24])[rng.permutation(4)]).tolist()
        beams = []
        for k in range(4):
            p = np.array([xs[k], ys])
            j = int(order[k])
            beams.append({
                "name": NAMES[j], "color": list(COLORS[j]), "entry": p.tolist(), "sweep_deg": list(sweeps[k]),
                "in": _beams.surface_quad(p, np.array([-1.0, 0.0]), np.array([0.0, 1.0]), 3.0, 140, GAP,
                                          RADIUS - 16, WIDTH, HEIGHT),
                "out": _beams.surface_quad(p, np.array([1.0, 0.0]), np.array([0.0, -1.0]), 3.0, 230, GAP, 135,
                                           WIDTH, HEIGHT),
                "back": _beams.surface_quad(p, np.array([1.0, 0.0]), np.array([0.0, 1.0]), 3.0, 150, GAP, 110,
                                            WIDTH, HEIGHT),
            })
        duration = 3.0
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=duration,
            prompt=("A long glass tank of still, faintly blue water stands in front of a pale panel. Four small "
                    "waterproof lasers - red, green, violet and amber - sit under the water, each aimed up at its "
                    "own spot on the surface. Over a few seconds each laser slowly tilts about that spot, so its "
                    "beam meets the surface more and more steeply or more and more obliquely. At small slants a "
                    "beam passes out into the air, bent away from the vertical; at large slants it no longer "
                    "leaves the water and is reflected back down from the surface like from a mirror. The beams "
                    "are visible in both water and air; the camera is fixed and level."),
            objects=[],
            assumptions=["one water (n = 1.333) under air", "a flat, still surface",
                         "the lasers turn about fixed entry points; the beams lie in the image plane"],
            criteria=["M1: refractive indices inferred from every beam and frame agree, std / mean (q, a = 0.05); "
                      "a total reflection bounds n from below"],
            known={"surface_y": ys, "beams": beams, "style_seed": seed, "anti_n": anti,
                   "surface_region": [TANK[0] + 12.0, ys - 35.0, TANK[0] + 50.0, ys + 35.0],
                   "anti_note": "twin: each beam bends and reflects as for its own index anti_n[k]"},
        )
        case.truth = GroundTruth(quantities={"n": N_WATER, "e1": 0.0,
                                             "critical_deg": math.degrees(optics.critical_angle(N_WATER, 1.0))})
        return case, next(self.render(case))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k = case.known
        ys = k["surface_y"]
        st = style_of(case)
        base = _beams_scene(case, st)
        t = frame_times(case)
        u = np.clip(t / (case.duration * 0.95), 0, 1)
        u = u * u * (3 - 2 * u)
        for i in range(len(t)):
            img = base.copy()
            for j, b in enumerate(k["beams"]):
                n = N_WATER if law == "true" else k["anti_n"][j]
                lo, hi = b["sweep_deg"]
                th = math.radians(lo + (hi - lo) * u[i])
                p = np.asarray(b["entry"], float)
                src = p + RADIUS * np.array([-math.sin(th), math.cos(th)])
                color = tuple(b["color"])
                optics.draw_beam(img, src, p, color, width=BEAM_PX)
                refr = optics.refract(p - src, [0.0, 1.0], n, 1.0)
                back = np.array([math.sin(th), math.cos(th)])
                if refr is None:
                    optics.draw_beam(img, p, p + 600 * back, color, width=BEAM_PX)
                else:
                    optics.draw_beam(img, p, p + 600 * refr, color, width=BEAM_PX)
                    optics.draw_beam(img, p, p + 600 * back, color, opacity=0.25)  # the weak partial reflection
                _beams.draw_housing(img, src, p - src, length=26.0, width=10.0)
            x0, _, x1, y1 = (int(v) for v in TANK)
            wet = slice(int(ys) + 1, None)  # under water the beams end at the tank's walls and bottom
            img[y1 + 1:], img[wet, :x0 - 3], img[wet, x1 + 4:] = base[y1 + 1:], base[wet, :x0 - 3], base[wet, x1 + 4:]
            yield img

    def probes(self, case: Case) -> list[Probe]:
        out = [Probe("surface", "level", tuple(float(v) for v in case.known["surface_region"]))]
        for j, b in enumerate(case.known["beams"]):
            air = tuple(int(v) for v in b["color"])
            water = tuple(int(v) for v in b.get("color_water", air))
            out += [Probe(f"{part}_{j}", "line", [tuple(map(float, p)) for p in b[part]], color=c)
                    for part, c in (("in", water), ("out", air), ("back", water))]
        return out

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        n_by, sd_by, bounds, tir = {}, {}, [], 0
        up = np.array([0.0, 1.0])
        for j in range(len(case.known["beams"])):
            series, sds = [], []
            shared = _crossing_sd(tracks, j)
            for i in range(len(tracks)):
                inc = _beams.line_at(tracks, f"in_{j}", i)
                out = _beams.line_at(tracks, f"out_{j}", i)
                back = _beams.line_at(tracks, f"back_{j}", i)
                if inc is not None and out is not None:
                    grazing = _beams.angle_from_normal(out[1], up) > math.radians(MAX_AIR_DEG)
                    bad = grazing or any(_unweighed(tracks, f"{p}_{j}", i) for p in ("in", "out"))
                    n, sd = (math.nan, math.nan) if bad else beam_frame(
                        inc, out, *(math.hypot(_angle_sd(tracks, f"{p}_{j}", i), shared[p][i]) for p in ("in", "out")))
                    series.append(n)
                    sds.append(sd)
                    continue
                series.append(math.nan)
                sds.append(math.nan)
                if inc is not None and back is not None:
                    sw = math.sin(_beams.angle_from_normal(inc[1], up))
                    bounds.append(1.0 / sw if sw > 0 else math.nan)
                    tir += 1
            n_by[str(j)] = _drop_outliers(np.asarray(series, float)).tolist()
            sd_by[str(j)] = sds
        m.notes["n"] = {k: [v if math.isfinite(v) else None for v in s] for k, s in n_by.items()}
        m.notes["n_sd"] = {k: [v if math.isfinite(v) else None for v in s] for k, s in sd_by.items()}
        m.notes["tir_bounds"] = [b for b in bounds if math.isfinite(b)]
        m.set("total_reflections", float(tir))
        vals = [v for s in n_by.values() for v in s if math.isfinite(v)]
        m.set("n_mean", float(np.mean(vals)) if vals else None, "no refraction read")
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        nan = {key: {k: [math.nan if v is None else v for v in s] for k, s in m.notes.get(key, {}).items()}
               for key in ("n", "n_sd")}
        return {"M1": index_metric(nan["n"], m.notes.get("tir_bounds", []), nan["n_sd"])}

    def extra_consistency(self, case: Case, tracks: Tracks, measurement: Measurement) -> dict[str, float]:
        return self.readable(tracks, ["surface"] + [f"in_{j}" for j in range(len(case.known["beams"]))])


def _angle_sd(tracks: Tracks, name: str, i: int) -> float:
    """A line reading's direction error (rad); NaN where the reading has none (made elsewhere)."""
    v = tracks.regions[name].values.get("angle_sd")
    return math.nan if v is None else float(v[i])


def _unweighed(tracks: Tracks, name: str, i: int) -> bool:
    """Whether a line reading made here has no direction error: too short for four pieces (a stray bit of colour
    where a grazing beam leaves its region, read as a line along the normal: n = 0 on a studio CRF 35 clip)."""
    v = tracks.regions[name].values.get("angle_sd")
    return v is not None and not math.isfinite(float(v[i]))


def _crossing_sd(tracks: Tracks, j: int) -> dict[str, np.ndarray]:
    """Per frame, the direction error (rad) of beam ``j``'s ``in`` and ``out`` lines that stays from frame to frame.

    Both lines must meet the surface at one point. Where they cross the surface row apart by a median ``Δ`` px
    over the frames both are read (a compression block next to the entry point, where a turning beam never
    moves on), each line is taken to be off by ``Δ/√2`` px there, across the line: a turn about its centroid
    of ``Δ sin²a / (√2 |row − y|)``. Zero where fewer than 3 frames give both crossings."""
    surf = tracks.regions.get("surface")
    zero = {p: np.zeros(len(tracks)) for p in ("in", "out")}
    if surf is None or f"in_{j}" not in tracks.regions or f"out_{j}" not in tracks.regions:
        return zero
    row = np.where(surf.ok, surf["row"], np.nan)
    lines = {p: tracks.regions[f"{p}_{j}"] for p in ("in", "out")}
    with np.errstate(divide="ignore", invalid="ignore"):
        s2 = {p: np.sin(r["angle"]) ** 2 for p, r in lines.items()}
        dy = {p: np.abs(row - r["y"]) for p, r in lines.items()}
        cross = {p: r["x"] + (row - r["y"]) / np.tan(r["angle"]) for p, r in lines.items()}
        gap = cross["in"] - cross["out"]
        ok = np.isfinite(gap)
        if ok.sum() < 3:
            return zero
        delta = abs(float(np.median(gap[ok])))
        return {p: np.nan_to_num(delta * s2[p] / (math.sqrt(2.0) * dy[p]), nan=0.0, posinf=0.0) for p in lines}


def _drop_outliers(series: np.ndarray) -> np.ndarray:
    """``series`` with NaN where a reading is off its beam's local trend by more than ``k`` robust sds of the
    residuals about a local quadratic (a line fit spoilt where another beam crosses or compression smears)."""
    r = noise.residuals(series)
    ok = np.isfinite(r)
    if ok.sum() < 5:
        return series
    sd = noise.MAD_TO_STD * float(np.median(np.abs(r[ok])))
    out = series.copy()
    out[ok & (np.abs(np.nan_to_num(r)) > noise.k_for() * max(sd, 1e-9))] = np.nan
    return out


def _beams_scene(case: Case, st) -> np.ndarray:
    """The static picture: backdrop, a pale panel, the tank with its water."""
    k = case.known
    img = Scene(case.width, case.height, st).static_layer.copy()
    x0, y0, x1, y1 = TANK
    panel = tuple(int(0.25 * b + 0.75 * p) for b, p in zip(st.backdrop_bottom, (236, 238, 240)))
    optics.fill_polygon(img, [(x0, y0), (x1, y0), (x1, y1), (x0, y1)], panel)
    optics.fill_polygon(img, [(x0, k["surface_y"]), (x1, k["surface_y"]), (x1, y1), (x0, y1)], WATER, alpha=0.35)
    for a, b in ((x0 - 3, x0), (x1, x1 + 3)):
        optics.fill_polygon(img, [(a, y0), (b, y0), (b, y1 + 4), (a, y1 + 4)], (120, 135, 145))
    optics.fill_polygon(img, [(x0 - 3, y1), (x1 + 3, y1), (x1 + 3, y1 + 5), (x0 - 3, y1 + 5)], (120, 135, 145))
    return img
