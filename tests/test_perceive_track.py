"""Tracking on small synthetic clips whose object positions are known exactly."""

import threading

import cv2
import numpy as np
import pytest

from lawful.case import Case, ObjectSpec
from lawful.perceive.track import ObjectNotFound, track
from lawful.suites.base import TrackingPlan
from lawful.video import write_video

W, H = 320, 240
RED, BLUE, GREEN = (220, 40, 40), (40, 90, 225), (40, 175, 60)


def backdrop(w=W, h=H, seed=0):
    """Low-saturation textured backdrop with a ground band (gives the camera estimator corners)."""
    rng = np.random.default_rng(seed)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = (200, 204, 208)
    for _ in range(w * h // 1200):
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        v = int(rng.integers(120, 235))
        cv2.rectangle(img, (x, y), (x + int(rng.integers(3, 18)), y + int(rng.integers(3, 18))), (v, v - 4, v - 8), -1)
    img[int(0.85 * h):] = (125, 118, 110)
    return img


def disc(img, x, y, r, color, marker_angle=None):
    """Anti-aliased disc centred at (x, y) (pixel centres at integers); optional dark marker dot."""
    s = 16
    cv2.circle(img, (round(x * s), round(y * s)), round(r * s), color, -1, cv2.LINE_AA, shift=4)
    if marker_angle is not None:
        mx, my = x + 0.55 * r * np.cos(marker_angle), y + 0.55 * r * np.sin(marker_angle)
        cv2.circle(img, (round(mx * s), round(my * s)), round(0.3 * r * s), (30, 30, 30), -1, cv2.LINE_AA, shift=4)


def make_case(objects, w=W, h=H, duration=2.0, fps=25.0):
    return Case(id="synthetic", suite="test", task="track", width=w, height=h, duration=duration, fps=fps,
                objects=objects)


def ball_spec(oid, x, y, r, color, shape="sphere", with_box=True, with_color=True):
    box = (x - r - 3, y - r - 3, x + r + 3, y + r + 3) if with_box else None
    return ObjectSpec(id=oid, shape=shape, box=box, color=color if with_color else None)


def falling_ball(n=50, duration=2.0, scale=1.0):
    """Frames and truth [n, 2] of a red ball falling on a parabola (case pixels) drawn at ``scale``."""
    bg = cv2.resize(backdrop(), None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST) if scale != 1 else backdrop()
    t = np.arange(n) * duration / n
    truth = np.stack([100 + 12 * t, 30 + 0.5 * 80 * t * t], 1)
    frames = []
    for x, y in truth:
        img = bg.copy()
        disc(img, (x + 0.5) * scale - 0.5, (y + 0.5) * scale - 0.5, 10 * scale, RED)
        frames.append(img)
    return frames, truth


def test_falling_ball_tracked_within_one_pixel(tmp_path):
    frames, truth = falling_ball()
    path = write_video(tmp_path / "fall.mp4", frames, fps=25)
    case = make_case([ball_spec("ball", *truth[0], 10, RED)])
    tr = track(path, case, TrackingPlan())
    assert tr.ids == ["ball"] and len(tr) == 50
    assert tr.visible.all()
    assert np.abs(tr.xy[:, 0] - truth).max() < 1.0
    np.testing.assert_allclose(tr["ball"].bottom, truth[:, 1] + 10, atol=1.5)
    np.testing.assert_allclose(tr.t, np.arange(50) * 2.0 / 50)
    assert tr.meta["n_frames"] == 50 and tr.meta["video_size"] == [W, H]
    assert tr.meta["camera"]["static"] is True
    # where the time went: every phase counted once, so the parts add up to the whole (rounded to 1 ms each)
    ts = tr.meta["timing_s"]
    parts = ("open", "setup", "decode", "objects", "camera", "regions", "finish")
    assert set(ts) == {"total", *parts} and all(ts[k] >= 0 for k in parts)
    assert ts["setup"] > 0 and ts["objects"] > 0 and ts["camera"] > 0
    assert abs(sum(ts[k] for k in parts) - ts["total"]) <= 0.004


def test_colour_only_spec_finds_the_object(tmp_path):
    frames, truth = falling_ball(n=20)
    path = write_video(tmp_path / "fall.mp4", frames, fps=25)
    case = make_case([ObjectSpec(id="ball", shape="sphere", color=RED)], duration=0.8)
    tr = track(path, case, TrackingPlan(compensate_camera=False))
    assert np.abs(tr.xy[:, 0] - truth).max() < 1.0


def test_other_resolution_and_every_map_back_to_case_pixels(tmp_path):
    frames, truth = falling_ball(scale=2.0)  # the video is 640x480, the case 320x240
    path = write_video(tmp_path / "fall2x.mp4", frames, fps=25)
    case = make_case([ball_spec("ball", *truth[0], 10, RED)])
    tr = track(path, case, TrackingPlan(every=2, max_side=320))
    assert tr.meta["video_size"] == [640, 480] and tr.meta["track_size"] == [320, 240]
    np.testing.assert_array_equal(tr.frames, np.arange(0, 50, 2))
    np.testing.assert_allclose(tr.t, np.arange(0, 50, 2) * 2.0 / 50)
    assert np.abs(tr.xy[:, 0] - truth[::2]).max() < 1.0


def _crossing(tmp_path, a, b, n=50):
    """Two discs crossing the frame in opposite directions over ``n`` frames, ``a`` and ``b`` each
    ``(y, r, colour)`` (``b`` drawn over ``a``); the clip's path and the discs' x (case pixels)."""
    xa = np.linspace(50, 270, n)
    xb = xa[::-1]
    bg = backdrop()
    frames = []
    for x1, x2 in zip(xa, xb):
        img = bg.copy()
        disc(img, x1, *a)
        disc(img, x2, *b)
        frames.append(img)
    return write_video(tmp_path / "crossing.mp4", frames, fps=25), xa, xb


def test_same_coloured_balls_keep_identities_when_passing(tmp_path):
    path, xa, xb = _crossing(tmp_path, (80, 11, BLUE), (112, 11, BLUE))  # 32 px apart: they pass without touching
    case = make_case([ball_spec("left", xa[0], 80, 11, BLUE), ball_spec("right", xb[0], 112, 11, BLUE)])
    tr = track(path, case, TrackingPlan())
    assert tr.meta["groups"] == [["left", "right"]]
    assert tr.visible.all()
    assert np.abs(tr["left"].x - xa).max() < 1.0 and np.abs(tr["left"].y - 80).max() < 1.0
    assert np.abs(tr["right"].x - xb).max() < 1.0 and np.abs(tr["right"].y - 112).max() < 1.0


def test_overlapping_twins_are_hidden_while_merged_and_recovered_after(tmp_path):
    path, xa, xb = _crossing(tmp_path, (100, 11, BLUE), (108, 11, BLUE))  # their discs overlap while passing
    case = make_case([ball_spec("left", xa[0], 100, 11, BLUE), ball_spec("right", xb[0], 108, 11, BLUE)])
    tr = track(path, case, TrackingPlan(compensate_camera=False))
    for oid, xs, y in (("left", xa, 100), ("right", xb, 108)):
        o = tr[oid]
        apart = np.abs(xa - xb) > 26  # discs separated by a clear gap
        assert o.visible[apart].all()
        err = np.hypot(o.x - xs, o.y - y)
        assert np.nanmax(err[o.visible]) < 1.5  # whenever reported, it is the right ball
        assert np.abs(o.x[-5:] - xs[-5:]).max() < 1.0  # identity kept after the crossing


def test_a_ball_passing_behind_another_is_not_recorded_while_their_boxes_overlap(tmp_path):
    """A small blue ball passes in front of a large red one: the red shows as a ring round it, a blob of most
    of its area whose centroid is pushed off the blue. While their boxes share more than half the smaller
    one neither is recorded; with no overlap both are, on their paths; identities hold after."""
    path, xa, xb = _crossing(tmp_path, (100, 16, RED), (100, 7, BLUE))  # blue in front
    case = make_case([ball_spec("red", xa[0], 100, 16, RED), ball_spec("blue", xb[0], 100, 7, BLUE)])
    tr = track(path, case, TrackingPlan(compensate_camera=False))
    dx = np.abs(xa - xb)
    inside = dx < 16 - 7 - 1  # the blue box lies within the red one
    assert inside.sum() >= 2
    for oid, xs in (("red", xa), ("blue", xb)):
        o = tr[oid]
        assert not o.visible[inside].any()
        apart = dx > 16 + 7 + 1
        assert o.visible[apart].all()
        assert np.abs(o.x - xs)[apart].max() < 1.0 and np.abs(o.y - 100)[apart].max() < 1.0
        assert np.abs(o.x[-5:] - xs[-5:]).max() < 1.0


def test_the_camera_keeps_out_objects_that_are_found_but_not_recorded(tmp_path, monkeypatch):
    """While one ball hides part of another neither is recorded, yet both still move on their own: their boxes
    are kept out of the camera-motion estimate in those frames too."""
    import lawful.perceive.camera as cam

    path, xa, xb = _crossing(tmp_path, (100, 16, RED), (100, 7, BLUE))
    case = make_case([ball_spec("red", xa[0], 100, 16, RED), ball_spec("blue", xb[0], 100, 7, BLUE)])
    given, update = [], cam.CameraMotion.update
    monkeypatch.setattr(cam.CameraMotion, "update", lambda self, rgb, boxes=None: given.append(boxes) or update(self, rgb, boxes))
    tr = track(path, case, TrackingPlan())
    inside = np.abs(xa - xb) < 16 - 7 - 1
    assert not tr.visible[inside].any() and len(given) == len(xa)
    for k in np.flatnonzero(inside):
        for x, r in ((xa[k], 16), (xb[k], 7)):  # each ball's disc lies in a box handed to the camera
            assert any(b[0] <= x - r + 1 and x + r - 1 <= b[2] and b[1] <= 100 - r + 1 and 100 + r - 1 <= b[3]
                       for b in given[k]), (k, x, given[k])


def test_objects_overlapping_from_the_first_frame_stay_recorded(tmp_path):
    """A small disc inside a larger one of another colour (a stone in ice) overlaps it by construction."""
    n = 30
    xs = np.linspace(80, 200, n)
    bg = backdrop()
    frames = []
    for x in xs:
        img = bg.copy()
        disc(img, x, 100, 20, BLUE)
        disc(img, x + 4, 100, 7, RED)
        frames.append(img)
    path = write_video(tmp_path / "inside.mp4", frames, fps=25)
    case = make_case([ball_spec("ice", xs[0], 100, 20, BLUE), ball_spec("stone", xs[0] + 4, 100, 7, RED)])
    tr = track(path, case, TrackingPlan(compensate_camera=False))
    assert tr.visible.all()
    assert np.abs(tr["stone"].x - (xs + 4)).max() < 1.0


def test_object_absent_from_first_frame_raises(tmp_path):
    frames, truth = falling_ball(n=10)
    path = write_video(tmp_path / "fall.mp4", frames, fps=25)
    ghost = ObjectSpec(id="ghost", shape="sphere", box=(230, 40, 260, 70), color=GREEN)
    with pytest.raises(ObjectNotFound) as err:
        track(path, make_case([ball_spec("ball", *truth[0], 10, RED), ghost], duration=0.4), TrackingPlan())
    assert "lawful-prefetch" not in {t.name for t in threading.enumerate()}  # the decoding thread stopped too
    assert err.value.object_id == "ghost"
    assert str(err.value).startswith("object 'ghost' not found in the first frame (")  # with the reason
    with pytest.raises(ObjectNotFound):  # colour only, nowhere in the frame
        track(path, make_case([ObjectSpec(id="g2", color=GREEN)], duration=0.4), TrackingPlan())


def test_object_leaving_the_frame_is_not_visible_and_not_invented(tmp_path):
    n = 40
    x = 150 + 6.0 * np.arange(n)  # leaves through the right edge around frame 30
    bg = backdrop()
    frames = []
    for xi in x:
        img = bg.copy()
        disc(img, xi, 90, 10, RED)
        disc(img, 60, 90, 10, GREEN)  # a second object that stays
        frames.append(img)
    path = write_video(tmp_path / "exit.mp4", frames, fps=25)
    case = make_case([ball_spec("runner", x[0], 90, 10, RED), ball_spec("stayer", 60, 90, 10, GREEN)], duration=1.6)
    tr = track(path, case, TrackingPlan())
    o = tr["runner"]
    inside = x + 10 <= W - 1
    gone = x - 10 > W
    assert o.visible[inside].all()
    assert np.abs(o.x[inside] - x[inside]).max() < 1.0
    assert not o.visible[gone].any()
    assert np.isnan(o.xy[~o.visible]).all() and (o.area[~o.visible] == 0).all()
    assert np.nanmax(o.x) <= W  # no position beyond the frame
    assert o.first_lost() is not None and o.first_lost() <= int(np.argmax(gone))
    assert tr["stayer"].visible.all()


def _hue_shift(img, degrees):
    hsv = cv2.cvtColor(img.astype(np.float32) / 255, cv2.COLOR_RGB2HSV)
    hsv[..., 0] = (hsv[..., 0] + degrees) % 360
    return np.clip(np.rint(cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB) * 255), 0, 255).astype(np.uint8)


