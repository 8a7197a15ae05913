"""R6 — two bodies collide on a straight track: momentum is conserved, kinetic energy is not created.

Objects ``cart_1``, ``cart_2`` (any shapes; either may move or rest before the collision), each with
``known.mass_kg`` (kg, any ratio). Positions are projected on the track direction (the principal
direction of both bodies' displacements, positive from ``cart_1`` towards ``cart_2``); momenta are in
kg·px/s, the same scale for both bodies, so no calibration is needed.

Contact: the first sample where the gap between the bodies (centre distance less their half-lengths
along the track) comes within ``k·√(σ1² + σ2²) + 1 px`` of its smallest value (of 0 if they overlap),
refined to where the before and after fits of the body whose velocity changes most meet. Windows: from
``MARGIN`` samples off the contact outwards (past any sample still in the contact: each nearest sample
must continue the motion of the ones after it), a body's window grows sample by sample while each new
sample stays within ``k·σ_pred + 0.5 px`` of the fit to the samples so far (a line below 6 samples, a
quadratic from 6 on: friction's slow decay passes). It ends where the body is pushed (before; or at
``release``), reverses at an end stop, leaves the frame (border-cut or lost samples) or is brought to
rest (a quadratic turning round inside a window: friction stops a body, never turns it round).
Velocities ``v`` (before) and ``v'`` (after) are the slopes at the contact time of quadratic fits (lines
below 6 samples), standard errors from ``σ`` (the track's localisation noise along the track, measured
where the body moves).

- M1 momentum: ``e1 = (Σ m v' − Σ m v) / Σ |m v|``, ``se1 = √(Σ m²(se_v² + se_v'²)) / Σ |m v|``;
  ``s1 = q(beyond_noise(e1, se1), 0.10)`` (a 10 % momentum mismatch beyond noise scores 0.5).
- M2 no energy created: restitution ``c = (v2' − v1') / (v1 − v2)`` must lie in ``[0, 1]`` (below 0 the
  bodies pass through each other) and ``KE' / KE − 1 ≤ 0``; ``e2`` the larger excess, each beyond its
  propagated noise; ``s2 = q(e2, 0.10)``.
- M3 no push along the track: in each of the four windows the speed gain ``max(0, a·sgn v)·T`` (``T``
  the window's span; ``|a|·T`` for a body at rest) relative to the closing speed ``v1 − v2``, beyond its
  noise; the largest; ``s3 = q(e3, 0.10)``. Slowing down (friction) is allowed.

No contact, no closing speed, or a window with fewer than ``MIN_WINDOW`` samples: every metric is an
operational zero (unmeasurable), never a violation. Twin (``known.anti_kind``): ``fast`` — the lighter
body's velocity change is ``1 + anti_gain`` times the lawful one (momentum and energy created);
``swap`` — the bodies exchange velocities as equal masses would (momentum off by ``(m2 − m1)(v1 − v2)``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth, ObjectSpec
from lawful.perceive import noise
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law, TrackingPlan
from lawful.suites.recordings.common import RecordingTask, beyond_noise
from lawful.suites.windows import MIN_WINDOW, grow_window, motion_sigma, velocity_at
from lawful.suites.wmle.common import (
    FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, case_rng, contrasting_colors, event, frame_times,
    steady_visible, style_of,
)
from lawful.tracks import Tracks
from lawful.world.draw import Block, Scene

IDS = ("cart_1", "cart_2")
MARGIN = 1.5  # samples on either side of the contact left out of the windows
A_MOMENTUM, A_ENERGY, A_STEADY = 0.10, 0.10, 0.10  # q scales of M1, M2, M3
TOUCH_FRAC = 0.25  # bodies never closer than this fraction of their summed half-lengths: they never met


# ----------------------------------------------------------------------------- metrics


def momentum_metric(m, v, v_after, se, se_after) -> MetricScore:
    """M1 from masses ``m`` and velocities before/after (length-2 sequences) with their standard errors."""
    m, v, va, se, sa = (np.asarray(x, float) for x in (m, v, v_after, se, se_after))
    den = float(np.sum(np.abs(m * v)))
    e1 = float(np.sum(m * va) - np.sum(m * v)) / den
    se1 = float(np.sqrt(np.sum(m**2 * (se**2 + sa**2)))) / den
    return MetricScore.measured(q(beyond_noise(e1, se1), A_MOMENTUM), e1, se=se1, p_before=float(np.sum(m * v)),
                                p_after=float(np.sum(m * va)))


def energy_metric(m, v, v_after, se, se_after) -> MetricScore:
    """M2: restitution outside [0, 1] or kinetic energy created, each beyond its propagated noise."""
    m, v, va, se, sa = (np.asarray(x, float) for x in (m, v, v_after, se, se_after))
    closing = float(v[0] - v[1])
    c = float(va[1] - va[0]) / closing
    se_c = math.sqrt(sa[0] ** 2 + sa[1] ** 2 + c * c * (se[0] ** 2 + se[1] ** 2)) / abs(closing)
    out = max(0.0, c - 1.0, -c)
    ke, ke_a = float(np.sum(0.5 * m * v**2)), float(np.sum(0.5 * m * va**2))
    r = ke_a / ke
    se_r = r * math.hypot(float(np.sqrt(np.sum((m * va * sa) ** 2))) / max(ke_a, 1e-12),
                          float(np.sqrt(np.sum((m * v * se) ** 2))) / ke)
    e2 = max(beyond_noise(out, se_c), beyond_noise(max(0.0, r - 1.0), se_r))
    return MetricScore.measured(q(e2, A_ENERGY), max(out, r - 1.0, 0.0), restitution=c, se_restitution=se_c,
                                ke_ratio=r, se_ke_ratio=se_r)


def steady_metric(fits: dict[str, dict], closing: float, alpha=noise.FALSE_ALARM) -> MetricScore:
    """M3: the largest speed gain within a window, relative to the closing speed, beyond its noise."""
    worst, worst_raw, which = 0.0, 0.0, ""
    k = noise.k_for(alpha)
    for name, f in fits.items():
        at_rest = abs(f["v"]) <= k * f["se"]
        gain = abs(f["acc"]) if at_rest else max(0.0, f["acc"] * math.copysign(1.0, f["v"]))
        e = gain * f["span"] / abs(closing)
        b = beyond_noise(e, f["se_acc"] * f["span"] / abs(closing))
        if b > worst or (b == worst and e > worst_raw):
            worst, worst_raw, which = b, e, name
    return MetricScore.measured(q(worst, A_STEADY), worst_raw, reason=f"largest in {which}" if which else "")


# ----------------------------------------------------------------------------- the task


class Collision(RecordingTask):
    """Two carts of known masses collide on a straight track (1-D collision, any restitution)."""

    name = "collision"
    label = "R6"
    family = FAMILIES[0]
    level = "M"
    required_objects = IDS
    required_events = ("collision",)
    object_known = {"mass_kg": "the body's mass in kg"}
    plan = TrackingPlan()

    def case_problem(self, case: Case) -> str:
        if why := super().case_problem(case):
            return why
        for o in case.objects:
            if o.id in IDS:
                m = o.known["mass_kg"]
                if not m > 0:
                    return f"objects.{o.id}.known.mass_kg must be > 0 (got {m})"
        return ""

    # --- case and clips ---------------------------------------------------------------------------
    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        while True:
            m = rng.uniform(0.2, 1.0, 2)
            if abs(math.log(m[0] / m[1])) >= math.log(1.4):
                break
        w = np.clip(36.0 * (m / 0.5) ** (1 / 3), 26.0, 52.0)
        h = 0.55 * w
        v1 = float(rng.uniform(170.0, 260.0))
        v2 = 0.0 if rng.random() < 0.5 else float(rng.uniform(-0.35, 0.25)) * v1
        launch, t_c = float(rng.uniform(0.2, 0.35)), float(rng.uniform(1.1, 1.4))
        decel = float(rng.uniform(0.0, 0.10)) * v1 if rng.random() < 0.5 else 0.0
        x1 = float(rng.uniform(50.0, 80.0))
        x2 = x1 + (w[0] + w[1]) / 2 + (v1 - v2) * (t_c - launch - 0.06) - 0.5 * decel * (t_c - launch) ** 2
        k = {"ground_y": float(rng.uniform(290.0, 320.0)), "widths": w.round(3).tolist(),
             "heights": h.round(3).tolist(),
             "x0": [round(x1, 3), round(float(x2), 3)], "v0": [0.0, round(v2, 4)], "push_v": round(v1, 4),
             "launch_s": round(launch, 4), "push_s": 0.1, "decel_px_s2": round(decel, 4),
             "restitution": round(float(rng.uniform(0.2, 1.0)), 4),
             "end_stop_x": (round(float(rng.uniform(600.0, 625.0)), 2) if rng.random() < 0.6 else None),
             "mirror": bool(rng.random() < 0.3), "style_seed": int(seed),
             "anti_kind": "fast" if rng.random() < 0.5 else "swap", "anti_gain": round(float(rng.uniform(0.5, 0.8)), 4),
             "anti_note": "fast: the lighter body's velocity change is (1 + anti_gain) times the lawful one; "
                          "swap: the bodies exchange velocities as equal masses would"}
        k["colors"] = [list(c) for c in contrasting_colors(seed, 2)]
        t = frame_times_for(t_end=6.0)
        sim = simulate(k, m, t, "true")
        duration = min(sim["t_c"] + float(rng.uniform(1.2, 1.6)), sim["t_next"] - 0.2)
        duration = math.floor(duration * FPS) / FPS
        objects = []
        y = k["ground_y"]
        for i, oid in enumerate(IDS):
            b = Block(self._x(k, k["x0"][i]), y - h[i] / 2, w[i], h[i], 0.0, tuple(k["colors"][i])).bbox()
            objects.append(ObjectSpec(id=oid, shape="block", color=tuple(k["colors"][i]),
                                      box=(b[0] - 1, b[1] - 1, b[2] + 1, b[3] + 1),
                                      known={"mass_kg": round(float(m[i]), 4)}))
        case = Case(
            id=self.case_id(index), suite="recordings", task=self.name, seed=int(seed), variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=round(duration, 4), objects=objects, known=k,
            prompt=(f"Fixed side view of a level track with two carts of {m[0]:.3f} kg and {m[1]:.3f} kg. The first "
                    "cart is pushed towards the second; they collide and move on along the track. The camera does "
                    "not move."),
            assumptions=["known masses", "level straight track, little friction", "fixed side view, uniform time"],
            criteria=["M1: momentum conserved", "M2: kinetic energy not created (restitution in [0, 1])",
                      "M3: no speed gain within a free-motion window"])
        tt = frame_times(case)
        sim = simulate(k, m, tt, "true")
        case.truth = GroundTruth(
            tracks={oid: [(float(a), self._x(k, float(b)), y - h[i] / 2) for a, b in zip(tt, sim["x"][i])]
                    for i, oid in enumerate(IDS)},
            events={"collision": sim["t_c"]},
            quantities={**{f"{o}_{w}_px_s": float(sim[key][i]) for key, w in (("v_c", "before"), ("v_after", "after"))
                           for i, o in enumerate(IDS)}, "restitution": k["restitution"]})
        return case, next(self.render(case))

    @staticmethod
    def _x(k: dict, x: float) -> float:
        return WIDTH - x if k.get("mirror") else x

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        k = case.known
        m = [o.known["mass_kg"] for o in case.objects]
        scene = Scene(case.width, case.height, style_of(case)).ground(k["ground_y"])
        if k.get("end_stop_x") is not None:
            xs = k["end_stop_x"]
            scene.platform(self._x(k, xs), k["ground_y"] - 30, self._x(k, xs + 8), k["ground_y"])
        sim = simulate(k, np.array(m), frame_times(case), law)
        for i in range(case.n_frames):
            yield scene.frame([Block(self._x(k, float(sim["x"][j][i])), k["ground_y"] - k["heights"][j] / 2,
                                     k["widths"][j], k["heights"][j], 0.0, tuple(k["colors"][j])) for j in range(2)])

    # --- measurement ---------------------------------------------------------------------------------
    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        m = Measurement()
        got = track_coordinates(case, tracks)
        if isinstance(got, str):
            m.notes["unresolved"] = got
            return m
        t, s, half, sig = got
        k = noise.k_for()
        gap = (s[1] - s[0]) - (half[0] + half[1])
        if not np.isfinite(gap).any():
            m.notes["unresolved"] = "the two bodies are never seen together"
            return m
        gmin = float(np.nanmin(gap))
        m.set("min_gap_px", gmin)
        if gmin > TOUCH_FRAC * (half[0] + half[1]):
            m.notes["unresolved"] = f"the bodies never meet (closest gap {gmin:.1f} px)"
            return m
        thr = k * math.hypot(*sig) + 1.0
        i_near = int(np.flatnonzero(np.nan_to_num(gap, nan=np.inf) <= max(gmin, 0.0) + thr)[0])
        tc = float(t[i_near])
        for it in range(4):  # windows around tc, then tc where the fits of the most changed body meet
            fits = collision_windows(case, t, s, sig, tc)
            if isinstance(fits, str):
                m.notes["unresolved"] = fits
                return m
            j = int(np.argmax([abs(fits[f"{o}_after"]["v"] - fits[f"{o}_before"]["v"]) for o in IDS]))
            b, a = fits[f"{IDS[j]}_before"], fits[f"{IDS[j]}_after"]
            dv = b["v"] - a["v"]
            if abs(dv) <= k * math.hypot(b["se"], a["se"]):
                m.notes["unresolved"] = "no collision: neither body's velocity changes beyond noise"
                return m
            new = float(np.clip(tc + (a["p"] - b["p"]) / dv, t[max(i_near - 2, 0)], t[min(i_near + 2, len(t) - 1)]))
            if abs(new - tc) < 1e-3 / max(tracks.fps, 1.0) or it == 3:
                break  # the fits are those at tc
            tc = new
        m.set("collision_s", tc)
        m.events.append(event(IDS[j], "collision", float(np.interp(tc, t, np.arange(len(t)))), tracks))
        for key, f in fits.items():
            m.set(f"{key}_v_px_s", f["v"])
            m.set(f"{key}_se_px_s", f["se"])
            m.set(f"{key}_acc_px_s2", f["acc"])
            m.set(f"{key}_se_acc_px_s2", f["se_acc"])
            m.set(f"{key}_span_s", f["span"])
        m.notes["windows"] = {key: [f["i0"], f["i1"]] for key, f in fits.items()}
        m.notes["interval"] = [min(f["i0"] for f in fits.values()), max(f["i1"] for f in fits.values()) + 1]
        m.notes["sigma_px"] = [round(float(x), 4) for x in sig]
        return m

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        if "unresolved" in m.notes:
            return {f"M{i}": MetricScore.operational_zero(m.notes["unresolved"]) for i in (1, 2, 3)}
        mass = [next(o.known["mass_kg"] for o in case.objects if o.id == oid) for oid in IDS]
        g = {key: m.get(f"{key}_v_px_s") for key in (f"{o}_{w}" for w in ("before", "after") for o in IDS)}
        v = [g[f"{o}_before"] for o in IDS]
        va = [g[f"{o}_after"] for o in IDS]
        se = [m.get(f"{o}_before_se_px_s") for o in IDS]
        sa = [m.get(f"{o}_after_se_px_s") for o in IDS]
        closing = v[0] - v[1]
        if closing <= noise.k_for() * math.hypot(*se):
            why = "the bodies do not approach each other before the collision"
            return {f"M{i}": MetricScore.operational_zero(why) for i in (1, 2, 3)}
        fits = {key: {"v": m.get(f"{key}_v_px_s"), "se": m.get(f"{key}_se_px_s"), "acc": m.get(f"{key}_acc_px_s2"),
                      "se_acc": m.get(f"{key}_se_acc_px_s2"), "span": m.get(f"{key}_span_s")} for key in g}
        return {"M1": momentum_metric(mass, v, va, se, sa), "M2": energy_metric(mass, v, va, se, sa),
                "M3": steady_metric(fits, closing)}


# ----------------------------------------------------------------------------- helpers


def track_coordinates(case: Case, tracks: Tracks):
    """``(t, s [2, T], half-lengths [2], σ [2])`` along the track, or why not (a string)."""
    frame = (case.width, case.height)
    if any(o not in tracks for o in IDS):
        return "a body is not tracked"
    vis = [steady_visible(tracks[o], frame) for o in IDS]
    if min(v.sum() for v in vis) < 2 * MIN_WINDOW:
        return "a body is seen in too few samples"
    xy = [np.where(v[:, None], tracks[o].xy, np.nan) for o, v in zip(IDS, vis)]
    pooled = np.concatenate([p[np.isfinite(p).all(1)] - np.nanmean(p, 0) for p in xy])
    u = np.linalg.svd(pooled, full_matrices=False)[2][0]
    first = [p[np.isfinite(p).all(1)][0] for p in xy]
    if float((first[1] - first[0]) @ u) < 0:
        u = -u
    s = np.stack([p @ u for p in xy])
    half = []
    for o, v in zip(IDS, vis):
        b = np.asarray(tracks[o].box, float)[v]
        half.append(float(np.median(0.5 * (abs(u[0]) * (b[:, 2] - b[:, 0]) + abs(u[1]) * (b[:, 3] - b[:, 1])))))
    sig = [motion_sigma(tracks[o], v, sj, u) for o, v, sj in zip(IDS, vis, s)]
    return np.asarray(tracks.t, float), s, np.array(half), np.array(sig)


def collision_windows(case: Case, t, s, sig, tc) -> dict | str:
    """Each body's before and after windows around ``tc`` and their fits (``{"cart_1_before": {...}, …}``)."""
    dt = float(np.median(np.diff(t)))
    out = {}
    for j, o in enumerate(IDS):
        fin = np.flatnonzero(np.isfinite(s[j]))
        before = fin[t[fin] <= tc - MARGIN * dt][::-1]
        after = fin[t[fin] >= tc + MARGIN * dt]
        wb, wa = grow_window(t, s[j], before, sig[j]), grow_window(t, s[j], after, sig[j])
        if case.release is not None:  # the push ends the before-window, whatever the growth found
            wb = wb[t[wb] >= float(case.release)]
        for name, w in (("before", wb), ("after", wa)):
            if len(w) < MIN_WINDOW:
                return f"too few samples of {o} {name} the collision ({len(w)} < {MIN_WINDOW})"
            f = velocity_at(t, s[j], w, tc, sig[j])
            f.update(i0=int(w[0]), i1=int(w[-1]))
            out[f"{o}_{name}"] = f
    return out


