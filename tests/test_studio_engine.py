"""Studio engine: projection, free fall and motion blur checked against known truth."""

import dataclasses

import numpy as np

from studio_support import E  # noqa: F401 (GL set-up, or skip the module)


def _stage(seed=5, look=None):
    st = E.Stage(seed, 640, 360, look=look)
    st.camera((0.1, -3.0, 1.0), (0.0, 0.0, 0.8), 35)
    st.backdrop(1.0, kind="flat")
    return st


def test_projection_matches_the_segmentation_centroid():
    st = _stage()
    pts = {"a": (0.45, 0.0, 1.25), "b": (-0.6, 0.3, 0.5), "c": (0.0, -0.4, 0.9)}
    for name, p in pts.items():
        st.body(name, p).geom(E.sphere(0.04), (200, 50, 50), obj=name)
    w = st.build()
    masks = w.masks()
    for name, p in pts.items():
        ys, xs = np.nonzero(masks[name])
        px, py = w.project(p)
        # a sphere's silhouette is a slightly off-centre ellipse away from the axis: < 0.1 px here
        assert abs(xs.mean() - px) < 0.25 and abs(ys.mean() - py) < 0.25, (name, xs.mean(), ys.mean(), px, py)
        # and the image scale agrees with the silhouette's size (diameter in px, to a pixel of rasterisation)
        assert abs(np.ptp(xs) + 1 - 0.08 * w.px_per_m(p)) < 1.0


def test_free_fall_matches_the_closed_form():
    st = _stage()
    st.body("ball", (0.0, 0.0, 1.5), "free").geom(E.sphere(0.05), (40, 90, 200), obj="ball")
    w = st.build()
    rec = w.simulate(0.5, 24)
    z = rec.xpos[..., w.id("body", "ball"), 2]
    expect = 1.5 - 0.5 * 9.81 * rec.times**2
    assert np.abs(z - expect).max() < 1e-3
    assert z[-1, -1] < 1.5 - 1.0  # it really fell (about 1.2 m)


def test_motion_blur_streaks_along_the_velocity():
    def frame(sub: int, away: bool = False):
        st = _stage(look=dataclasses.replace(E.random_look(np.random.default_rng(1)), subframes=sub, shutter=0.5))
        st.body("ball", (-0.4, 0.0, 1.0), "free").geom(E.sphere(0.04), (220, 40, 40), obj="ball")
        w = st.build()
        w.model.opt.gravity[:] = 0

        def init(d):
            d.qvel[0] = 4.0  # m/s to the right: 4 / 24 * 0.5 = 8 cm of blur, about 2 ball diameters
            if away:
                d.qpos[2] = -50.0

        rec = w.simulate(5 / 24, 24, init=init)
        return w, list(w.render(rec, effects=False))[3]

    w, bg = frame(1, away=True)
    spans = {}
    for sub in (1, 3):
        _, img = frame(sub)
        ys, xs = np.nonzero(np.abs(img.astype(int) - bg.astype(int)).max(axis=2) > 12)
        spans[sub] = (np.ptp(xs), np.ptp(ys))
    blur_px = 4.0 / 24 * 0.5 * (2 / 3) * w.px_per_m((0, 0, 1.0))  # first to last of 3 sub-frames
    assert spans[3][0] > spans[1][0] + 0.7 * blur_px
    assert abs(spans[3][1] - spans[1][1]) <= 2