def test_noise_compression_and_hue_shift_track_within_two_pixels(tmp_path):
    frames, truth = falling_ball()
    rng = np.random.default_rng(1)
    xb = np.linspace(40, 200, len(frames))
    bad = []
    for f, x in zip(frames, xb):
        disc(f, x, 180, 12, BLUE)
        noisy = f.astype(np.float32) + rng.normal(0, 8, f.shape)
        bad.append(_hue_shift(np.clip(np.rint(noisy), 0, 255).astype(np.uint8), 10))
    path = write_video(tmp_path / "bad.mp4", bad, fps=25, crf=35)
    case = make_case([ball_spec("ball", *truth[0], 10, RED), ball_spec("blue", xb[0], 180, 12, BLUE)])
    tr = track(path, case, TrackingPlan())
    assert tr.visible.all()
    assert np.abs(tr["ball"].xy - truth).max() < 2.0
    assert np.abs(tr["blue"].x - xb).max() < 2.0 and np.abs(tr["blue"].y - 180).max() < 2.0


def test_marker_angle_follows_rolling(tmp_path):
    n, r = 40, 16
    x = np.linspace(60, 250, n)
    ang = (x - x[0]) / r + 0.3  # rolling without slipping, clockwise on screen (y down)
    bg = backdrop()
    frames = []
    for xi, a in zip(x, ang):
        img = bg.copy()
        disc(img, xi, 150, r, GREEN, marker_angle=a)
        frames.append(img)
    path = write_video(tmp_path / "roll.mp4", frames, fps=25)
    case = make_case([ball_spec("wheel", x[0], 150, r, GREEN, shape="cylinder")], duration=1.6)
    tr = track(path, case, TrackingPlan(angles=True))
    got = np.unwrap(tr["wheel"].angle)
    assert np.isfinite(got).all()
    assert np.abs(got - ang).max() < 0.15
    assert np.abs(tr["wheel"].x - x).max() < 1.0  # the marker does not pull the centroid



