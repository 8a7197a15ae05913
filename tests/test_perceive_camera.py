"""Camera-motion compensation: a progressive pan or zoom is undone; a static camera stays identity."""

from pathlib import Path

import cv2
import numpy as np
import pytest

from lawful.case import Case, ObjectSpec
from lawful.perceive import camera
from lawful.perceive.track import track
from lawful.suites.base import TrackingPlan
from lawful.video import write_video

W, H, N = 320, 240, 48
RED = (220, 40, 40)


def scene(n=N, seed=3):
    """Frames and truth [n, 2] of a red ball moving on a textured backdrop (static camera)."""
    rng = np.random.default_rng(seed)
    bg = np.full((H, W, 3), (198, 202, 206), np.uint8)
    for _ in range(90):
        x, y, v = int(rng.integers(0, W)), int(rng.integers(0, H)), int(rng.integers(110, 235))
        cv2.rectangle(bg, (x, y), (x + int(rng.integers(3, 16)), y + int(rng.integers(3, 16))), (v, v - 5, v - 9), -1)
    t = np.linspace(0, 1, n)
    truth = np.stack([90 + 120 * t, 60 + 100 * t * t], 1)
    frames = []
    for x, y in truth:
        img = bg.copy()
        cv2.circle(img, (round(x * 16), round(y * 16)), 11 * 16, RED, -1, cv2.LINE_AA, shift=4)
        frames.append(img)
    return frames, truth


