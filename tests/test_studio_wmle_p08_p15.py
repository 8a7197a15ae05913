"""Studio scenes of WMLE P8–P15: the simulated physics against the closed forms, the cases, law vs anti.

The physics checks read the simulated, projected truth of each law-correct scene (no video): a
MuJoCo scene that disagreed with the task's law would make every score below meaningless. The
end-to-end checks render the law-correct clip and its twin (one blur sub-frame, to keep the test
short: blur is exercised by the engine's own tests), encode them, score them with the normal
evaluator and require law > anti where the score can tell them apart.
"""

import math

import numpy as np
import pytest

from studio_support import E, one_subframe  # noqa: F401 (GL set-up, or skip the module)

from lawful.case import Case  # noqa: E402
from lawful.suites.base import get_suite  # noqa: E402
from lawful.world.studio import StudioStyle  # noqa: E402

TASKS = ("solid_sphere_rolling", "sphere_vs_ring", "edge_pivot_rotation", "rough_incline_round_trip",
         "pendulum_mass", "finite_amplitude", "pendulum_length", "isochronism")
SEED = 3


def _make(task, index=0, seed=SEED):
    return StudioStyle().make("wmle", task, index, seed)


def _track(sc, oid):
    return np.array(sc.case.truth.tracks[oid], float)  # rows t, x, y


@pytest.mark.parametrize("task", TASKS)
def test_registered_and_the_case_is_what_a_user_would_write(task, one_subframe):
    sc = _make(task)
    case = Case.model_validate(sc.case.model_dump())  # round-trips through the schema
    t = get_suite("wmle").task(task)
    assert set(t.required_objects) <= {o.id for o in case.objects}
    assert sc.first_frame.shape == (case.height, case.width, 3)
    for o in case.objects:
        x0, y0, x1, y1 = o.box
        assert 0 <= x0 < x1 <= case.width and 0 <= y0 < y1 <= case.height
        # the stated colour is the object's colour in the first frame (sampled inside its box)
        patch = sc.first_frame[int(y0) + 1:int(y1), int(x0) + 1:int(x1)].reshape(-1, 3).astype(float)
        assert np.min(np.linalg.norm(patch - np.array(o.color, float), axis=1)) < 25
        # the truth track starts inside the object's box
        x, y = _track(sc, o.id)[0, 1:]
        assert x0 <= x <= x1 and y0 <= y <= y1, (o.id, (x, y), o.box)


def test_pendulum_periods_follow_the_law(one_subframe):
    """P13: simulated 30°/15° period ratio is the elliptic r* (to 0.1 %); P14: sqrt(2) for lengths 1:2."""
    from lawful.suites.wmle.p13_finite_amplitude import R_STAR

    q = _make("finite_amplitude").case.truth.quantities
    assert q["T_large_s"] / q["T_small_s"] == pytest.approx(R_STAR, rel=1e-3)
    sc = _make("pendulum_length")
    q = sc.case.truth.quantities
    # a bob of radius r on length L is a physical pendulum: L_eq = L + 2 r² / (5 L); both within 1 %
    assert q["T_long_s"] / q["T_short_s"] == pytest.approx(math.sqrt(2), rel=1e-2)
    lengths = {p["id"]: p["length_px"] for p in sc.case.known["pendulums"]}
    assert lengths["long"] / lengths["short"] == pytest.approx(2.0, rel=5e-3)  # projected, camera faces the plane


def _path(tr):
    """Distance along the principal direction of a track's positions (px), growing with time."""
    d = tr[:, 1:] - tr[0, 1:]
    _, _, vt = np.linalg.svd(d - d.mean(0), full_matrices=False)
    s = d @ vt[0]
    return s if s[-1] >= 0 else -s


def test_rolling_ball_accelerates_as_a_solid_sphere(one_subframe):
    """P8: down the incline the centre accelerates at g sin θ / (1 + 2/5) (rolling without slipping)."""
    sc = _make("solid_sphere_rolling")
    k = sc.case.known
    tr = _track(sc, "ball")
    t = tr[:, 0]
    s = np.hypot(*(tr[:, 1:] - tr[0, 1:]).T)
    sel = (t > k["hold_s"] + 0.05) & (t < sc.case.truth.events["corner"] - 0.05)
    a = 2 * np.polyfit(t[sel], s[sel], 2)[0] / k["px_per_m"]
    assert a == pytest.approx(9.81 * math.sin(math.radians(k["incline_deg"])) / 1.4, rel=0.01)


def test_hoop_needs_sqrt_10_7_times_as_long(one_subframe):
    """P9: travel times of the simulated ball and hoop to common distances are in the ratio sqrt(10/7)."""
    sc = _make("sphere_vs_ring")
    t = _track(sc, "sphere")[:, 0]
    s = {b: _path(_track(sc, b)) for b in ("sphere", "ring")}
    levels = np.linspace(0.2, 0.8, 7) * min(s["sphere"].max(), s["ring"].max())
    upto = {b: int(np.argmax(v)) + 1 for b, v in s.items()}  # before any rebound off the stop block
    ratios = [np.interp(lv, s["ring"][:upto["ring"]], t[:upto["ring"]])
              / np.interp(lv, s["sphere"][:upto["sphere"]], t[:upto["sphere"]]) for lv in levels]
    assert np.median(ratios) == pytest.approx(math.sqrt(10 / 7), rel=0.02)


def test_block_turns_about_a_fixed_edge(one_subframe):
    """P10: the block's centre stays at one distance from its support edge (within 3 px) while it turns 90°."""
    sc = _make("edge_pivot_rotation")
    tr = _track(sc, "block")
    P = np.array(sc.case.known["pivot_px"])
    r = np.hypot(*(tr[:, 1:] - P).T)
    assert np.ptp(r) < 3.0
    assert sc.case.truth.quantities["rotation_deg"] > 85