def test_marker_smeared_beyond_the_radius_is_not_read(tmp_path):
    """Frames averaged three at a time (a 3-frame exposure) smear a fast wheel's marker over more than its radius:
    its angle is then unmeasured, not read off the ghosted body (a flat P8 ball read 0.44x its turn: P 25.6)."""
    from lawful.world.perturb import exposure_blur

    n, r = 40, 16
    x = 60 + 480 * (np.arange(n) / (n - 1)) ** 2  # speeding up, 0.6 to 24 px per frame
    bg = backdrop()
    frames = []
    for xi in x:
        img = bg.copy()
        disc(img, xi, 150, r, GREEN, marker_angle=(xi - x[0]) / r + 0.3)
        frames.append(img)
    path = write_video(tmp_path / "ghost.mp4", list(exposure_blur(frames, 3)), fps=25)
    tr = track(path, make_case([ball_spec("wheel", x[0], 150, r, GREEN, shape="cylinder")], duration=1.6),
               TrackingPlan(angles=True))
    span = 2 * np.r_[0.0, np.diff(x)]  # the three copies' spread along the motion
    assert np.isfinite(tr["wheel"].angle[span < 0.5 * r]).all()  # slow: read as before
    assert not np.isfinite(tr["wheel"].angle[span > 2 * r]).any()  # (old: read at 26 and 27, one 1.3 rad off)

def test_slow_lighting_change_keeps_track_and_static_camera(tmp_path):
    frames, truth = falling_ball()
    n = len(frames)
    dimmed = [np.clip(f * (1 - 0.35 * i / (n - 1)), 0, 255).astype(np.uint8) for i, f in enumerate(frames)]
    path = write_video(tmp_path / "dim.mp4", dimmed, fps=25)
    tr = track(path, make_case([ball_spec("ball", *truth[0], 10, RED)]), TrackingPlan())
    assert tr.visible.all()
    assert np.abs(tr.xy[:, 0] - truth).max() < 1.0
    assert tr.meta["camera"]["static"] is True  # a global dimming is not camera motion


def test_world_renderer_sphere_and_marked_cylinder(tmp_path):
    from lawful.world.appearance import object_colors, style_variant
    from lawful.world.draw import Cylinder, Scene, Sphere

    n, r = 40, 14
    cols = object_colors(2, 2)
    scene = Scene(W, H, style_variant(2))
    scene.ground(200)
    t = np.arange(n) / n
    ball = np.stack([250 + 0 * t, 40 + 120 * t * t], 1)
    xc = 50 + 150 * t
    phi = (xc - xc[0]) / r
    frames = [scene.frame([Sphere(*b, 12, cols[0]), Cylinder(x, 200 - r, r, cols[1], angle=p)])
              for b, x, p in zip(ball, xc, phi)]
    path = write_video(tmp_path / "world.mp4", frames, fps=25)
    specs = [ball_spec("ball", *ball[0], 12, cols[0]), ball_spec("wheel", xc[0], 200 - r, r, cols[1], "cylinder")]
    case = make_case(specs, duration=1.6)
    tr = track(path, case, TrackingPlan(angles=True))
    assert tr.visible.all()
    assert np.abs(tr["ball"].xy - ball).max() < 1.0
    assert np.abs(tr["wheel"].x - xc).max() < 1.0 and np.abs(tr["wheel"].y - (200 - r)).max() < 1.0
    turn = np.unwrap(tr["wheel"].angle) - tr["wheel"].angle[0]
    assert np.abs(turn - phi).max() < 0.4
    slope = np.polyfit(phi, turn, 1)[0]  # rotation rate read off the marker
    assert abs(slope - 1) < 0.02


@pytest.mark.parametrize("with_color", [True, False])
def test_box_slightly_off_the_object_still_finds_it(tmp_path, with_color):
    """A generated first frame may move the object a little against the case's box."""
    frames, truth = falling_ball(n=20)
    path = write_video(tmp_path / "fall.mp4", frames, fps=25)
    x, y = truth[0]
    box = (x - 16 + 6, y - 16 - 5, x + 16 + 6, y + 16 - 5) if with_color else (x - 16, y - 16, x + 16, y + 16)
    spec = ObjectSpec(id="ball", shape="sphere", box=box, color=RED if with_color else None)
    tr = track(path, make_case([spec], duration=0.8), TrackingPlan(compensate_camera=False))
    assert np.abs(tr.xy[:, 0] - truth).max() < 1.0
    assert abs(tr.area[0, 0] / (np.pi * 10**2) - 1) < 0.2  # the whole ball, not the part in the box


