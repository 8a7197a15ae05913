"""P18 — specular reflection of a laser beam at a plane mirror (WMLE B.4).

A laser pointer aims a narrow beam obliquely at a flat mirror strip; the beam and its reflection are
both visible, meeting the mirror at one contact point. The law: the reflection angle equals the
incidence angle, both from the mirror's normal, and the reflected ray leaves from the contact point.

Readings (:mod:`lawful.perceive.regions` ``line`` probes, regions from ``case.known``): the incident beam
on the laser's side of the normal at the contact, the reflected beam on the other side, and the mirror
strip (its fitted centre line moved by half its measured thickness, ``rms·√12 / 2``, to the face the
beams touch).

- M1 ``e1 = |θi − θr|`` in degrees (median over frames), ``s1 = q(e1; 90°)``.
- M2 ``e2 = median(contact error) / D_f``: the distance from the incident ray's contact point on the
  mirror face to the reflected ray's backward extension, over the frame diagonal; ``s2 = q(e2; 1.0)``.

Both need ≥ ``MIN_FRAMES`` frames with all three lines read, else operational zeros. Twin: the
reflected beam leaves the contact at ``θi + anti_delta_deg`` (from the same point, so M2 holds).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from lawful.case import Case, GroundTruth
from lawful.perceive.regions import Probe
from lawful.result import Measurement
from lawful.score.wmle import q
from lawful.suites.base import Law
from lawful.suites.wmle import _beams
from lawful.suites.wmle._beams import reflection_frame, reflection_measurement  # noqa: F401  (tests use both)
from lawful.suites.wmle.common import FAMILIES, FPS, HEIGHT, WIDTH, MetricScore, WmleTask, case_rng, style_of
from lawful.tracks import Tracks
from lawful.world.scenes.light import MIRROR_COLOR, MIRROR_THICK, mirror_frames

MIN_FRAMES = 3
GAP = 12.0  # px kept clear of the contact point and the mirror face by the beam regions
REACH = 170.0  # px from the contact that the beam regions span, along and across the mirror


def reflection_angle_metric(e_deg) -> MetricScore:
    """M1: ``e1 = |θi − θr|`` (degrees, median over frames); ``s1 = q(e1; 90)``."""
    x = np.asarray([v for v in e_deg if math.isfinite(v)], float)
    if len(x) < MIN_FRAMES:
        return MetricScore.operational_zero(f"both rays and the mirror read in {len(x)} frames (< {MIN_FRAMES})")
    e1 = float(np.median(x))
    return MetricScore.measured(q(e1, 90.0), e1, frames=float(len(x)))


def contact_metric(errors_px, diagonal: float) -> MetricScore:
    """M2: ``e2 = median(contact error) / D_f``; ``s2 = q(e2; 1.0)``."""
    x = np.asarray([v for v in errors_px if math.isfinite(v)], float)
    if len(x) < MIN_FRAMES:
        return MetricScore.operational_zero(f"contact resolved in {len(x)} frames (< {MIN_FRAMES})")
    e2 = float(np.median(x)) / diagonal
    return MetricScore.measured(q(e2, 1.0), e2, median_px=float(np.median(x)))


class MirrorReflection(WmleTask):
    """A laser beam reflected by a plane mirror strip."""

    name = "mirror_reflection"
    label = "P18"
    family = FAMILIES[3]
    level = "M"
    required_objects = ()
    required_known = {
        "beam_color": "RGB of the laser beam",
        "mirror_color": "RGB of the mirror strip",
        "incident_region": "polygon [[x, y], …] (px) holding the incident beam only",
        "reflected_region": "polygon [[x, y], …] (px) holding the reflected beam only",
        "mirror_region": "polygon [[x, y], …] (px) around the mirror strip, clear of the beams' source",
    }

    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        rng = case_rng(seed, self.label)
        beta = math.radians(float(rng.uniform(-10.0, 10.0)))
        c = np.array([float(rng.uniform(290.0, 350.0)), float(rng.uniform(262.0, 292.0))])
        u = np.array([math.cos(beta), math.sin(beta)])
        n = np.array([math.sin(beta), -math.cos(beta)])  # towards the beams (up)
        side = float(rng.choice([-1.0, 1.0]))  # the laser's side along u
        th_i = float(rng.uniform(30.0, 58.0))
        delta = float(rng.uniform(18.0, 28.0)) * (1.0 if th_i < 45.0 else -1.0)
        half = float(rng.uniform(190.0, 230.0))
        name, color = _beams.beam_color(seed)
        src_dir = side * math.sin(math.radians(th_i)) * u + math.cos(math.radians(th_i)) * n
        L_i = float(rng.uniform(170.0, 210.0))
        mirror_center = c - float(rng.uniform(-30.0, 30.0)) * u
        known = {
            "contact": c.tolist(), "mirror_tangent": u.tolist(), "mirror_normal": n.tolist(),
            "mirror_center": mirror_center.tolist(), "mirror_half_px": half, "laser_side": side,
            "theta_i_deg": th_i, "incident_px": L_i, "source": (c + L_i * src_dir).tolist(),
            "beam_name": name, "beam_color": list(color), "mirror_color": list(MIRROR_COLOR),
            "style_seed": seed, "anti_delta_deg": delta,
            "incident_region": _beams.surface_quad(c, u * side, n, GAP, REACH, GAP, REACH, WIDTH, HEIGHT),
            "reflected_region": _beams.surface_quad(c, -u * side, n, GAP, REACH, GAP, REACH, WIDTH, HEIGHT),
            "mirror_region": _beams.surface_quad(mirror_center, u, n, -half + 25, half - 25, -MIRROR_THICK - 8,
                                                 8.0, WIDTH, HEIGHT),
            "anti_note": "twin: the reflected beam leaves at theta_i + anti_delta_deg from the normal",
        }
        case = Case(
            id=self.case_id(index), suite="wmle", task=self.name, seed=seed, variant=f"style-{seed}",
            width=WIDTH, height=HEIGHT, fps=FPS, duration=2.0,
            prompt=(f"A small laser pointer is fixed above a flat mirror strip lying on a stand, and shines a thin "
                    f"{name} beam down at the mirror at a slant of about {th_i:.0f} degrees from the mirror's "
                    "perpendicular. The beam is visible in the air (a little haze), both on its way to the mirror "
                    "and after it bounces off; the spot where it touches the mirror is in view. Nothing moves; "
                    "the camera is fixed."),
            objects=[],
            assumptions=["a flat specular mirror", "a fixed laser and camera", "the beams lie in the image plane"],
            criteria=["M1: reflection angle equals incidence angle, |θi − θr| (q, a = 90°)",
                      "M2: the reflected ray leaves from the incident contact point, error / frame diagonal "
                      "(q, a = 1.0)"],
            known=known,
        )
        case.truth = GroundTruth(quantities={"theta_i_deg": th_i, "theta_r_deg": th_i, "e1": 0.0, "e2": 0.0,
                                             "anti_e1": abs(delta)})
        return case, next(self.render(case))

    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        delta = case.known["anti_delta_deg"] if law == "anti" else 0.0
        yield from mirror_frames(case.known, case.width, case.height, style_of(case), case.n_frames, delta)

    def probes(self, case: Case) -> list[Probe]:
        k = case.known
        beam = tuple(int(v) for v in k["beam_color"])
        return [Probe("incident", "line", _beams.polygon(case, "incident_region"), color=beam, thin=_beams.THIN),
                Probe("reflected", "line", _beams.polygon(case, "reflected_region"), color=beam, thin=_beams.THIN),
                Probe("mirror", "line", _beams.polygon(case, "mirror_region"),
                      color=tuple(int(v) for v in k["mirror_color"]))]

    def extract(self, case: Case, tracks: Tracks) -> Measurement:
        return reflection_measurement(tracks)

    def metrics(self, case: Case, m: Measurement) -> dict[str, MetricScore]:
        return {"M1": reflection_angle_metric(m.notes.get("e_deg", [])),
                "M2": contact_metric(m.notes.get("contact_err_px", []), math.hypot(case.width, case.height))}

    def extra_consistency(self, case: Case, tracks: Tracks, measurement: Measurement) -> dict[str, float]:
        return self.readable(tracks, ("incident", "reflected", "mirror"))