def frame_times_for(t_end: float, fps: float = FPS) -> np.ndarray:
    return np.arange(int(round(t_end * fps))) / fps


def simulate(k: dict, m: np.ndarray, t: np.ndarray, law: Law, sub: int = 40) -> dict:
    """Positions ``x [2, T]`` of the carts' centres at times ``t`` (unmirrored), the first contact ``t_c``, the
    velocities just before and after it and the time of the next cart–cart contact (inf if none)."""
    w = np.asarray(k["widths"], float)
    x, v = np.array(k["x0"], float), np.array(k["v0"], float)
    h = 1.0 / (FPS * sub)
    n = int(math.ceil((float(t[-1]) + 1e-9) / h)) + 1
    xs = np.empty((n, 2))
    contacts, first = [], {}
    push_a = k["push_v"] / k["push_s"]
    for i in range(n):
        xs[i] = x
        now = i * h
        pushed = k["launch_s"] <= now < k["launch_s"] + k["push_s"]
        if k["decel_px_s2"] > 0:  # friction on whatever moves, the pushed cart excepted
            slow = np.sign(v) * np.maximum(0.0, np.abs(v) - k["decel_px_s2"] * h)
            v = np.where([pushed, False], v, slow)
        if pushed:
            v[0] = min(k["push_v"], v[0] + push_a * h)
        step = h
        gap = x[1] - x[0] - (w[0] + w[1]) / 2
        closing = v[0] - v[1]
        if closing > 0 and gap - closing * step <= 0:
            tau = max(0.0, gap / closing)
            x += v * tau
            before = v.copy()
            v = collide(m, v, k["restitution"], law if not contacts else "true", k)
            contacts.append(now + tau)
            if len(contacts) == 1:
                first = {"v_c": before.tolist(), "v_after": v.tolist()}
            step -= tau
        stop = k.get("end_stop_x")
        if stop is not None and x[1] + w[1] / 2 >= stop and v[1] > 0:
            v[1] = -0.7 * v[1]
        x += v * step
    tt = np.arange(n) * h
    xi = np.stack([np.interp(t, tt, xs[:, j]) for j in range(2)])
    return {"x": xi, "t_c": contacts[0] if contacts else math.inf,
            "t_next": contacts[1] if len(contacts) > 1 else math.inf, **first}


def collide(m: np.ndarray, v: np.ndarray, e: float, law: Law, k: dict) -> np.ndarray:
    """Velocities after a 1-D collision with restitution ``e`` (law) or the twin's rule (``k['anti_kind']``)."""
    M = m[0] + m[1]
    p = m[0] * v[0] + m[1] * v[1]
    after = np.array([(p - m[1] * e * (v[0] - v[1])) / M, (p + m[0] * e * (v[0] - v[1])) / M])
    if law != "anti":
        return after
    if k["anti_kind"] == "swap":
        return v[::-1].copy()
    j = int(np.argmin(m))
    after[j] = v[j] + (1.0 + k["anti_gain"]) * (after[j] - v[j])
    return after