def test_an_object_at_rest_is_remeasured_as_soon_as_it_creeps(tmp_path, monkeypatch):
    """The at-rest shortcut reuses a measurement only while the pixels stay put: after 10 still
    frames, a 0.25 px step and then a 0.05 px-per-frame creep are followed as closely as
    without the shortcut."""
    import lawful.perceive.objects as tracking

    x = np.r_[np.full(10, 100.0), np.full(10, 100.25), 100.25 + 0.05 * np.arange(1, 21)]
    frames = []
    for xi in x:
        img = backdrop()
        disc(img, xi, 120, 12, RED)
        frames.append(img)
    video = write_video(tmp_path / "creep.mp4", frames, fps=25, crf=12)
    case = make_case([ball_spec("a", 100, 120, 12, RED)], duration=len(x) / 25)
    got = track(video, case).xy[:, 0, 0]
    monkeypatch.setattr(tracking, "STILL_LEVELS", -1)  # every frame measured in full
    full = track(video, case).xy[:, 0, 0]
    assert np.abs(got - full).max() < 0.15
    assert np.abs(got - x).max() < 0.2 and np.abs(full - x).max() < 0.2
    # (the encoder takes 2 frames to settle; measured in full, this disc's 0.25 px step reads 0.17 even on a
    # lossless copy, and x264's settings move both readings by several hundredths)
    assert abs((got[12:20].mean() - got[:10].mean()) - 0.25) < 0.1
    assert np.polyfit(np.arange(20), got[20:], 1)[0] == pytest.approx(0.05, abs=0.015)


def test_a_mask_is_read_relative_to_its_case_file(tmp_path, monkeypatch):
    """An object given only by a mask PNG beside the case file is found whatever the working folder."""
    from lawful.case import load_case

    frames, truth = falling_ball(n=20)
    video = write_video(tmp_path / "ball.mp4", frames, fps=10)
    mask = np.zeros((H, W), np.uint8)
    cv2.circle(mask, (100, 30), 10, 255, -1)
    (tmp_path / "cases").mkdir()
    cv2.imwrite(str(tmp_path / "cases" / "ball_mask.png"), mask)
    case = make_case([ObjectSpec(id="a", shape="sphere", mask="ball_mask.png")])
    case_file = case.save(tmp_path / "cases")
    monkeypatch.chdir(tmp_path)  # not the case folder
    tr = track(video, load_case(case_file))
    assert np.abs(tr.xy[:, 0] - truth).max() < 0.3
    with pytest.raises(ObjectNotFound) as e:
        track(video, case)  # built in memory: the mask is looked up in the working folder, where it is not
    assert "no readable mask" in e.value.detail


def test_a_fast_bounce_is_followed_through_the_reversal(tmp_path):
    """A ball hitting the ground at ~45 px per frame and rebounding (restitution 0.8) lands two
    steps from its constant-velocity prediction: it must be found there, not lost."""
    fps, g, ground, r = 25.0, 3200.0, 215.0, 10.0
    t_hit = np.sqrt(2 * (ground - r - 20) / g)  # from rest at y = 20
    t = np.arange(20) / fps  # until just before the second impact
    up = 0.8 * g * t_hit  # rebound speed
    y = np.where(t < t_hit, 20 + 0.5 * g * t * t, ground - r - up * (t - t_hit) + 0.5 * g * (t - t_hit) ** 2)
    frames = []
    for yi in y:
        img = backdrop()
        disc(img, 150, yi, r, RED)
        frames.append(img)
    assert g * t_hit / fps > 40  # px per frame at impact
    video = write_video(tmp_path / "bounce.mp4", frames, fps=fps, crf=12)
    tr = track(video, make_case([ball_spec("a", 150, 20, r, RED)], duration=len(y) / fps))
    assert tr.visible[:, 0].all()
    assert np.abs(tr.xy[:, 0, 1] - y).max() < 0.5


def test_same_coloured_pair_in_separate_windows_with_a_stray_fragment(tmp_path):
    """Regression (issue #9): a same-colour pair far apart is segmented in two windows; a small
    stray blob of that colour in one window is a free candidate whose label does not exist in the
    other window. It must be ignored (and no IndexError raised)."""
    n = 20
    xa, xb = 60 + 2.0 * np.arange(n), 250 - 2.0 * np.arange(n)
    frames = []
    for a, b in zip(xa, xb):
        img = backdrop()
        disc(img, a, 100, 11, BLUE)
        disc(img, b, 100, 11, BLUE)
        disc(img, b, 118, 3, BLUE)  # a stray blob of that colour below the right ball, outside its extent
        frames.append(img)
    path = write_video(tmp_path / "pair.mp4", frames, fps=25, crf=12)
    case = make_case([ball_spec("left", xa[0], 100, 11, BLUE), ball_spec("right", xb[0], 100, 11, BLUE)],
                     duration=n / 25)
    tr = track(path, case, TrackingPlan(compensate_camera=False))
    assert tr.meta["groups"] == [["left", "right"]]
    assert tr.visible.all()
    assert np.abs(tr["left"].x - xa).max() < 1.0 and np.abs(tr["right"].x - xb).max() < 1.0
    assert np.abs(tr["left"].y - 100).max() < 1.0 and np.abs(tr["right"].y - 100).max() < 1.0


def _occluded_run(tmp_path, distractor=(560, 300)):
    """A red ball moving right at 9 px/frame behind a grey bar (x 200-300) for ~12 frames while a
    same-coloured ball rests far away; truth [n, 2], video path."""
    n = 50
    x = 60 + 9.0 * np.arange(n)
    frames = []
    for xi in x:
        img = backdrop(640, 360)
        disc(img, *distractor, 9, RED)
        disc(img, xi, 120, 9, RED)
        cv2.rectangle(img, (200, 80), (300, 170), (90, 90, 95), -1)
        frames.append(img)
    return np.stack([x, np.full(n, 120.0)], 1), write_video(tmp_path / "occl.mp4", frames, fps=25, crf=18)


def test_a_lost_object_is_not_re_acquired_on_a_distant_same_coloured_blob(tmp_path):
    """Issue #9: after a loss the tracker took any blob of the colour. Behind the occluder the
    ball is not visible; it is found again where it re-emerges, never on the distractor."""
    truth, video = _occluded_run(tmp_path)
    case = make_case([ball_spec("a", *truth[0], 9, RED)], 640, 360, duration=2.0)
    tr = track(video, case, TrackingPlan(compensate_camera=False))
    o = tr["a"]
    err = np.hypot(*(o.xy - truth).T)
    hidden = (truth[:, 0] - 9 > 200) & (truth[:, 0] + 9 < 300)
    clear = (truth[:, 0] + 9 < 200) | (truth[:, 0] - 9 > 300)
    assert not o.visible[hidden].any()
    assert o.visible[clear].all() and np.nanmax(err[clear]) < 1.5
    assert np.nanmax(err) < 9  # partly occluded: a biased centroid, never the distractor