def warped(frames, kind, fraction=0.05):
    """Progressive pan (content moves right by ``fraction * W`` at the end) or zoom about the centre."""
    out, n = [], len(frames)
    for i, f in enumerate(frames):
        p = i / (n - 1)
        if kind == "pan":
            m = np.float32([[1, 0, fraction * W * p], [0, 1, 0]])
        else:
            s = 1 + fraction * p
            cx, cy = (W - 1) / 2, (H - 1) / 2
            m = np.float32([[s, 0, (1 - s) * cx], [0, s, (1 - s) * cy]])
        out.append(cv2.warpAffine(f, m, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
    return out


def case_for(truth):
    x, y = truth[0]
    return Case(id="cam", suite="test", task="camera", width=W, height=H, duration=2.0, fps=24,
                objects=[ObjectSpec(id="ball", shape="sphere", color=RED, box=(x - 14, y - 14, x + 14, y + 14))])


def _run(tmp_path, kind):
    frames, truth = scene()
    if kind != "static":
        frames = warped(frames, kind)
    path = write_video(tmp_path / f"{kind}.mp4", frames, fps=24)
    return track(path, case_for(truth), TrackingPlan()), truth


def test_static_camera_is_identity(tmp_path):
    tr, truth = _run(tmp_path, "static")
    assert tr.meta["camera"]["static"] is True and tr.meta["camera"]["max_shift_px"] < 0.3
    assert np.abs(tr.xy[:, 0] - truth).max() < 1.0


def test_pan_is_compensated(tmp_path):
    tr, truth = _run(tmp_path, "pan")
    cam = tr.meta["camera"]
    assert cam["compensated"] and abs(cam["max_shift_px"] - 0.05 * W) < 1.0
    assert np.abs(tr.xy[:, 0] - truth).max() < 1.5


def test_zoom_is_compensated(tmp_path):
    tr, truth = _run(tmp_path, "zoom")
    cam = tr.meta["camera"]
    assert cam["compensated"] and abs(cam["max_scale_change"] - 0.05) < 0.004
    assert np.abs(tr.xy[:, 0] - truth).max() < 1.5
    # the ball's area is expressed at first-frame scale too
    assert np.abs(tr.area[:, 0] / tr.area[0, 0] - 1).max() < 0.08


def test_camera_motion_recovers_known_similarity_directly():
    frames, _ = scene(n=12)
    est = camera.CameraMotion(max_side=320)
    for i, f in enumerate(frames):
        s, a = 1 + 0.004 * i, 0.002 * i  # frame-0 -> frame-i similarity (scale, rotation, shift)
        c, sn = s * np.cos(a), s * np.sin(a)
        fwd = np.array([[c, -sn, 1.5 * i], [sn, c, -0.7 * i]])
        g = cv2.warpAffine(f, fwd, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        est.update(g, boxes=[(60, 40, 240, 180)])
    expected = camera.invert(fwd)
    pts = np.array([[20, 20], [300, 30], [160, 120], [40, 220]], float)
    assert np.abs(camera.apply(est.transforms[-1], pts) - camera.apply(expected, pts)).max() < 0.3


def camera_path(kind, n):
    """Frame-0 -> frame-i similarities ``[n, 2, 3]``: a steady pan + zoom + roll, or a hand-held shake."""
    i = np.arange(n)
    if kind == "steady":
        t = i / (n - 1)
        s, a, tx, ty = 1 + 0.04 * t, 0.01 * t, 14 * t, -6 * t
    else:
        s, a = 1 + 0.003 * np.sin(2 * np.pi * i / 6), np.zeros(n)
        tx, ty = 1.5 * np.sin(2 * np.pi * i / 5), 1.2 * np.sin(2 * np.pi * i / 7)
    c, sn = s * np.cos(a), s * np.sin(a)
    cx, cy = (W - 1) / 2, (H - 1) / 2  # about the centre
    return np.stack([np.stack([c, -sn, cx - c * cx + sn * cy + tx], 1),
                     np.stack([sn, c, cy - sn * cx - c * cy + ty], 1)], 1)


def filmed(kind, n=24, **kw):
    """Worst corner error (px) of the transforms recovered from ``scene`` filmed along ``camera_path``, and
    the estimator."""
    frames, truth = scene(n)
    est = camera.CameraMotion(max_side=320, **kw)
    path = camera_path(kind, n)
    for f, (x, y), fwd in zip(frames, truth, path):
        box = np.r_[camera.apply(fwd, [x - 14, y - 14]), camera.apply(fwd, [x + 14, y + 14])]
        g = cv2.warpAffine(f, fwd, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        est.update(g, [tuple(box)])
    corners = np.array([[0, 0], [W - 1, 0], [0, H - 1], [W - 1, H - 1]], float)
    err = max(np.abs(camera.apply(A, corners) - camera.apply(camera.invert(fwd), corners)).max()
              for A, fwd in zip(est.transforms, path))
    return err, est


def test_known_camera_path_is_recovered_at_every_frame():
    err, est = filmed("steady")
    assert err < 0.25
    assert est.summary()["methods"].get("interpolated", 0) >= 8  # a third of the frames or more cost nothing


def test_a_shaking_camera_is_estimated_at_every_frame():
    err, est = filmed("shake")
    assert err < 0.25
    assert "interpolated" not in est.summary()["methods"]


def test_one_transform_per_update_whatever_the_stride():
    frames, _ = scene(n=8)
    for stride in (1, 2, 3, 5):
        for n in range(1, 9):
            est = camera.CameraMotion(stride=stride)
            for f in frames[:n]:
                est.update(f)
            assert len(est.transforms) == n and est.summary()["frames"] == n
            assert sum(est.summary()["methods"].values()) == n
    est = camera.CameraMotion(stride=3)  # reading mid-stream, then going on
    for k, f in enumerate(frames):
        est.update(f)
        assert len(est.transforms) == k + 1
    assert max(camera.corner_shift(A, W, H) for A in est.transforms) < 0.05


# --- independently moving things, low texture, noise: truth known by construction ---------------

def backdrop(kind, seed=3):
    """A textured backdrop (``scene``'s rectangles), a low-texture one (broad Gaussian blobs: ``smooth``) or
    that with a dozen small marks (``sparse``)."""
    rng = np.random.default_rng(seed)
    if kind == "textured":
        return _rectangles(rng)
    y, x = np.mgrid[0:H, 0:W].astype(float)
    img = np.full((H, W), 120.0)
    for _ in range(4):
        cx, cy, r, a = rng.uniform(0, W), rng.uniform(0, H), rng.uniform(50, 110), rng.uniform(-50, 50)
        img += a * np.exp(-((x - cx) ** 2 + (y - cy) ** 2) / (2 * r * r))
    img = np.repeat(np.clip(img, 0, 255).astype(np.uint8)[:, :, None], 3, 2)
    for _ in range(12 if kind == "sparse" else 0):  # a few marks: fewer corners than a textured distractor
        x0, y0, v = int(rng.integers(10, W - 20)), int(rng.integers(10, H - 20)), int(rng.integers(40, 220))
        cv2.rectangle(img, (x0, y0), (x0 + int(rng.integers(3, 8)), y0 + int(rng.integers(3, 8))), (v, v, v), -1)
    return img


def _rectangles(rng):
    bg = np.full((H, W, 3), (198, 202, 206), np.uint8)
    for _ in range(90):
        x, y, v = int(rng.integers(0, W)), int(rng.integers(0, H)), int(rng.integers(110, 235))
        cv2.rectangle(bg, (x, y), (x + int(rng.integers(3, 16)), y + int(rng.integers(3, 16))), (v, v - 5, v - 9), -1)
    return bg


def _texture(w, h, seed=9):
    """Dense high-contrast texture: a distractor richer in corners than the backdrop."""
    rng = np.random.default_rng(seed)
    t = np.full((h, w, 3), (90, 70, 60), np.uint8)
    for _ in range(w * h // 150):
        x, y, v = int(rng.integers(0, w)), int(rng.integers(0, h)), int(rng.integers(20, 250))
        cv2.rectangle(t, (x, y), (x + int(rng.integers(2, 7)), y + int(rng.integers(2, 7))), (v, v, v // 2), -1)
    return t


def with_distractor(img, i, n, kind):
    """``img`` with a moving textured thing in world coordinates: an 'arm' (a 64 x 240 slab, 20 % of
    the frame) sweeping across, or a 40 x 200 bar swinging +-25 degrees about a pivot at the top."""
    out = img.copy()
    if kind == "arm":
        x0 = int(round(20 + 200 * i / (n - 1)))
        out[:, x0:x0 + 64] = _texture(64, H)[:, : max(0, min(64, W - x0))]
    elif kind == "swing":
        M = cv2.getRotationMatrix2D((20, 0), 25 * np.sin(2 * np.pi * i / 20), 1.0)
        M[:, 2] += (W / 2 - 20, 10)
        bar = cv2.warpAffine(_texture(40, 200), M, (W, H), flags=cv2.INTER_LINEAR)
        inside = cv2.warpAffine(np.full((200, 40), 255, np.uint8), M, (W, H)) > 127
        out[inside] = bar[inside]
    return out


def shoot(back, distractor, motion, n=48, fraction=0.10, noise=4.0, seed=0):
    """Frames of a world (backdrop + distractor) filmed with a fixed camera, a pan or a zoom of
    ``fraction``, plus Gaussian sensor noise; and the true frame -> frame-0 transforms."""
    rng = np.random.default_rng(seed)
    frames, truth = [], []
    for i in range(n):
        p = i / (n - 1)
        s = 1 + fraction * p if motion == "zoom" else 1.0
        cx, cy = (W - 1) / 2, (H - 1) / 2
        fwd = np.array([[s, 0, (1 - s) * cx + (fraction * W * p if motion == "pan" else 0)], [0, s, (1 - s) * cy]])
        world = with_distractor(back, i, n, distractor) if distractor else back
        f = cv2.warpAffine(world, fwd, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(float)
        frames.append(np.clip(f + rng.normal(0, noise, f.shape), 0, 255).astype(np.uint8))
        truth.append(camera.invert(fwd))
    return frames, truth


def estimate(frames, **kw):
    est = camera.CameraMotion(**kw)
    for f in frames:
        est.update(f)
    return est


def corner_error(transforms, truth):
    c = np.array([[0, 0], [W - 1, 0], [0, H - 1], [W - 1, H - 1]], float)
    return max(np.abs(camera.apply(A, c) - camera.apply(T, c)).max() for A, T in zip(transforms, truth))


@pytest.mark.parametrize("distractor", ["arm", "swing"])
def test_a_fixed_camera_stays_fixed_beside_a_large_moving_distractor(distractor):
    est = estimate(shoot(backdrop("textured"), distractor, "fixed")[0])
    s = est.summary()
    assert s["used"] is False and s["static"] is True, s
    assert s["max_shift_px"] < 0.5  # the estimate itself, not only what is used
    assert max(camera.corner_shift(A, W, H) for A in est.transforms) == 0.0
    assert "below its uncertainty" in s["reason"]


@pytest.mark.parametrize("motion", ["pan", "zoom"])
def test_a_10_percent_pan_or_zoom_is_recovered_beside_a_moving_distractor(motion):
    frames, truth = shoot(backdrop("textured"), "arm", motion)
    est = estimate(frames)
    s = est.summary()
    assert s["used"] is True and s["reliable"] is True, s
    assert corner_error(est.transforms, truth) < 1.0
    assert s["inliers"]["min"] >= est.min_points and s["spread_cells"] >= camera.MIN_CELLS
    assert 0 < s["uncertainty_px"] < 0.5


def test_a_pan_over_a_low_texture_backdrop_is_recovered_or_declared_unreliable():
    frames, truth = shoot(backdrop("smooth"), None, "pan")
    est = estimate(frames)
    s = est.summary()
    assert s["static"] is False  # never "the camera did not move"
    if s["used"]:
        assert corner_error(est.transforms, truth) < 2.0
    else:
        assert s["reliable"] is False and s["reason"].startswith("unreliable")


@pytest.mark.parametrize("motion", ["fixed", "pan"])
def test_a_distractor_richer_in_corners_than_the_backdrop_never_gives_a_confident_wrong_path(motion):
    frames, truth = shoot(backdrop("sparse"), "arm", motion)
    est = estimate(frames)
    s = est.summary()
    if s["used"]:
        assert corner_error(est.transforms, truth) < 2.0
    else:
        assert s["static"] is (motion == "fixed") or s["reliable"] is False, s


def test_noise_alone_on_a_fixed_camera_is_static():
    est = estimate(shoot(backdrop("textured"), None, "fixed", noise=8.0)[0])
    s = est.summary()
    assert s["static"] is True and s["used"] is False and s["max_shift_px"] < 0.3


def test_exclude_regions_keep_corners_out():
    frames = shoot(backdrop("textured"), None, "fixed", n=9)[0]
    # (min_shift 0: a camera declared moving tracks corners from frame 0; a still one would track none)
    est = estimate(frames, exclude=[(0, 0, 159, 239)], min_shift=0.0)  # a box in frame pixels
    assert len(est._pts) and est._pts[:, 0].min() > 159
    # a polygon, given in the pixels of a frame twice as large
    est = estimate(frames, exclude=[[(0, 0), (640, 0), (640, 240), (0, 240)]], exclude_size=(2 * W, 2 * H),
                   min_shift=0.0)
    assert len(est._pts) and est._pts[:, 1].min() > 119


REAL = Path("/work/shared/recordings/02_wall_impact_pendulum_red_ball_necrosskull.mp4")


@pytest.mark.skipif(not REAL.exists(), reason="real recording not available")
def test_a_hand_held_real_clip_is_never_called_static():
    """A hand-held phone clip (sway up to ~8 px, MANIFEST) of a bare room corner with a swinging bob and a
    hand: either a path of plausible size is used, or it is declared unreliable; never 'static'."""
    from lawful.video import iter_frames

    est = camera.CameraMotion()
    for i, f in iter_frames(REAL, limit=120):
        est.update(f, [(0, 440, 60, 520)] if i < 15 else [])  # the hand holding the bob
    s = est.summary()
    assert s["static"] is False, s
    if s["used"]:
        assert 2.0 < s["max_shift_px"] < 16.0, s
    else:
        assert s["reliable"] is False, s


# --- striped backdrops (studio-like walls): truth known, each estimate checked against its own stated error ---

def stripes(floor=True):
    """Vertical stripes 16 px wide, 32 grey levels apart, slightly blurred; with ``floor`` a darker floor
    below a horizontal edge (the only thing that pins vertical motion). No corners but the junctions."""
    x = np.arange(W)
    img = np.repeat(np.where((x // 16) % 2 == 0, 150.0, 118.0)[None], H, 0)
    if floor:
        img[175:] = 92.0
    img = cv2.GaussianBlur(img, (0, 0), 1.2)
    return np.repeat(np.clip(img, 0, 255).astype(np.uint8)[:, :, None], 3, 2)


def key_errors(est, truth):
    """Per estimated key frame: (error at the frame corners px, stated standard error px, method)."""
    c = np.array([[0, 0], [W - 1, 0], [0, H - 1], [W - 1, H - 1]], float)
    return [(float(np.abs(camera.apply(A, c) - camera.apply(truth[i], c)).max()), sd, m)
            for i, A, m, sd in est.keys()[1:] if A is not None]


@pytest.mark.parametrize("distractor", [None, "arm"])
@pytest.mark.parametrize("motion", ["fixed", "pan"])
def test_stripes_with_a_floor_edge_pin_the_camera_within_its_stated_error(motion, distractor):
    frames, truth = shoot(stripes(), distractor, motion, noise=3.0)
    est = estimate(frames)
    s = est.summary()
    assert s["reliable"] is True and s["used"] is (motion == "pan") and s["static"] is (motion == "fixed"), s
    errs = key_errors(est, truth)
    assert errs and all(e <= est.Z * sd for e, sd, _ in errs), errs
    assert corner_error(est.transforms, truth) < (0.5 if motion == "fixed" else 1.0)


@pytest.mark.parametrize("distractor", [None, "arm"])
def test_a_zoom_over_stripes_with_a_floor_edge_is_recovered(distractor):
    """A 10 % zoom: used and within 1 px at the corners; its estimates may exceed their stated error (up to
    ~4 sd, 0.2-0.6 px: the zoomed frame's resampling changes what the template is matched against)."""
    frames, truth = shoot(stripes(), distractor, "zoom", noise=3.0)
    est = estimate(frames)
    s = est.summary()
    assert s["used"] is True and s["reliable"] is True, s
    assert max(e for e, _, _ in key_errors(est, truth)) < 1.0
    assert corner_error(est.transforms, truth) < 1.0


def test_a_shaking_camera_over_stripes_is_followed_frame_by_frame():
    n = 24
    frames, path = [], camera_path("shake", n)
    rng = np.random.default_rng(1)
    for fwd in path:
        f = cv2.warpAffine(stripes(), fwd, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        frames.append(np.clip(f + rng.normal(0, 3.0, f.shape), 0, 255).astype(np.uint8))
    truth = [camera.invert(fwd) for fwd in path]
    est = estimate(frames)
    s = est.summary()
    assert s["used"] is True and s["reliable"] is True, s
    errs = key_errors(est, truth)
    assert len(errs) >= n // 2 and all(e <= est.Z * sd for e, sd, _ in errs), errs


@pytest.mark.parametrize("motion", ["fixed", "pan"])
def test_stripes_alone_leave_vertical_motion_unpinned_and_say_so(motion):
    """Nothing pins vertical motion: never 'static', never used; the reason names the direction."""
    est = estimate(shoot(stripes(floor=False), None, motion, noise=3.0)[0])
    s = est.summary()
    assert s["reliable"] is False and s["used"] is False and s["static"] is False, s
    assert "y not pinned" in s["reason"], s["reason"]


def test_intensity_registration_states_an_infinite_error_for_an_unpinned_direction():
    from lawful.perceive import camera_dense as dense
    from lawful.perceive import camera_register as reg

    ref = dense.smooth(cv2.cvtColor(stripes(floor=False), cv2.COLOR_RGB2GRAY))
    img = dense.smooth(cv2.cvtColor(stripes(floor=False), cv2.COLOR_RGB2GRAY))
    keep = np.ones(ref.shape, bool)
    A, sd, info = reg.register(img, reg.Template(ref, keep), camera.IDENTITY, keep)
    assert not np.isfinite(sd) and info["snr"] < dense.SIGMAS and abs(info["weakest"][3]) == 1.0
    with_floor = dense.smooth(cv2.cvtColor(stripes(), cv2.COLOR_RGB2GRAY))
    shifted = cv2.warpAffine(with_floor, np.float32([[1, 0, 2.3], [0, 1, -0.6]]), (W, H), borderMode=cv2.BORDER_REPLICATE)
    A, sd, info = reg.register(shifted, reg.Template(with_floor, keep), camera.IDENTITY, keep)
    assert np.isfinite(sd) and np.allclose(A[:, 2], [-2.3, 0.6], atol=3 * np.hypot(sd, reg.INTERP_PX))


@pytest.mark.parametrize("seed", [0, 2])
def test_a_weakly_pinned_direction_with_one_basin_is_estimated_within_its_error(seed):
    """Floor bands pin y; only a short slab's two ends pin x (gradient 2.5-2.6x that of noise, below ``SIGMAS``:
    studio P10 seed 1000's plain wall under a 10 % pan or zoom held every key frame, and the clip turned
    unmeasurable). Restarted 4 px off along x on either side, the registration comes back to the same
    transform: one basin, so the shift is estimated (it was an infinite error) and the truth lies within
    3 stated standard errors."""
    from lawful.perceive import camera_dense as dense
    from lawful.perceive import camera_register as reg

    w, h = 320, 180
    world = np.full((h, w), 110.0)
    for y0, v in ((120, 150.0), (135, 90.0), (150, 170.0)):
        world[y0:] = v
    world[116:120, 90:130] = 60.0
    rng = np.random.default_rng(seed)

    def shot(a):
        return dense.smooth(np.clip(a + rng.normal(0, 2.0, a.shape), 0, 255).astype(np.uint8))

    ref = shot(world)
    img = shot(cv2.warpAffine(world, np.float32([[1, 0, 3.4], [0, 1, -1.2]]), (w, h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE))
    keep = np.ones((h, w), bool)
    A, sd, info = reg.register(img, reg.Template(ref, keep), camera.IDENTITY, keep)
    assert 1.0 < info["snr"] < dense.SIGMAS and abs(info["weakest"][2]) == 1.0, info
    assert info["restart_px"] < 0.1 and np.isfinite(sd) and sd < 0.2, (sd, info)
    assert np.abs(A[:, 2] - [-3.4, 1.2]).max() <= 3 * np.hypot(sd, reg.INTERP_PX), (A, sd)


def test_two_groups_moving_apart_are_not_taken_for_a_zoom():
    """Corners on a glossy floor: a group under a reflection that slides 3 px with an object, a still group
    beside it (studio P10 seed 1003: 'camera motion' of 8.5 px on a fixed camera). A similarity fits both
    exactly as a 1 % zoom; left out in turn, neither group is where the other puts it. A real 1 % zoom,
    shake or shift of the same points holds; so does a rotation seen by the corners of two quadrants."""
    from lawful.perceive.camera_fit import held_out

    rng = np.random.default_rng(4)
    w, h = 320, 185
    left = np.stack([rng.uniform(20, 150, 10), rng.uniform(118, 175, 10)], 1)
    right = np.stack([rng.uniform(215, 310, 12), rng.uniform(118, 175, 12)], 1)
    src = np.concatenate([left, right])
    noise = rng.normal(0, 0.25, src.shape)
    slid = np.concatenate([left - [3.0, 0.0], right]) + noise  # frame-0 positions: the left group moved 3 px right
    assert not held_out(src, slid, w, h, 3.0, 1.0)
    everywhere = np.stack([rng.uniform(10, 310, 40), rng.uniform(10, 175, 40)], 1)
    c = np.array([w / 2, h / 2])
    for pts in (src, everywhere):
        e = rng.normal(0, 0.25, pts.shape)
        assert held_out(pts, c + 1.01 * (pts - c) + e, w, h, 3.0, 1.0)  # zoom
        assert held_out(pts, pts + [2.5, -1.0] + e, w, h, 3.0, 1.0)  # shift
        rot = np.array([[np.cos(0.01), -np.sin(0.01)], [np.sin(0.01), np.cos(0.01)]])
        assert held_out(pts, (pts - c) @ rot.T + c + e, w, h, 3.0, 1.0)  # 0.6 degree rotation
