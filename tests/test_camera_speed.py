"""The per-frame camera work in its fast forms (#16) gives what the direct definitions give: bit for bit the Tukey
weights and medians (in the per-frame fits the robust scale from an evenly spread sample of at most 2 * SCALE_N, known
to 5 %), block scores summed per block in point order, the moving mask pixel for pixel (the four
envelope comparisons grown by ``grow``); to rounding the shake's weighted least squares and its samples of a frame
and its gradient (from the points' neighbourhoods, not remap of full-image Sobel images)."""

import cv2
import numpy as np

from lawful.perceive import camera_dense as dense
from lawful.perceive.camera_moving import RADIUS, Movers
from lawful.perceive.camera_dense import solve as _solve
from lawful.perceive.camera_shake import _Sampler

from test_camera_moving import H, W, _backdrop, _frame


def _scale_direct(x: np.ndarray, n: int | None = None) -> float:
    """dense.scale by its definition: the MAD of every k-th value (k = len // n, at least 1; all without n)."""
    sub = x[:: max(1, len(x) // n)] if n else x
    return max(dense._MAD * np.median(np.abs(sub - np.median(sub))), dense._QUANT)


def test_tukey_and_median_are_the_direct_formulas_and_leave_their_input_alone():
    rng = np.random.default_rng(0)
    for n in (51, 52, 1764):
        r = rng.standard_normal(n) * 3
        r[::7] *= 40  # outliers beyond the cut-off
        use = rng.random(n) > 0.2
        for u, k in ((use, None), (None, None), (use, dense.SCALE_N), (None, 300)):
            before = r.copy()
            w, sig = dense.tukey(r, u, k)
            ru = r if u is None else r[u]
            sig0 = _scale_direct(ru, k)
            z = r / (dense._TUKEY * sig0)
            w0 = np.where((np.abs(z) < 1) & (True if u is None else u), (1 - z * z) ** 2, 0.0)
            assert sig == sig0 and np.array_equal(w, w0) and np.array_equal(r, before)
            assert 0 < np.count_nonzero(w) < n  # both sides of the cut-off were exercised
        for x in (r, r.astype(np.float32)):
            before = x.copy()
            assert dense.median(x) == np.median(x) and np.array_equal(x, before)
            assert dense.median(x.copy(), True) == np.median(x)
    x = rng.standard_normal(101)
    x[[3, 50]] = np.nan  # bottleneck says NaN: the partition's median, NaNs sorted last, as before
    p = np.sort(x)
    assert dense.median(x) == p[50] and dense.median(x.astype(np.float32)) == np.float32(p[50])


def test_the_robust_scale_from_a_spread_sample_is_the_whole_samples_to_a_few_percent():
    """On 2,000 residuals a tenth of which move on their own, the scale from every 3rd (667 of them) is the MAD of
    all of them to 5 % (sd, over 200 draws: 1.17 / sqrt(667); unbiased), and with fewer
    than 2 * SCALE_N it uses them all."""
    rng = np.random.default_rng(5)
    ratio = []
    for _ in range(200):
        r = rng.standard_normal(2000) * 2.5
        r[rng.random(2000) < 0.1] += rng.uniform(-60, 60)  # a thread across the backdrop
        ratio.append(dense.scale(r, dense.SCALE_N) / dense.scale(r))
    assert np.std(ratio) < 0.055 and abs(np.mean(ratio) - 1) < 0.01
    r = rng.standard_normal(2 * dense.SCALE_N - 1)
    assert dense.scale(r, dense.SCALE_N) == dense.scale(r) == max(dense._MAD * np.median(np.abs(r - np.median(r))),
                                                                  dense._QUANT)


def test_the_template_noise_information_is_the_sum_of_the_per_point_matrices():
    rng = np.random.default_rng(6)
    d, wt = rng.uniform(-160, 160, (300, 2)), rng.uniform(0, 1, 300)
    want = np.zeros((4, 4))
    for (x, y), w in zip(d, wt):
        want += w * np.array([[x * x + y * y, 0, x, y], [0, x * x + y * y, -y, x], [x, -y, 1, 0], [y, x, 0, 1]])
    assert np.allclose(dense.noise_information(d, wt, 0.7), want * 0.49, rtol=1e-12)


def test_block_scores_are_the_scores_summed_per_block_in_point_order():
    rng = np.random.default_rng(1)
    n, w = 900, 320
    y = rng.uniform(0, [w, 180], (n, 2)).astype(np.float32)
    J, e = rng.standard_normal((n, 4)), rng.standard_normal(n)
    wt = np.maximum(rng.standard_normal(n), 0.0)
    got, G = dense.block_scores(J, wt, e, y, w, dense.block_of(y, w))
    sums = {}
    for i in np.flatnonzero(wt > 0):  # point order, as a running sum per block
        b = int(y[i, 1] // 8) * (w // 8 + 1) + int(y[i, 0] // 8)
        sums[b] = sums.get(b, 0.0) + J[i] * (wt[i] * e[i])
    assert G == len(sums) and np.array_equal(got, np.array([sums[b] for b in sorted(sums)]))
    assert np.array_equal(dense.block_scores(np.asfortranarray(J), wt, e, y, w)[0], got)


def _mask_direct(mv: Movers, D: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Movers.mask by its definition: outside frame 0's envelope or frame 0 outside this frame's, by more than t."""
    a, c, sel = mv._gain(D, keep, True)
    Dm = (D - np.float32(c)) / np.float32(a)
    diff = Dm.ravel()[sel] - mv.D0.ravel()[sel]
    t = np.float32(mv.z * _scale_direct(diff, dense.SCALE_N))
    k = np.ones((2 * RADIUS + 1, 2 * RADIUS + 1), np.uint8)
    lo0, hi0, lo, hi = cv2.erode(mv.D0, k), cv2.dilate(mv.D0, k), cv2.erode(Dm, k), cv2.dilate(Dm, k)
    bad = (Dm > hi0 + t) | (Dm < lo0 - t) | (mv.D0 > hi + t) | (mv.D0 < lo - t)
    r = RADIUS + 1
    bad[:r], bad[-r:], bad[:, :r], bad[:, -r:] = False, False, False, False
    bad = cv2.dilate(bad.astype(np.uint8), mv._grow) > 0
    return bad & keep if np.count_nonzero(bad & mv._edges) <= 0.5 * mv._n_edges else np.zeros_like(bad)


def test_the_moving_mask_is_its_definition_pixel_for_pixel():
    bg, keep = _backdrop(), np.ones((H, W), bool)
    keep[60:90, 200:240] = False  # an object's box
    mv = Movers(_frame(bg, string_x=120), keep)
    marked = []
    for shift, sx, gain, seed in (((0.5, -0.4), 140, 1.03, 1), ((0.3, 0.2), 120, 0.97, 2), ((9.0, 6.0), 120, 1.0, 3)):
        D = _frame(bg, shift, string_x=sx, gain=gain, seed=seed)
        m = mv.mask(D, keep)
        assert np.array_equal(m, _mask_direct(mv, D, keep))
        marked.append(m.mean())
    assert marked[0] > 0.05 and marked[1] < 0.01 and marked[2] == 0  # a string that swung; shake; a camera that moved


def test_the_shake_normal_equations_solve_the_weighted_least_squares():
    rng = np.random.default_rng(2)
    n = 500
    Jt, e, wt = rng.standard_normal((4, n)), rng.standard_normal(n), rng.uniform(0, 1, n)
    s = np.sqrt(wt)
    assert np.allclose(_solve(Jt, wt, e), np.linalg.lstsq(Jt.T * s[:, None], e * s, rcond=None)[0], rtol=1e-12,
                       atol=1e-14)
    Jt[1] = 2 * Jt[0]  # singular: the least-squares solution of the normal equations
    assert np.all(np.isfinite(_solve(Jt, wt, e)))


def test_the_shake_samples_what_remap_of_the_sobel_images_gives():
    """The frame and half its gradient at the shake points shifted by d, from the points' neighbourhoods, are
    cv2.remap of the frame and of cv2.Sobel's images (to float32 rounding), also where d crosses whole pixels
    and, from the images themselves, where the neighbourhoods would reach the border."""
    from lawful.perceive.camera_shake import Shake

    D = _frame(_backdrop(), string_x=120)
    sh = Shake(D, np.ones(D.shape, bool))
    Dg = cv2.merge([D, cv2.Sobel(D, cv2.CV_32F, 1, 0, ksize=3, scale=0.0625),
                    cv2.Sobel(D, cv2.CV_32F, 0, 1, ksize=3, scale=0.0625)])
    at = _Sampler(D, sh)
    for d in ((0.0, 0.0), (0.3, -0.7), (-1.25, 1.9), (0.3, -0.6), (-2.99, 1.5), (7.5, 0.25)):
        d = np.array(d)
        want = cv2.remap(Dg, sh._yx + np.float32(d[0]), sh._yy + np.float32(d[1]), cv2.INTER_LINEAR).reshape(-1, 3).T
        assert np.abs(at(d) - want).max() < 1e-4 * max(1.0, np.abs(want).max())
    assert at.n == (-3, 1)  # the last in-reach shift's cell; 7.5 px went to remap