def test_a_lone_sighting_after_a_loss_is_retracted(tmp_path):
    """A blob of the object's colour that shows once in a lost object's search window (a reflection or a shadow
    passing over a floor of its hue; studio P31 seed 1001 took its blue ball from a floor tile 120 px off its path
    and failed the clip on that one sample) is not recorded when the next sample finds nothing: the sighting is
    retracted and the search goes on from where the object was lost, so the ball is found where it re-emerges."""
    n, flash = 50, 20
    x = 60 + 9.0 * np.arange(n)
    frames = []
    for i, xi in enumerate(x):
        img = backdrop(640, 360)
        disc(img, xi, 120, 9, RED)
        cv2.rectangle(img, (200, 80), (300, 170), (90, 90, 95), -1)
        if i == flash:
            disc(img, 250, 190, 9, RED)
        frames.append(img)
    truth = np.stack([x, np.full(n, 120.0)], 1)
    video = write_video(tmp_path / "flash.mp4", frames, fps=25, crf=18)
    case = make_case([ball_spec("a", *truth[0], 9, RED)], 640, 360, duration=2.0)
    o = track(video, case, TrackingPlan(compensate_camera=False))["a"]
    hidden = (truth[:, 0] - 9 > 200) & (truth[:, 0] + 9 < 300)
    clear = (truth[:, 0] + 9 < 200) | (truth[:, 0] - 9 > 300)
    assert hidden[flash] and not o.visible[hidden].any()
    err = np.hypot(*(o.xy - truth).T)
    assert o.visible[clear].all() and np.nanmax(err[clear]) < 1.5


def test_roi_and_exclude_keep_blobs_out(tmp_path):
    """Blobs inside an excluded box or outside the roi are not taken, even when the object goes there."""
    truth, video = _occluded_run(tmp_path)
    case = make_case([ball_spec("a", *truth[0], 9, RED)], 640, 360, duration=2.0)
    tr = track(video, case, TrackingPlan(compensate_camera=False), exclude=[(380, 60, 420, 180)])
    o = tr["a"]
    err = np.hypot(*(o.xy - truth).T)
    inside = (truth[:, 0] >= 380) & (truth[:, 0] <= 420)
    assert not o.visible[inside].any() and o.visible[truth[:, 0] - 9 > 420].all()
    assert np.nanmax(err[truth[:, 0] - 9 > 420]) < 1.5  # found again past the box, not on the distractor
    tr = track(video, case, TrackingPlan(compensate_camera=False), roi=(0, 0, 400, 359))
    o = tr["a"]
    assert not o.visible[truth[:, 0] > 400].any() and o.visible[truth[:, 0] < 190].all()
    # the same regions as polygons (a triangle's box would also cover the object's path: only its area counts)
    tri = [(380, 0), (420, 0), (380, 359)]  # covers the path (y ~ 120) for x in 380..~407
    tr = track(video, case, TrackingPlan(compensate_camera=False), exclude=[tri])
    o = tr["a"]
    y = truth[:, 1]
    edge = 380 + 40 * (1 - y / 359)  # the triangle's hypotenuse at the ball's row
    assert not o.visible[(truth[:, 0] >= 381) & (truth[:, 0] < edge - 1)].any()
    assert o.visible[truth[:, 0] > edge + 1].all()  # inside the triangle's box but outside the triangle: seen
    tr = track(video, case, TrackingPlan(compensate_camera=False), roi=[(0, 0), (400, 0), (400, 359), (0, 359)])
    assert not tr["a"].visible[truth[:, 0] > 400].any() and tr["a"].visible[truth[:, 0] < 190].all()


def test_a_bob_on_a_same_coloured_string_is_not_dragged_along_it(tmp_path):
    """A 4-px string of the bob's colour joins the bob's blob: growth is bounded (an opening cuts
    the string), so the centroid stays on the bob; unbounded, the string pulls it up to ~70 px."""
    n, L, px, py, r = 40, 200, 160, 15, 12
    th = 0.6 * np.cos(2 * np.pi * np.arange(n) / 40)
    truth = np.stack([px + L * np.sin(th), py + L * np.cos(th)], 1)
    case = make_case([ball_spec("bob", *truth[0], r, RED)], duration=n / 25)
    got = {}
    for with_string in (True, False):
        frames = []
        for x, y in truth:
            img = backdrop()
            if with_string:
                cv2.line(img, (px, py), (int(round(x)), int(round(y))), RED, 4, cv2.LINE_AA)
            disc(img, x, y, r, RED)
            frames.append(img)
        video = write_video(tmp_path / f"string{with_string}.mp4", frames, fps=25, crf=18)
        got[with_string] = track(video, case, TrackingPlan(compensate_camera=False))["bob"]
    o, bare = got[True], got[False]
    assert o.visible.all()
    assert np.hypot(*(o.xy - truth).T).max() < 1.5
    # the bob only (its colour threshold is tighter, the string being "background" of its colour),
    # not the bob and the string (1000+ px)
    assert np.max(o.area) < 1.1 * np.median(bare.area)


def test_a_mask_seeds_the_colour_of_a_two_tone_object(tmp_path):
    """A mask covering a two-tone object gives the model both tones' pixels (the box alone
    would give only the dominant one); the whole object is measured."""
    from lawful.case import load_case

    n = 20
    x = 100 + 3.0 * np.arange(n)
    frames = []
    for xi in x:
        img = backdrop()
        cv2.rectangle(img, (int(xi) - 12, 100), (int(xi) + 12, 112), RED, -1)
        cv2.rectangle(img, (int(xi) - 12, 113), (int(xi) + 12, 124), (200, 50, 90), -1)
        frames.append(img)
    video = write_video(tmp_path / "two.mp4", frames, fps=25, crf=12)
    mask = np.zeros((H, W), np.uint8)
    mask[100:125, 88:113] = 255
    cv2.imwrite(str(tmp_path / "m.png"), mask)
    case = make_case([ObjectSpec(id="a", shape="block", mask="m.png")], duration=n / 25)
    tr = track(video, load_case(case.save(tmp_path)), TrackingPlan(compensate_camera=False))
    o = tr["a"]
    assert o.visible.all()
    assert np.abs(o.area / (25 * 25) - 1).max() < 0.15
    assert np.abs(o.y - 112).max() < 1.0


def _blurred(pos, n, w, h, r, color, bg, sub=16, noise=4.0, seed=0):
    """Frames of a disc at ``pos(t)`` (t in frames) averaged over ``sub`` instants of a shutter
    open for the whole frame interval, with Gaussian noise; truth = mean position while open."""
    rng = np.random.default_rng(seed)
    frames, truth = [], []
    for i in range(n):
        ts = i - 0.5 + (np.arange(sub) + 0.5) / sub
        acc = np.zeros((h, w, 3), np.float32)
        for t in ts:
            img = bg.copy()
            disc(img, *pos(t), r, color)
            acc += img
        frames.append(np.clip(np.rint(acc / sub + rng.normal(0, noise, acc.shape)), 0, 255).astype(np.uint8))
        truth.append(np.mean([pos(t) for t in ts], 0))
    return frames, np.array(truth)


