"""Studio scenes of WMLE P34–P40: the simulated or driven 3-D truth against the tasks' laws, and the cases.

No video is scored here (``lawful validate --style studio`` does that); each check reads the scene's own
recording (rendering replaced by the recording itself), so the law the clip shows is the law the task tests,
and the twin breaks exactly it.
"""


import numpy as np
import pytest

from studio_support import E, check_case, one_subframe  # noqa: F401 (GL set-up, or skip the module)

from lawful.world import flows  # noqa: E402
from lawful.world.studio import StudioStyle  # noqa: E402

SEED = 3


def _recordings(monkeypatch, task, index=0, tmp_path=None):
    """The scene (its case checked as a user's would be when ``tmp_path`` is given) and its law and twin
    recordings (rendering replaced by the recording itself)."""
    sc = StudioStyle().make("wmle", task, index, SEED)
    if tmp_path is not None:
        check_case(sc, tmp_path)
    monkeypatch.setattr(E.World, "render", lambda self, rec, effects=True: iter([(self, rec)]))
    return {law: next(iter(sc.render(law))) for law in ("true", "anti")}, sc


def _speed(w, rec, body, t0, t1):
    t = rec.times[:, rec.times.shape[1] // 2]
    z = rec.body_xyz(w, body)[:, 2]
    sel = (t > t0) & (t < t1)
    return -np.polyfit(t[sel], z[sel], 1)[0]


def test_settling_speeds_go_as_radius_squared_and_the_twin_as_radius(monkeypatch, one_subframe, tmp_path):
    """P38: MuJoCo's terminal speeds (buoyancy + Stokes drag) have ratio (r_l/r_s)² (law) and r_l/r_s (twin)."""
    recs, sc = _recordings(monkeypatch, "viscous_settling", tmp_path=tmp_path)
    k = sc.case.known
    ratio = sc.case.truth.quantities["radius_ratio"]
    r = {o.id: o.known["radius_px"] for o in sc.case.objects}
    assert r["large"] / r["small"] == pytest.approx(ratio, rel=1e-3)  # projected: both in one plane
    t0 = k["hold_s"] + 0.2
    for law, want in (("true", ratio**2), ("anti", ratio)):
        w, rec = recs[law]
        t1 = t0 + 0.6 * (k["tank"][3] - k["start_y"]) / k["balls"]["large"]["v_px"]  # before the large bead lands
        v = {b: _speed(w, rec, b, t0, t1) for b in ("large", "small")}
        assert v["large"] / v["small"] == pytest.approx(want, rel=0.01), law
    vl = _speed(*recs["true"], "large", t0, t1)
    assert vl * k["px_per_m"] == pytest.approx(k["balls"]["large"]["v_px"], rel=0.02)


def test_funnel_fill_surface_follows_the_drain_law(monkeypatch, one_subframe, tmp_path):
    """P36: the scaled fill cone's top is at the drain law's height (β = ½ water, 0 sand; twin water β = 0),
    and the case's apex, rim and region are the projected funnel."""
    recs, sc = _recordings(monkeypatch, "funnel_discharge", tmp_path=tmp_path)
    k = sc.case.known
    for law in ("true", "anti"):
        w, rec = recs[law]
        d = __import__("mujoco").MjData(w.model)
        for i in (0, rec.qpos.shape[0] // 2, rec.qpos.shape[0] - 1):
            w._set(d, rec, i, 0)
            t = rec.times[i, 0]
            for m, beta in (("water", 0.5 if law == "true" else 0.0), ("sand", 0.0)):
                T = k["anti_t_empty_s"] if (m, law) == ("water", "anti") else k["funnels"][m]["t_empty_s"]
                g = w.id("geom", f"fill_{m}")
                mid = w.model.geom_dataid[g]
                v0, n = w.model.mesh_vertadr[mid], w.model.mesh_vertnum[mid]
                R = d.geom_xmat[g].reshape(3, 3)
                z = (w.model.mesh_vert[v0:v0 + n] @ R.T + d.geom_xpos[g])[:, 2]
                h_px = (z.max() - z.min()) * w.px_per_m((0, 0, z.min()))
                want = float(flows.drain_head(t, k["h0_px"], T, beta))
                assert h_px == pytest.approx(want, rel=0.02, abs=0.3), (law, m, i)
    for f in k["funnels"].values():
        (x, ya), region = f["apex"], np.array(f["region"])
        assert region[:, 1].max() < ya and region[:, 1].min() > f["rim_y"]
        assert np.all(np.abs(region[:, 0] - x) < (ya - region[:, 1]) * f["tan_half_angle"])  # inside the cone


def test_frozen_column_grows_by_the_density_ratio_and_turns_white(monkeypatch, one_subframe, tmp_path):
    """P24: the sample's top rises by 1000/917 of the water column as it freezes (twin: not at all), its
    material turns from the water's colour to the ice's, and the stated rows are the projected heights."""
    from lawful.suites.wmle.p24_freezing_expansion import EXPANSION

    recs, sc = _recordings(monkeypatch, "freezing_expansion", tmp_path=tmp_path)
    q = sc.case.truth.quantities
    assert q["H_ice_px"] / q["H_water_px"] == pytest.approx(EXPANSION, rel=3e-3)  # the camera is level
    tops, starts = {}, {}
    for law, (w, rec) in recs.items():
        d = __import__("mujoco").MjData(w.model)
        top = rec.qpos[:, 0, w.model.joint("sample_j").qposadr[0]]
        tops[law], starts[law] = top[-1] - 0.03, top[0]  # above the inner bottom (z = 0.03 m)
        w._set(d, rec, rec.qpos.shape[0] - 1, 0)
        mat = w.model.geom_matid[w.id("geom", "sample_g")]
        assert w.model.mat_rgba[mat][:3] * 255 == pytest.approx((232, 240, 247), abs=1.0)  # frozen: ice white
    assert starts["true"] == starts["anti"]  # the same water column before it freezes
    assert tops["true"] / tops["anti"] == pytest.approx(EXPANSION, rel=1e-6)