def test_incline_round_trip_has_the_friction_ratio(one_subframe):
    """P11: accelerations fitted to the projected truth track give a_up / a_down = R*(θ) within 2 %."""
    sc = _make("rough_incline_round_trip")
    tr = _track(sc, "block")
    t, d = tr[:, 0], tr[:, 1:] - tr[0, 1:]
    _, _, vt = np.linalg.svd(d - d.mean(0), full_matrices=False)
    s = np.abs(d @ vt[0])  # distance up the slope (px)
    i_apex = int(np.argmax(s))
    i_launch = int(np.searchsorted(t, sc.case.known["launch_s"]))
    back = i_apex + int(np.flatnonzero(s[i_apex:] < 0.1 * s[i_apex])[0])  # near the post again
    up, down = slice(i_launch + 2, i_apex - 1), slice(i_apex + 2, back - 1)
    a_up = -2 * np.polyfit(t[up], s[up], 2)[0]
    a_down = -2 * np.polyfit(t[down], s[down], 2)[0]
    assert a_up / a_down == pytest.approx(sc.case.known["R_star"], rel=0.02)


@pytest.mark.parametrize("task", TASKS)
def test_law_scores_above_its_twin(task, tmp_path, one_subframe):
    from lawful.runner.evaluate import evaluate_video
    from lawful.video import write_video

    sc = _make(task)
    out = {}
    for law in ("true", "anti"):
        frames = list(sc.render(law))
        assert len(frames) == sc.case.n_frames
        if law == "true":
            assert np.array_equal(frames[0], sc.first_frame)
        path = write_video(tmp_path / f"{law}.mp4", frames, sc.case.fps)
        ev = evaluate_video(sc.case, path)
        label = get_suite("wmle").task(task).label
        out[law] = ev.scores[label]
    assert out["true"].status == "scored", out["true"].reason
    assert out["true"].value > out["anti"].value, (out["true"].metrics, out["anti"].metrics)


def _recordings(monkeypatch, task):
    """The scene's world and its law and twin recordings (rendering replaced by the recording itself)."""
    sc = _make(task)
    monkeypatch.setattr(E.World, "render", lambda self, rec, effects=True: iter([(self, rec)]))
    return {law: next(iter(sc.render(law))) for law in ("true", "anti")}, sc


def test_hoop_twin_accelerates_like_the_ball_times_f(monkeypatch, one_subframe):
    """P9 twin: hoop/ball travel-time ratio 1/sqrt(anti_accel_factor) (its stated inertia really changed)."""
    recs, sc = _recordings(monkeypatch, "sphere_vs_ring")
    w, rec = recs["anti"]
    t = rec.times[:, rec.times.shape[1] // 2]
    s = {}
    for b in ("sphere", "ring"):
        xyz = rec.body_xyz(w, b)
        d = np.linalg.norm(xyz - xyz[0], axis=1)
        s[b] = d[:int(np.argmax(d)) + 1]
    levels = np.linspace(0.2, 0.8, 7) * min(v.max() for v in s.values())
    ratios = [np.interp(lv, s["ring"], t[:len(s["ring"])]) / np.interp(lv, s["sphere"], t[:len(s["sphere"])])
              for lv in levels]
    assert np.median(ratios) == pytest.approx(1 / math.sqrt(sc.case.known["anti_accel_factor"]), rel=0.02)


def test_block_twin_support_edge_slides(monkeypatch, one_subframe):
    """P10 twin: the support edge slides right by anti_slide_fraction of the diagonal; the law's stays (< 2 mm)."""
    import mujoco

    recs, sc = _recordings(monkeypatch, "edge_pivot_rotation")
    travel = {}
    for law, (w, rec) in recs.items():
        m = w.model
        bid = w.id("body", "block")
        qa = m.jnt_qposadr[m.body_jntadr[bid]]
        half = m.geom_size[w.id("geom", "block_g0")]
        xs = []
        for q in rec.qpos[:, rec.qpos.shape[1] // 2]:
            R = np.zeros(9)
            mujoco.mju_quat2Mat(R, q[qa + 3:qa + 7])
            xs.append((q[qa:qa + 3] + R.reshape(3, 3) @ np.array([half[0], 0.0, -half[2]]))[0])
        travel[law] = xs[-1] - xs[0]
        diag = 2 * math.hypot(half[0], half[2])
    assert abs(travel["true"]) < 0.002
    assert travel["anti"] == pytest.approx(sc.case.known["anti_slide_fraction"] * diag, rel=0.1)


def test_ball_twin_turns_0_55_rad_per_radian_rolled(monkeypatch, one_subframe):
    """P8: the law rolls (path = r × angle turned, within 1 %); the twin skids, path = r × angle / 0.55 (5 %)."""
    import mujoco

    recs, sc = _recordings(monkeypatch, "solid_sphere_rolling")
    r = sc.case.known["radius_m"]
    ratio = {}
    for law, (w, rec) in recs.items():
        m = w.model
        qa = m.jnt_qposadr[m.body_jntadr[w.id("body", "ball")]]
        q = rec.qpos[:, rec.qpos.shape[1] // 2]
        path = np.linalg.norm(np.diff(q[:, qa:qa + 3], axis=0), axis=1).sum()
        turned = 0.0
        for a, b in zip(q[:-1], q[1:]):
            v = np.zeros(3)
            mujoco.mju_subQuat(v, b[qa + 3:qa + 7], a[qa + 3:qa + 7])
            turned += np.linalg.norm(v)
        ratio[law] = path / (r * turned)
    assert ratio["true"] == pytest.approx(1.0, rel=0.01)
    assert ratio["anti"] == pytest.approx(1 / 0.55, rel=0.05)