def test_a_motion_blurred_streak_is_located_at_its_mid_exposure_point(tmp_path):
    """A ball (r = 8) accelerating to 57 px per frame becomes a pale streak 4x its size that the
    colour mask misses (the tracker before issue #9 lost a third of these frames); it is found
    in every frame, within 5% of the longest streak's length of the mean position while the
    shutter was open."""
    def pos(t):
        return 40 + 1.5 * t * t, 150 + 2 * t

    frames, truth = _blurred(pos, 19, 640, 360, 8, RED, backdrop(640, 360))
    video = write_video(tmp_path / "blur.mp4", frames, fps=25, crf=28)
    tr = track(video, make_case([ball_spec("a", *pos(0), 8, RED)], 640, 360, 19 / 25),
               TrackingPlan(compensate_camera=False))
    o = tr["a"]
    err = np.hypot(*(o.xy - truth).T)
    assert o.visible.all()
    assert err.max() < 0.05 * (57 + 16)
    assert np.median(err) < 1.0


def test_a_white_ball_on_a_grey_backdrop_is_seeded_from_its_box(tmp_path):
    """No colour to go by (a white ball, grey scene, no case colour): the object is what differs
    from its surroundings in the box, and is tracked to a fraction of a pixel."""
    bg = np.full((H, W, 3), 95, np.uint8)
    bg[200:] = (70, 68, 66)
    bg = np.clip(bg + np.random.default_rng(3).normal(0, 4, bg.shape), 0, 255).astype(np.uint8)

    def pos(t):
        return 60 + 5.0 * t, 120 + 0.05 * t * t

    frames, truth = _blurred(pos, 40, W, H, 12, (235, 235, 235), bg, sub=2)
    video = write_video(tmp_path / "white.mp4", frames, fps=25, crf=18)
    tr = track(video, make_case([ball_spec("a", *pos(0), 12, None, with_color=False)], duration=40 / 25),
               TrackingPlan(compensate_camera=False))
    o = tr["a"]
    assert o.visible.all()
    assert np.hypot(*(o.xy - truth).T).max() < 0.5


def test_a_small_object_in_a_tall_frame_keeps_enough_pixels(tmp_path):
    """A 14-px ball (20-px case box) in a 172x1716 portrait frame: at the default 640-px working
    side its box would be 7 px across; the working side is raised so the box keeps 12 px."""
    w, h, r = 172, 1716, 7

    def pos(t):
        return 80.0, 100 + 1.0 * t * t  # up to 54 px per frame

    frames, truth = _blurred(pos, 28, w, h, r, RED, backdrop(w, h), sub=8)
    video = write_video(tmp_path / "tall.mp4", frames, fps=25, crf=23)
    tr = track(video, make_case([ball_spec("a", *pos(0), r, RED)], w, h, 28 / 25), TrackingPlan(compensate_camera=False))
    tw, th_ = tr.meta["track_size"]
    assert th_ / h * (2 * r + 6) >= 12 and th_ <= h  # the case box (2r + 6 px) keeps 12 px
    o = tr["a"]
    assert o.visible.all()
    assert np.hypot(*(o.xy - truth).T).max() < 2.0


def test_a_poster_of_the_objects_colour_does_not_collapse_its_threshold(tmp_path):
    """A large patch of (nearly) the ball's red elsewhere in the frame used to set the colour
    threshold to its minimum; with noise, a 25-degree hue drift and 40% dimming the ball was then
    lost after a third of the clip. The threshold comes from the ball's own surroundings."""
    bg = backdrop(640, 360)
    bg[20:140, 480:620] = (205, 50, 45)

    def pos(t):
        return 60 + 8 * t, 220 + 40 * np.sin(t / 8)

    frames, truth = _blurred(pos, 45, 640, 360, 10, RED, bg, sub=4, noise=12)
    frames = [np.clip(_hue_shift(f, 25 * i / 44) * (1 - 0.4 * i / 44), 0, 255).astype(np.uint8)
              for i, f in enumerate(frames)]
    video = write_video(tmp_path / "poster.mp4", frames, fps=25, crf=28)
    tr = track(video, make_case([ball_spec("a", *pos(0), 10, RED)], 640, 360, 45 / 25),
               TrackingPlan(compensate_camera=False))
    o = tr["a"]
    assert o.visible.all()
    assert np.hypot(*(o.xy - truth).T).max() < 1.5


@pytest.mark.parametrize("with_rivals, lit", [(True, False), (False, False), (True, True)])
def test_a_ball_landing_beside_a_resting_look_alike_keeps_its_identity(tmp_path, monkeypatch, with_rivals, lit):
    """A ball falls fast and bounces right beside a ball of its colour resting on the floor (a studio drop
    scene's distractor): followed as a rival, the look-alike never takes the ball's identity; without
    rivals the tracker settled on the resting ball (restitution 0.03 for a law-correct drop). A look-alike lit
    otherwise (``lit``: a pale highlight over its middle, a dark rim) shows a ring of the ball's colour, a third of
    its area (studio drop seed 7000: 60 of 170 px under the ball's colour model); it is a rival too."""
    import lawful.perceive.track as T

    if not with_rivals:
        monkeypatch.setattr(T, "lookalikes", lambda objs, rgb: [])
    r, floor, n = 9.0, 225.0, 36
    t = np.arange(n)
    y = np.empty(n)
    fall = 12
    y[:fall + 1] = 20 + (floor - r - 20) * (t[:fall + 1] / fall) ** 2  # up to 32 px per frame at impact
    up = np.sin(np.linspace(0, np.pi, n - fall))
    y[fall:] = floor - r - 90 * up  # rebound 90 px
    x = np.full(n, 150.0)
    case = make_case([ball_spec("ball", x[0], y[0], r, RED)], duration=n / 24)
    frames = []
    for xi, yi in zip(x, y):
        img = backdrop()
        disc(img, 150 + 2.3 * r, floor - r, r, (90, 25, 25) if lit else RED)  # the look-alike, at rest where it lands
        if lit:
            disc(img, 150 + 2.3 * r, floor - r, 0.8 * r, RED)
            disc(img, 150 + 2.3 * r, floor - r, 0.55 * r, (250, 220, 220))
        disc(img, xi, yi, r, RED)
        frames.append(img)
    tr = track(write_video(tmp_path / "lookalike.mp4", frames, fps=24), case, TrackingPlan(compensate_camera=False))
    b = tr["ball"]
    err = np.hypot(b.x - x, b.y - y)
    late = slice(fall + 4, n - 2)  # after the rebound has separated the two again
    if with_rivals:
        assert np.nanmax(err[late]) < 2.0 and np.isfinite(err[late]).all()
    else:
        assert not (np.nanmax(err[late]) < 2.0 and np.isfinite(err[late]).all())


