"""Studio P9 (ball vs hoop on two ramps): the image keeps the 3-D travel-time ratio sqrt(10/7).

M1 compares image distances along two lanes that run to opposite sides of the frame, and loses about
a point per 0.1 % of ratio error. A camera tilted within the other scenes' 0.6° scaled the lanes
differently and the hoop's watched rim sat 0.3 R nearer the camera than the ball's centre: seed 1000's
projected truth read r_t 0.25 % (centres) and 0.69 % (rim) below sqrt(10/7) though MuJoCo's own
motion was 0.02 % from it. These checks read the simulated truth (no video).
"""

import numpy as np
import pytest

from studio_support import E, one_subframe  # noqa: F401 (GL set-up, or skip the module)

import mujoco  # noqa: E402 (after the GL set-up)

from lawful.suites.wmle.p09_sphere_vs_ring import SphereVsRing  # noqa: E402
from lawful.world.physics import TIME_RATIO  # noqa: E402
from lawful.world.studio import StudioStyle  # noqa: E402


def _scene(monkeypatch, index, seed):
    """The case, the world and the law recording of one studio P9 scene (rendering replaced by the recording)."""
    sc = StudioStyle().make("wmle", "sphere_vs_ring", index, seed)
    monkeypatch.setattr(E.World, "render", lambda self, rec, effects=True: iter([(self, rec)]))
    world, rec = next(iter(sc.render("true")))
    return sc.case, world, rec


@pytest.mark.parametrize("index, seed", [(0, 1000), (1, 1001)])
def test_watched_points_move_in_one_plane_the_camera_faces(monkeypatch, one_subframe, index, seed):
    """Every watched geom (the ball; the hoop's rim capsules) stays in the plane of the bodies' centres,
    and the image scale is the same wherever they go in it (camera square to the plane)."""
    case, world, rec = _scene(monkeypatch, index, seed)
    m, d = world.model, mujoco.MjData(world.model)
    mid = rec.times.shape[1] // 2
    plane_y = rec.body_xyz(world, "sphere")[0, 1]
    dist = case.known["studio"]["camera"]["distance_m"]
    scales = []
    for i in (0, rec.qpos.shape[0] // 2, rec.qpos.shape[0] - 1):
        d.qpos[:] = rec.qpos[i, mid]
        mujoco.mj_kinematics(m, d)
        for oid in ("sphere", "ring"):
            ids = [world.id("geom", g) for g in world.stage.objects[oid]]
            # a depth offset δ scales image distances by δ / distance: keep it under 1e-4 (0.01 %)
            assert np.abs(d.geom_xpos[ids, 1] - plane_y).max() < 1e-4 * dist, (oid, i)
            scales += [world.px_per_m(p) for p in d.geom_xpos[ids]]
    assert np.ptp(scales) / np.mean(scales) < 1e-4


@pytest.mark.parametrize("index, seed", [(0, 1000), (1, 1001)])
def test_projected_truth_keeps_sqrt_10_7(monkeypatch, one_subframe, index, seed):
    """The task's own extraction on the projected truth tracks reads r_t within 0.05 % of sqrt(10/7), as the
    3-D motion does (MuJoCo's soft contacts: within 0.03 %)."""
    case, world, rec = _scene(monkeypatch, index, seed)
    t = rec.times[:, rec.times.shape[1] // 2]
    xyz = {b: rec.body_xyz(world, b) for b in ("sphere", "ring")}
    # 3-D: travel-time ratio at common distances (before either body meets its stop block)
    s3 = {b: np.linalg.norm(v - v[0], axis=1) for b, v in xyz.items()}
    upto = {b: int(np.argmax(v > 0.9 * v.max())) for b, v in s3.items()}
    levels = np.linspace(0.15, 0.85, 15) * min(v.max() for v in s3.values())
    r3 = np.median([np.interp(lv, s3["ring"][:upto["ring"]], t[:upto["ring"]])
                    / np.interp(lv, s3["sphere"][:upto["sphere"]], t[:upto["sphere"]]) for lv in levels])
    assert r3 == pytest.approx(TIME_RATIO, rel=3e-4)
    # image: the task's extraction on the projected centres (the watched points, by the test above)
    from test_wmle_p09_sphere_vs_ring import _tracks

    pts = {b: tuple(np.array([world.project(p) for p in xyz[b]]).T) for b in ("sphere", "ring")}
    m = SphereVsRing().extract(case, _tracks(t, pts))
    assert m.get("travel_time_ratio") == pytest.approx(TIME_RATIO, rel=5e-4)
    for b in ("sphere", "ring"):  # the case's truth tracks are these projections
        assert np.allclose(np.array(case.truth.tracks[b], float)[:, 1:], np.array(pts[b]).T, atol=1e-3)
