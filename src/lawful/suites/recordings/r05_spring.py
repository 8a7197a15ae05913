"""R5 — one mass on a vertical spring: a constant period, a damped sinusoid about a fixed equilibrium.

Objects: ``mass``. Case ``known`` (all optional): ``anchor`` ``[x, y]`` the spring's upper end in first-frame
pixels (the motion is measured along anchor → mass; without it along image ``y``), ``g``. Time is real seconds
(``capture_fps``). Release: :func:`~lawful.suites.recordings.common.release_time`. Samples where the mass is
cut by the frame edge or unseen are left out; what stays visible is measured, too little is unmeasurable.

Measurement on ``s(t)`` (px along the spring, ``σ`` its measured localisation noise): turning points (both
kinds, prominence ``2kσ``) timed by a parabola (:func:`._oscillation.turning_se`); a period is twice the time
between consecutive opposite turning points, or the time between same-kind neighbours whose opposite turning
point was out of sight (one unseen run shorter than half the stretch: the mass dipped out of frame); centres
``(s₁ + 2s₂ + s₃)/4`` of three alternating turning points (cancels a steady decay of the amplitude; standard
error ``√6·σ/4``); amplitudes ``|s_i − s̄|`` (half the seen range when no centre was seen).

Metrics (``q(beyond_noise(e, se); a)``, ``se`` from the measured noise):

- M1 period constancy: ``e1`` = inverse-variance weighted CV of the periods,
  ``se1 = √((n−1)/Σw)/T̄``; ``a = 0.10``. Needs 2 periods.
- M2 damped sinusoid: RMS residual (px) of ``c + A0·e^{−γτ−βτ²}·cos(φ0 + ω0τ)`` fitted from release on, beyond
  ``σ``, over the first amplitude (px); ``a = 0.03``.
- M3 equilibrium constant: drift of the centres over the clip (weighted straight line × time span, px) over the
  first amplitude; ``a = 0.05``. Needs 2 centres (4 turning points).
- M4 energy does not grow: growth of the amplitude over the clip, ``max(0, b)·D`` from a weighted line
  ``ln A = a + b t`` (``D`` the time span, ``se`` from ``σ/A``); ``a = 0.10``. Needs 3 turning points.

No release or too few turning points → operational zero (or undefined for the later metrics) with the reason.
Twin (``known.anti``): the frequency chirps (``chirp``), the amplitude grows (``growing``) or the equilibrium
drifts (``drift``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import events, noise
from lawful.result import Measurement
from lawful.suites.base import Law
from lawful.suites.recordings import _oscillation as osc
from lawful.suites.recordings.common import RecordingTask, rest_position
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, case_rng, event, frame_times, style_of
from lawful.tracks import Tracks
from lawful.world.appearance import object_colors
from lawful.world.draw import Block, Scene, Spring
from lawful.world.physics import spring_position

G = 9.81
A_PERIOD, A_RESID, A_EQUIL, A_GROWTH = 0.10, 0.03, 0.05, 0.10


def alternating_turns(s: np.ndarray, prominence: float) -> list[tuple[float, int]]:
    """Turning points of ``s`` as ``(fractional index, +1 max / −1 min)`` in time order. Of two same-kind
    neighbours with every sample between them seen, the more extreme is kept (jitter); with unseen samples
    between them both stay (the turning point between them was out of sight)."""
    pts = [(i, 1) for i in events.turning_points(s, "max", prominence)]
    pts += [(i, -1) for i in events.turning_points(s, "min", prominence)]
    out: list[tuple[float, int]] = []
    for i, k in sorted(pts):
        if out and out[-1][1] == k and np.isfinite(s[int(round(out[-1][0])):int(round(i)) + 1]).all():
            if k * s[int(round(i))] > k * s[int(round(out[-1][0]))]:
                out[-1] = (i, k)
            continue
        out.append((i, k))
    return out


def _hidden_turn(s: np.ndarray, a: float, b: float) -> bool:
    """Between same-kind turning points ``a`` and ``b``: one unseen run shorter than half the stretch (the
    opposite turning point out of sight, not a whole cycle)."""
    gap = ~np.isfinite(s[int(round(a)) + 1:int(round(b))])
    runs = np.flatnonzero(np.diff(np.concatenate([[0], gap.astype(int), [0]])) != 0).reshape(-1, 2)
    return len(runs) == 1 and (runs[0, 1] - runs[0, 0]) < 0.5 * (b - a)


def spring_cycles(t: np.ndarray, s: np.ndarray, sig: float) -> dict:
    """Periods, centres and amplitudes of an oscillation ``s`` (see the module docstring): ``2h`` from
    consecutive opposite turning points, ``Δt`` from same-kind neighbours whose opposite turning point was
    out of sight."""
    k = noise.k_for()
    turns = alternating_turns(s, 2 * k * sig)
    idx = np.arange(len(s))
    fill = np.where(np.isfinite(s), s, np.nanmean(s) if np.isfinite(s).any() else 0.0)
    dt = float(np.median(np.diff(t)))
    times = [events.index_to_time(i, t) for i, _ in turns]
    vals = [float(np.interp(i, idx, fill)) for i, _ in turns]
    se_t = [osc.turning_se(s, i, sig, dt) for i, _ in turns]
    P, P_se = [], []
    for j in range(len(turns) - 1):
        same = turns[j][1] == turns[j + 1][1]
        if same and not _hidden_turn(s, turns[j][0], turns[j + 1][0]):
            continue
        P.append((1 if same else 2) * (times[j + 1] - times[j]))
        P_se.append((1 if same else 2) * math.hypot(se_t[j], se_t[j + 1]))
    cen, cen_t = [], []
    for j in range(len(turns) - 2):
        if turns[j][1] == turns[j + 2][1] != turns[j + 1][1]:
            cen.append((vals[j] + 2 * vals[j + 1] + vals[j + 2]) / 4)
            cen_t.append(times[j + 1])
    if cen:
        c = float(np.median(cen))
    else:
        hi = [v for v, (_, kk) in zip(vals, turns) if kk > 0]
        lo = [v for v, (_, kk) in zip(vals, turns) if kk < 0]
        c = 0.5 * (hi[0] + lo[0]) if hi and lo else math.nan
    amps = [abs(v - c) for v in vals]
    return {"turns": [i for i, _ in turns], "times": times, "values": vals, "P": P, "P_se": P_se,
            "centres": cen, "centre_t": cen_t, "c": c, "amps": amps}


def weighted_slope(x, y, se) -> tuple[float, float]:
    """Slope of the inverse-variance weighted straight line ``y(x)`` and its standard error (NaN for < 2)."""
    fit = osc.weighted_line(x, y, se)
    return (math.nan, math.nan) if fit is None else (float(fit[0][1]), math.sqrt(float(fit[1][1, 1])))


class MassSpring(RecordingTask):
    """One mass on a vertical spring: constant period, damped sinusoid, fixed equilibrium, no energy gain."""

    name = "spring"
    label = "R5"
    family = FAMILIES[2]
    level = "E"
    required_objects = ("mass",)
    required_events = ("release",)
    required_known: dict[str, str] = {}
    optional_known = {"anchor": "[x, y] px where the spring hangs: the oscillation is measured along anchor → mass "
                                "(default: the direction of the motion)"}

    # -------------------------------------------------------------------------- case and render
    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        T = float(rng.uniform(0.8, 1.2))
        mass = float(rng.uniform(0.2, 0.6))
        stiff = mass * (2 * math.pi / T) ** 2
        eq_m = mass * G / stiff
        ppm = min(float(rng.uniform(250, 330)), 190.0 / (2 * eq_m))
        zeta = float(rng.uniform(0.01, 0.03))
        side = float(rng.uniform(40, 52))
        x = float(320 + rng.uniform(-60, 60))
        bar_y, rest = float(rng.uniform(22, 32)), float(rng.uniform(40, 55))
        hold = float(rng.uniform(0.3, 0.6))
        kind = str(rng.choice(["chirp", "growing", "drift"]))
        value = {"chirp": float(rng.choice([-1, 1]) * rng.uniform(0.25, 0.4)), "growing": float(rng.uniform(1.6, 2.2)),
                 "drift": float(rng.choice([-1, 1]) * rng.uniform(0.3, 0.5))}[kind]
        color = object_colors(seed, 1)[0]
        k = {"bar_y": round(bar_y, 2), "rest_px": round(rest, 2), "side_px": round(side, 2), "x": round(x, 2),
             "mass_kg": round(mass, 5), "stiffness": round(stiff, 5), "damping_ratio": round(zeta, 5),
             "px_per_m": round(ppm, 3), "hold_s": round(hold, 4), "g": G, "style_seed": int(seed),
             "color": [int(v) for v in color], "anchor": [round(x, 2), round(bar_y, 2)],
             "anti": {"kind": kind, "value": round(value, 5)}}
        duration = 6.0
        prompt = ("Fixed side view of a coloured block hanging from a coil spring under a metal bar. A hand holds the "
                  "block up with the spring relaxed, lets go, and the block bobs up and down around its resting point, "
                  "slowly settling. The camera does not move and time runs at a steady rate.")
        top = bar_y + rest
        spec = ObjectSpec(id="mass", shape="block", color=tuple(color),
                          box=(x - side / 2 - 1, top - 1, x + side / 2 + 1, top + side + 1), known={"mass": mass})
        case = Case(id=self.case_id(index), suite=self.suite, task=self.name, seed=int(seed), variant=f"style-{seed}",
                    width=WIDTH, height=HEIGHT, fps=FPS, duration=duration, prompt=prompt, objects=[spec],
                    assumptions=["a linear spring", "released from rest", "light damping", "fixed side view"],
                    criteria=["M1 period constancy", "M2 damped sinusoid", "M3 fixed equilibrium", "M4 no energy gain"],
                    known=k)
        t = frame_times(case)
        y = self._centre_y(case, t, "true")
        wd = math.sqrt(stiff / mass) * math.sqrt(1 - zeta**2)
        case.truth = GroundTruth(
            tracks={"mass": [(round(float(a), 5), x, round(float(b), 3)) for a, b in zip(t, y)]},
            events={"release": hold},
            quantities={"period_s": 2 * math.pi / wd, "equilibrium_px": top + side / 2 + eq_m * ppm,
                        "amplitude_px": eq_m * ppm, "release_s": hold})
        return case, next(iter(self.render(case)))

    @staticmethod
    def _extension(case: Case, t: np.ndarray, law: str) -> np.ndarray:
        """Spring extension (px, down) at times ``t``."""
        k = case.known
        tau = np.maximum(np.asarray(t, float) - k["hold_s"], 0.0)
        D = case.duration - k["hold_s"]
        kind, v = k["anti"]["kind"], float(k["anti"]["value"])
        if law == "anti" and kind == "chirp":
            tau = D / v * np.log1p(v * tau / D)
        m, stiff = k["mass_kg"], k["stiffness"]
        c = 2 * k["damping_ratio"] * math.sqrt(stiff * m)
        ext = spring_position(tau, m, stiff, k["g"], 0.0, damping=c) * k["px_per_m"]
        eq = m * k["g"] / stiff * k["px_per_m"]
        if law == "anti" and kind == "growing":  # the swing about equilibrium grows v-fold while it should decay
            zeta_w = k["damping_ratio"] * math.sqrt(stiff / m)
            ext = eq + (ext - eq) * np.exp(zeta_w * tau) * np.exp(math.log(v) * tau / D)
        elif law == "anti" and kind == "drift":  # the resting point creeps by v amplitudes over the clip
            ext = ext + v * eq * tau / D
        return ext

    def _centre_y(self, case: Case, t: np.ndarray, law: str) -> np.ndarray:
        k = case.known
        return k["bar_y"] + k["rest_px"] + self._extension(case, t, law) + k["side_px"] / 2

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k = case.known
        scene = Scene(case.width, case.height, style_of(case)).support(k["x"] - 60, k["x"] + 60, k["bar_y"])
        ext = self._extension(case, frame_times(case), law)
        s = k["side_px"]
        for e in ext:
            top = k["bar_y"] + k["rest_px"] + float(e)
            yield scene.frame([Spring((k["x"], k["bar_y"]), (k["x"], top), coils=9, radius=9),
                               Block(k["x"], top + s / 2, s, s, 0.0, tuple(k["color"]))])

    # -------------------------------------------------------------------------- measurement
    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        tr, t = tracks["mass"], np.asarray(tracks.t, float)
        x, y = osc.usable_series(tr, (case.width, case.height))
        anchor = case.known.get("anchor")
        if anchor is not None:
            ax, ay = (float(v) for v in anchor)
            u = np.array([rest_position(x) - ax, rest_position(y) - ay])
            u = u / np.linalg.norm(u) if np.all(np.isfinite(u)) and np.linalg.norm(u) > 0 else np.array([0.0, 1.0])
            s = (x - ax) * u[0] + (y - ay) * u[1]
        else:
            s = y
        sig = noise.sigma(s)
        sig = sig if math.isfinite(sig) and sig > 0 else 0.5
        m.notes["noise_px"] = sig
        s = osc.from_release(case, tracks, m, "mass", s, sig)
        if s is None:
            return m
        cy = spring_cycles(t, s, sig)
        for i in cy["turns"]:
            m.events.append(event("mass", "turning_point", float(i), tracks))
        n = len(cy["turns"])
        cv, se_cv, T, se_T = osc.weighted_spread(cy["P"], cy["P_se"])
        why = f"{n} turning points seen after release (need 3)"
        m.set("period_s", T, why)
        m.set("period_cv", cv, why)
        m.set("period_cv_se", se_cv, why)
        m.notes.update(periods=cy["P"], periods_se=cy["P_se"], centres=cy["centres"], turn_times=cy["times"])
        amp0 = cy["amps"][0] if cy["amps"] else math.nan
        if not math.isfinite(amp0) and n >= 2:  # no centre seen (one side out of sight): half the seen range
            amp0 = 0.5 * float(np.nanmax(s) - np.nanmin(s))
        m.set("amplitude_px", amp0, why)
        # M2: the damped sinusoid from release on
        rms = math.nan
        if n >= 3 and math.isfinite(T):
            tt, ok = t, np.isfinite(s)
            w0 = 2 * math.pi / T
            A0, gam = osc.envelope_start(tt[ok][:1], cy["amps"], cy["times"])
            sign = 1.0 if cy["values"][0] > cy["c"] else -1.0
            phi0 = (0.0 if sign > 0 else math.pi) - w0 * (cy["times"][0] - tt[ok][0])
            p, r = osc.damped_fit(tt[ok], s[ok], [cy["c"], A0, gam, 0.0, w0, phi0])
            rms = float(np.sqrt(np.mean(r**2)))
            m.notes["fit"] = [float(v) for v in p]
        m.set("fit_rms_px", rms, why)
        # M3: drift of the centres
        cse = [math.sqrt(6) * sig / 4] * len(cy["centres"])
        b, se_b = weighted_slope(cy["centre_t"], cy["centres"], cse)
        span = float(np.ptp(cy["centre_t"])) if len(cy["centre_t"]) >= 2 else math.nan
        m.set("equilibrium_drift_px", b * span, f"{len(cy['centres'])} centres (need 2)")
        m.set("equilibrium_drift_se_px", se_b * span, f"{len(cy['centres'])} centres (need 2)")
        # M4: amplitude growth
        A = np.asarray(cy["amps"], float)
        lb, se_lb = weighted_slope(cy["times"], np.log(np.maximum(A, 1e-9)), sig / np.maximum(A, 1e-9))
        D = float(np.ptp(cy["times"])) if n >= 2 else math.nan
        why4 = f"{n} turning points (need 3)"
        ok4 = n >= 3 and math.isfinite(lb) and math.isfinite(se_lb)
        why4 = why4 if n < 3 else "no centre between the turning points (amplitudes unknown)"
        m.set("amplitude_growth", max(0.0, lb) * D if ok4 else math.nan, why4)
        m.set("amplitude_growth_se", se_lb * D if ok4 else math.nan, why4)
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if m.get("period_cv") is None:
            reason = m.missing.get("period_cv") or m.missing.get("period_s", "no period")
            return {k: MetricScore.operational_zero(reason) for k in ("M1", "M2", "M3", "M4")}
        sig = float(m.notes.get("noise_px", math.nan))
        return {"M1": osc.noise_metric(m, "period_cv", "period_cv_se", A_PERIOD),
                "M2": osc.noise_metric(m, "fit_rms_px", None, A_RESID, "amplitude_px", sigma=sig),
                "M3": osc.noise_metric(m, "equilibrium_drift_px", "equilibrium_drift_se_px", A_EQUIL, "amplitude_px"),
                "M4": osc.noise_metric(m, "amplitude_growth", "amplitude_growth_se", A_GROWTH)}