def shaded_ball(img, x, y, r, color, angle, offset=0.12):
    """A lit 3-D ball (Lambertian, light from the upper left: its lower right falls to a quarter of its
    top's brightness) with a light painted stripe from near its centre to its rim at ``angle``; the
    stripe's line passes ``offset * r`` beside the silhouette's centre (a ball seen off the optical axis)."""
    s = 4
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h * s, 0:w * s]
    u, v = ((xx + 0.5) / s - 0.5 - x) / r, ((yy + 0.5) / s - 0.5 - y) / r
    inside = u * u + v * v < 1
    nz = np.sqrt(np.clip(1 - u * u - v * v, 0, 1))
    light = np.array([-0.45, -0.55, 0.70]) / np.linalg.norm([-0.45, -0.55, 0.70])
    shade = 0.22 + 0.78 * np.clip(u * light[0] + v * light[1] + nz * light[2], 0, 1)
    d, p = np.array([np.cos(angle), np.sin(angle)]), np.array([-np.sin(angle), np.cos(angle)])
    along, across = u * d[0] + v * d[1], u * p[0] + v * p[1] - offset
    stripe = inside & (along > 0.1) & (along < 0.97) & (np.abs(across) < 0.1)
    big = cv2.resize(img, (w * s, h * s), interpolation=cv2.INTER_NEAREST).astype(np.float32)
    for c in range(3):
        paint = np.where(stripe, 238.0, color[c])
        big[..., c] = np.where(inside, paint * shade, big[..., c])
    img[:] = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA).round().clip(0, 255).astype(np.uint8)


def test_marker_angle_on_a_shaded_ball(tmp_path):
    """The lit and the shaded half of a 3-D ball are not the marker, and a stripe whose line misses the
    silhouette's centre still gives its own direction: at rest and rolling, within 0.1 rad (reading
    the lit half as the marker, or the direction to the stripe's centroid, is off by 0.3-1.7 rad)."""
    n, r = 30, 18
    x = np.concatenate([np.full(8, 70.0), 70 + 3.0 * np.arange(1, n - 7) ** 1.3])
    ang = (x - x[0]) / r  # rolling to the right turns it clockwise on screen: the angle (y down) grows
    body = (30, 60, 150)  # a dark body under a light stripe, as P8 prescribes
    bg = backdrop()
    frames = []
    for xi, a in zip(x, ang):
        img = bg.copy()
        shaded_ball(img, xi, 120, r, body, a)
        frames.append(img)
    path = write_video(tmp_path / "shaded.mp4", frames, fps=25)
    case = make_case([ball_spec("ball", x[0], 120, r, body)], duration=n / 25)
    tr = track(path, case, TrackingPlan(angles=True))
    got = np.unwrap(tr["ball"].angle)
    assert np.isfinite(got).all()
    err = np.angle(np.exp(1j * (got - ang)))
    assert np.abs(err).max() < 0.1, np.round(err, 2)


def test_ball_bouncing_on_a_floor_striped_in_its_own_colour(tmp_path):
    """A ball lands on a floor whose stripes have (nearly) its colour and bounces: thin stripes and
    look-alike patches of the floor are never taken for it, the ball merged with a stripe at the
    impact is cut out of it, and it is followed up again (within 2 px everywhere it is seen)."""
    n, r, floor = 40, 10, 200
    t = np.arange(n) / 25.0
    g, e = 900.0, 0.6  # px/s², restitution
    t1 = np.sqrt(2 * (floor - r - 40) / g)
    v1 = e * g * t1
    y = np.where(t < t1, 40 + 0.5 * g * t * t, floor - r - (v1 * (t - t1) - 0.5 * g * (t - t1) ** 2))
    y = np.minimum(y, floor - r)
    bg = backdrop()
    bg[floor:] = (150, 150, 150)
    stripe = (200, 55, 45)  # the ball's hue, a little darker: inside a threshold learned off the grey backdrop
    for k, row in enumerate(range(floor + 3, H, 9)):
        x0 = 20 + 37 * (k % 3)
        cv2.rectangle(bg, (x0, row), (x0 + 160, row + 3), stripe, -1)
        cv2.rectangle(bg, (x0 + 180, row + 1), (x0 + 230, row + 6), stripe, -1)
    frames = []
    for yi in y:
        img = bg.copy()
        disc(img, 150, yi, r, RED)
        frames.append(img)
    path = write_video(tmp_path / "striped.mp4", frames, fps=25)
    tr = track(path, make_case([ball_spec("ball", 150, y[0], r, RED)], duration=n / 25), TrackingPlan())
    b = tr["ball"]
    seen = b.visible
    assert seen[t > t1 + 0.1].mean() > 0.8  # followed up again after the bounce
    assert np.abs(b.y[seen] - y[seen]).max() < 2.0 and np.abs(b.x[seen] - 150).max() < 2.0


def test_blur_streak_by_contrast_keeps_off_a_same_hued_ramp():
    """An orange block sliding up a tan 30-degree ramp (studio P11): the previous sample hid part of the
    ramp inside its axis-aligned box, so the difference from ``prev`` there also mixes towards the block's
    colour. Given the colour core's extent across the motion, the streak is the block's smear only:
    mid-exposure centroid within 1.5 px, area within 15 % of the smeared block. (This clean scene does not
    reproduce the rendered failure, studio P11 seed 1004, where ramp pixels pulled centroids 10-24 px back;
    it guards the clipped path.)"""
    import numpy as np

    from lawful.perceive.contrast import _across, by_contrast
    from lawful.perceive.objects import Regions, Tracked

    H, W = 240, 360
    bg = np.zeros((H, W, 3), np.float32)
    bg[:] = (110, 170, 160)  # blue-green backdrop
    block = np.array((235, 120, 40), np.float32)
    th = np.radians(30.0)
    u, nrm = np.array([np.cos(th), -np.sin(th)]), np.array([-np.sin(th), -np.cos(th)])  # up the slope, out of it
    foot = np.array([40.0, 220.0])
    yy, xx = np.mgrid[0:H, 0:W]
    rel = np.stack([xx - foot[0], yy - foot[1]], -1)
    along, out = rel @ u, rel @ nrm
    bg[(out < 0) & (out > -14)] = (200, 148, 104)  # the ramp board, just below the slope line

    def draw(s0, s1):  # block (40 along, 24 out of the slope) smeared from s0 to s1 along the slope
        acc = np.zeros_like(bg)
        for k in range(16):
            f = bg.copy()
            c = s0 + (s1 - s0) * k / 15
            f[(np.abs(along - c) < 20) & (out >= 0) & (out < 24)] = block
            acc += f
        return np.clip(acc / 16, 0, 255).astype(np.uint8)

    prev, frame = draw(120, 120), draw(146, 166)  # mid-exposure centre 156 along the slope
    truth = foot + 156 * u + 12 * nrm
    c_prev = foot + 120 * u + 12 * nrm
    corners = np.array([c_prev + a * u + b * nrm for a in (-20, 20) for b in (-12, 12)])
    last_box = (*np.floor(corners.min(0)).astype(int), *np.ceil(corners.max(0)).astype(int))
    vel = tuple(36.0 * u)
    o = Tracked(spec=None, j=0, model=None, convex=True, pos=tuple(c_prev), vel=vel, size=(48.0, 41.0),
                ref_area=960.0, diam=24.0, rgb=tuple(float(c) for c in block), last_box=last_box, exposure=0.55)
    core = (np.abs(frame.astype(np.float32) - block).sum(2) < 30).view(np.uint8)
    got = by_contrast(o, frame, Regions(), prev, _across(core, (0, 0), vel))
    assert got is not None
    assert np.hypot(*(np.array(got.xy) - truth)) < 1.5
    assert got.area < 1.15 * (40 + 20) * 24


