"""Studio scenes of WMLE P26–P33: the 3-D truth the scenes record against the laws the tasks test.

Each check reads the scene's own recording (rendering replaced by the recording itself, one sub-frame), so the
law the clip shows is the law the task tests and the twin breaks exactly it. Scoring the videos is
``lawful validate --style studio``'s job.
"""

import math

import numpy as np
import pytest

from studio_support import E, one_subframe  # noqa: F401 (GL set-up, or skip the module)

from lawful.world.studio import StudioStyle  # noqa: E402

SEED = 5


def _recordings(monkeypatch, task, index=0):
    sc = StudioStyle().make("wmle", task, index, SEED)
    monkeypatch.setattr(E.World, "render", lambda self, rec, effects=True: iter([(self, rec)]))
    return {law: next(iter(sc.render(law))) for law in ("true", "anti")}, sc


def _q(world, rec, joint):
    return rec.qpos[:, rec.qpos.shape[1] // 2, world.model.jnt_qposadr[world.model.joint(joint).id]]


def test_freed_stone_lowers_the_level_by_its_excess_weight(monkeypatch, one_subframe):
    """P26: the level ends lower by V_s (ρ_s/ρ_w − 1) / A, with V_s and A read off the compiled model's stone and
    water geoms; the twin's ends higher by as much; the stone ends on the jar's bottom."""
    recs, sc = _recordings(monkeypatch, "ice_with_stone")
    w, rec = recs["true"]
    m = w.model
    r = float(m.geom_size[[i for i in range(m.ngeom) if m.geom_bodyid[i] == w.id("body", "stone")][0], 0])
    hx, hy = m.geom_size[w.id("geom", "water_g"), :2]
    area = 4 * (hx + 0.0005) * (hy + 0.0005)  # the jar's inside (the box sits half a millimetre clear of it)
    want = (4 / 3 * math.pi * r**3) * (sc.case.known["rho_stone"] - 1) / area
    for law, sign in (("true", -1), ("anti", 1)):
        lv = _q(*recs[law], "water_j")
        assert lv[-1] - lv[0] == pytest.approx(sign * want, rel=1e-3), law
        assert np.all(np.diff(lv) * sign >= -1e-12)  # monotonic: it never goes back
    z_stone = _q(w, rec, "stone_j")
    assert z_stone[-1] - r == pytest.approx(0.018, abs=1e-6)  # resting on the inner bottom
    assert sc.case.known["level_drop_px"] > 2.5  # beyond a pixel and a half: the law is visible


def test_charged_balls_settle_symmetric_at_the_coulomb_angle(monkeypatch, one_subframe):
    """P31 (MuJoCo): equal pushes give equal final angles at tan θ = F/(m g) (the scene's κ chosen for θ_eq); the
    twin's weaker push on one ball leaves it clearly lower."""
    recs, sc = _recordings(monkeypatch, "charged_balls", index=2)
    th_eq = sc.case.known["theta_eq_deg"]
    w, rec = recs["true"]
    left, right = np.degrees(_q(w, rec, "left_j")), -np.degrees(_q(w, rec, "right_j"))
    assert left[-1] == pytest.approx(right[-1], abs=1e-6)
    assert left[-1] == pytest.approx(th_eq, abs=0.3)  # the thread's own mass shifts it a little
    assert np.ptp(left[-24:]) < 0.2  # settled over the last second (the task allows 10 % of the offset)
    w, rec = recs["anti"]
    th = {b: abs(np.degrees(_q(w, rec, f"{b}_j")[-1])) for b in ("left", "right")}
    weak = sc.case.known["anti_ball"]
    strong = "left" if weak == "right" else "right"
    assert th[weak] < 0.75 * th[strong]


def test_compass_needles_settle_along_the_local_field(monkeypatch, one_subframe):
    """P32 (MuJoCo): each needle ends along the Earth's field plus the wire's circling one (opposite sides, near
    opposite directions); in the twin both end along the left needle's field."""
    recs, sc = _recordings(monkeypatch, "compass_needles")
    final = sc.case.known["final_deg"]
    for law in ("true", "anti"):
        w, rec = recs[law]
        for b in ("left", "right"):
            want = final["left" if law == "anti" else b]
            got = math.degrees(_q(w, rec, f"{b}_j")[-1])
            assert abs((got - want + 180) % 360 - 180) < 0.5, (law, b)
    assert abs((final["left"] - final["right"] + 180) % 360 - 180) > 150