def test_a_blob_merged_at_an_impact_is_not_learned_as_the_objects_area():
    """Reference area and its spread learn from ordinary samples (running means), not from a blob larger than
    the object and its measured streak may show (a ball merged with a floor stripe of its colour)."""
    from lawful.perceive.objects import Found, Tracked
    from lawful.perceive.track import _learn_area

    o = Tracked(ObjectSpec(id="b", shape="sphere", box=(0, 0, 14, 14)), 0, None, True, (0.0, 0.0))
    o.ref_area, o.diam, o.area_dev = 168.0, 14.0, 0.08  # growth limit 1.32
    merged = Found((0.0, 0.0), (0, 0, 20, 20), 330.0, float("nan"), False, blur=5.5)  # limit 1.32 x 245 = 323
    _learn_area(o, merged)
    assert (o.ref_area, o.area_dev) == (168.0, 0.08)
    _learn_area(o, Found((0.0, 0.0), (0, 0, 14, 14), 185.0, float("nan"), False, blur=1.0))
    assert o.ref_area == pytest.approx(0.9 * 168 + 0.1 * 185)
    assert o.area_dev == pytest.approx(0.9 * 0.08 + 0.1 * (185 / 168 - 1))


def test_a_part_coloured_object_over_two_plain_tones_is_found_from_the_first_frame(tmp_path):
    """A block of three colours (pale cap, green body, dark end: studio P29's magnet) slides 3 px a frame with
    its middle on the line between two plain backdrop tones. Its green barely stands out, so it is found by
    contrast; in the first frame the background it hides is filled in from around it (the ring of the search
    window spans both tones: its median is neither), so it is seen from frame 0 (the consistency check
    ``found`` reads frame 0). Its other-coloured parts are kept out of the camera estimate with it: over a
    backdrop that pins no horizontal motion they alone moved, and the camera took their motion for its own
    (the block read still at x 79.2-79.6)."""
    n, bg = 30, np.zeros((H, W, 3), np.uint8)
    bg[:] = (165, 160, 105)
    bg[115:] = (190, 125, 90)
    frames = []
    for k in range(n):
        img, x = bg.copy(), 60 + 3 * k
        cv2.rectangle(img, (x, 104), (x + 9, 125), (225, 230, 230), -1)
        cv2.rectangle(img, (x + 10, 104), (x + 29, 125), (50, 200, 45), -1)
        cv2.rectangle(img, (x + 30, 104), (x + 37, 125), (20, 80, 20), -1)
        frames.append(img)
    path = write_video(tmp_path / "magnet.mp4", frames, fps=25)
    case = make_case([ObjectSpec(id="m", shape="block", box=(60, 104, 98, 126), color=(50, 200, 45))],
                     duration=n / 25)
    m = track(path, case, TrackingPlan())["m"]
    assert m.visible.all()
    assert np.abs(m.x - (79.5 + 3 * np.arange(n))).max() < 1.0
    assert np.abs(m.y - 114.5).max() < 1.0


def test_a_shadow_band_across_a_block_leaves_its_centroid_where_the_block_is(tmp_path):
    """A shadow band (15 % darker) crosses the upper part of a rising orange block, as studio P6 seed 1007's
    self-shadow does, leaving a strip of its colour above the band: too thin to be taken for the block, it is
    still a piece of it, merged with the body below so that the (convex) block's hull is whole. A patch of the
    shaded colour elsewhere keeps the colour threshold tight, so the band falls out of it. The centroid stays
    on the block's (on the body alone it sank 12 px, and the jump back counted twice against C)."""
    n, orange = 24, (203, 98, 49)
    bg = backdrop()
    cv2.rectangle(bg, (10, 10), (49, 49), (174, 84, 44), -1)
    frames, truth = [], []
    for k in range(n):
        img, y0 = bg.copy(), 140 - 2 * k
        cv2.rectangle(img, (120, y0), (199, y0 + 59), orange, -1)
        if 4 <= k < 14:  # rows 12-24 of the block: a strip of 12 rows above it, 35 below
            img[y0 + 12:y0 + 25, 100:220] = (img[y0 + 12:y0 + 25, 100:220] * 0.857).astype(np.uint8)
        frames.append(img)
        truth.append(y0 + 29.5)
    path = write_video(tmp_path / "band.mp4", frames, fps=25)
    case = make_case([ObjectSpec(id="b", shape="block", box=(120, 140, 200, 200), color=orange)], duration=n / 25)
    b = track(path, case, TrackingPlan())["b"]
    assert b.visible.all()
    assert np.abs(b.y - np.array(truth)).max() < 1.0
    assert np.abs(b.x - 159.5).max() < 1.0


def test_a_bead_on_a_rod_of_its_own_colour_is_not_dragged_along_the_rod(tmp_path):
    """An orange bead slides down a thin orange rod, as studio P16 seed 5001's markers do: in some samples the
    colour mask takes a stretch of rod with the bead, which adds little area (the rod is thin) but drags the
    centroid along it (20 px, twice: C 50 on a lawful clip). A blob reaching well past the bead's size is cut
    back to the bead; the centroid stays on it."""
    n, orange = 24, (214, 110, 40)
    bg = backdrop()
    frames, truth = [], []
    rng = np.random.default_rng(3)
    for k in range(n):
        img = bg.copy()
        cv2.line(img, (40, 40), (300, 210), orange, 3)
        x = 90 + 4.0 * k
        y = 40 + (x - 40) * 170 / 260
        cv2.circle(img, (int(round(x * 4)), int(round(y * 4))), 4 * 9, orange, -1, lineType=cv2.LINE_AA, shift=2)
        img = np.clip(img + rng.normal(0, 2.0, img.shape), 0, 255).astype(np.uint8)
        frames.append(img)
        truth.append((x, y))
    path = write_video(tmp_path / "bead.mp4", frames, fps=25)
    x0, y0 = truth[0]
    case = make_case([ObjectSpec(id="bead", shape="sphere", box=(x0 - 10, y0 - 10, x0 + 11, y0 + 11), color=orange)],
                     duration=n / 25)
    b = track(path, case, TrackingPlan())["bead"]
    t = np.array(truth)
    assert b.visible.sum() >= n - 2
    err = np.hypot(b.x - t[:, 0], b.y - t[:, 1])[b.visible]
    assert err.max() < 1.5, err.round(2)
