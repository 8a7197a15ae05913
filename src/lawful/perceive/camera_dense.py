"""Area-based checks for camera motion: which transform explains the image, what moved, a phase-correlation fallback.

All images are smoothed ``float32`` grey work images (:func:`smooth`); transforms map frame ``k``
pixels to reference pixels (``[2, 3]``). :func:`residual` is ``|frame - reference warped by A|``
over the pixels ``A`` maps inside the reference. Its median over a frame is small for the transform
that explains the background and large for one that follows a moving object, as long as the
background is most of the frame, which is how :func:`best` verifies the point-based candidates.
:func:`moving_mask` marks the pixels the transform does not explain: more than 3 noise sigmas
(the residual's median absolute deviation) plus what a sub-pixel misregistration ``DELTA`` would
leave at an edge (``DELTA * |gradient|``). :func:`phase` registers by intensity where corners are
scarce (``cv2.phaseCorrelate``, a translation on top of the predicted transform), with an
uncertainty from the agreement of the four quadrants.
"""

from __future__ import annotations

import bottleneck as bn
import cv2
import numpy as np
from scipy.linalg.lapack import dposv

from lawful.perceive.camera_fit import _corners

DELTA = 1.0  # work px: misregistration allowed for at edges (the RANSAC inlier distance, camera._RANSAC_PX)
SIGMAS = 3.0  # noise sigmas above which a pixel is not explained
_MAD = 1.4826  # median absolute deviation -> sigma for normal noise
_QUANT = (2 / 12) ** 0.5  # grey levels: sigma of the difference of two images rounded to integers
_SUB = 2  # scoring uses every 2nd pixel in each direction
GRID = 8  # cells per side in the vote of best()
_VOTE = 0.05  # share of a cell by which a candidate must explain more to win it


def median(x: np.ndarray, scratch: bool = False) -> float:
    """``np.median`` of a 1-D array without its overhead (bottleneck's quickselect: a third of numpy's partition
    on the shake's 2,000 residuals; even sizes: the mean of the middle two). With a NaN, numpy's partition (NaNs
    last, as before). ``scratch``: ``x`` is the caller's to reorder (partitioned in place, no copy)."""
    m = float(bn.median(x))
    if m == m:
        return m
    n = len(x)
    p = x if scratch else x.copy()
    p.partition(n // 2)  # (even sizes: the middle one below is the largest of the lower half)
    return float(p[n // 2]) if n % 2 else float(0.5 * (p[:n // 2].max() + p[n // 2]))


def solve(Jt: np.ndarray, wt: np.ndarray, e: np.ndarray) -> np.ndarray:
    """Weighted least squares ``e ~ Jt.T p`` (``Jt``: the Jacobian's columns as rows, ``wt`` the weights; normal
    equations by Cholesky, a singular one by least squares)."""
    Jw = Jt * wt
    H, b = Jw @ Jt.T, Jw @ e
    x, info = posv(H, b)
    return x if info == 0 else np.linalg.lstsq(H, b, rcond=1e-12)[0]


def posv(H: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, int]:
    """``H x = b`` for a symmetric positive definite ``H`` (LAPACK's Cholesky ``dposv``: a fifth of the cost of
    ``np.linalg.solve`` at this size); ``info`` > 0 where ``H`` is not positive definite."""
    _, x, info = dposv(H, b)
    return x, info


def scale(x: np.ndarray, n: int | None = None) -> float:
    """Robust sigma of ``x`` (1-D): its median absolute deviation, at least the quantisation's. ``n``: from at most
    ``2 n`` evenly spaced values (the per-frame fits pass ``SCALE_N``: a scale known to a few percent moves only the
    weights of residuals at a cut-off, and the two medians over all of a shake's 2,000 points were a fifth of its
    time); None: from all."""
    return _mad((x[:: max(1, len(x) // n)] if n else x).copy())  # (a copy: partitioned in place)


def _mad(ru: np.ndarray) -> float:
    """:func:`scale` of ``ru``, which it reorders and overwrites."""
    m = median(ru, True)
    return max(_MAD * median(np.abs(np.subtract(ru, m, out=ru), out=ru), True), _QUANT)


def spread(use: np.ndarray, n: int) -> np.ndarray:
    """Flat indices of the residuals :func:`scale` (``n``) takes of ``r[use]``, for :func:`tukey`'s ``sub`` where a
    fit reweights the same points several times."""
    ui = np.flatnonzero(use)
    return ui[:: max(1, len(ui) // n)]


def tukey(r: np.ndarray, use: np.ndarray | None, n: int | None = None,
          sub: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Tukey biweights of the residuals ``r`` (zero outside ``use``; None: every residual counts) and the robust
    sigma they are scaled by (:func:`scale` of ``r[use]``, from at most ``2 n`` of them; ``sub``: their indices,
    :func:`spread` of ``use``)."""
    sig = _mad(r.take(sub)) if sub is not None else scale(r if use is None else r[use], n)
    w = r / (_TUKEY * sig)
    w *= w  # z^2
    np.subtract(1, w, out=w)
    np.fmax(w, 0.0, out=w)  # (1 - z^2)^2 where |z| < 1, else 0 (a NaN too)
    w *= w
    if use is not None:
        w *= use
    return w, sig


def gradient_noise(mag: np.ndarray) -> tuple[float, float]:
    """From the background's gradient magnitudes: the robust size of noise's gradient (flat areas are most
    pixels, or texture is) and the noise gradient's sd per component (``|g|`` is Rayleigh)."""
    med = median(mag.ravel())
    return _MAD * med, med / np.sqrt(2 * np.log(2))


def spread_median(x: np.ndarray, n: int = 8192) -> float:
    """Median of at most ``2 n`` evenly spaced values of ``x`` (a background's edge level, to about 1 % from 8,192
    of a work image's 50,000 pixels at a sixth of the cost; not the noise level the registrations' information
    is measured against: from a sample, a shake and a pan's registration each changed a verdict on the edge)."""
    v = x.ravel()
    return median(v[:: max(1, len(v) // n)])


def smooth(gray: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(gray.astype(np.float32), (0, 0), 1.0)


def warp(ref: np.ndarray, A: np.ndarray, shape) -> tuple[np.ndarray, np.ndarray]:
    """``ref`` sampled at ``A @ x`` for every pixel ``x`` of a frame of ``shape``, and where that is inside ``ref``."""
    h, w = shape
    out = cv2.warpAffine(ref, A, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    inside = cv2.warpAffine(np.ones(ref.shape, np.uint8), A, (w, h), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out, cv2.erode(inside, np.ones((3, 3), np.uint8)) > 0


def _sample(valid: np.ndarray) -> np.ndarray:
    """Flat indices of at most ~2,000 evenly spaced valid pixels (a median of them is within ~3 % of the
    whole image's for a noise level: plenty, and fast)."""
    idx = np.flatnonzero(valid)
    return idx[:: max(1, len(idx) // 2000)]


def residual(img: np.ndarray, ref: np.ndarray, A: np.ndarray, keep: np.ndarray):
    """``(|img - warped ref|, warped ref, valid, sampled valid indices)``; ``keep`` (bool, frame) limits the
    valid pixels. The warped reference is offset by the median difference first (a global change of
    brightness)."""
    W, inside = warp(ref, A, img.shape)
    valid = inside & keep
    idx = _sample(valid)
    if len(idx) >= 50:
        W += float(np.median(img.ravel()[idx] - W.ravel()[idx]))
    return np.abs(img - W), W, valid, idx


def _unexplained(img: np.ndarray, ref: np.ndarray, A: np.ndarray, keep: np.ndarray, sigma: float | None = None,
                 delta: float | None = None, min_delta: float = DELTA, pre: tuple | None = None):
    """Pixels (bool) of ``img`` that ``ref`` warped by ``A`` does not explain, the valid pixels, the
    noise sigma used and the warped reference's gradient ``(gx, gy)`` (per px).

    Unexplained: a residual above ``SIGMAS * sigma + delta * |gradient|`` (``sigma``: one level, or one per
    pixel). Unless given, ``sigma`` is
    the residual's median absolute deviation (flat areas: sensor noise) and ``delta`` (px) is measured
    at the textured pixels (gradient in its top quarter): ``SIGMAS`` robust sigmas of residual per unit
    gradient, at least ``DELTA`` (resampling blur, compression and sub-pixel error show up there). ``pre``: the
    :func:`residual` of these arguments, when already worked out.
    """
    res, W, valid, idx = pre if pre is not None else residual(img, ref, A, keep)
    gx = cv2.Sobel(W, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
    gy = cv2.Sobel(W, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
    if len(idx) < 50:
        return np.zeros(img.shape, bool), valid, float("inf"), (gx, gy)
    r = res.ravel()[idx]
    if sigma is None:
        sigma = max(_MAD * float(np.median(r)), _QUANT)
    grad = cv2.magnitude(gx, gy)
    if delta is None:
        g = grad.ravel()[idx]
        edge = g > max(float(np.partition(g, (3 * len(g)) // 4)[(3 * len(g)) // 4]), 1e-3)
        delta = min_delta if edge.sum() < 20 else max(min_delta, SIGMAS * _MAD * float(np.median(r[edge] / g[edge])))
    return (res > SIGMAS * sigma + delta * grad) & valid, valid, sigma, (gx, gy)


def best(img: np.ndarray, ref: np.ndarray, candidates: list[np.ndarray], keep: np.ndarray,
         ref_keep: np.ndarray | None = None) -> int:
    """Index of the candidate transform that explains the most of the frame, by a vote of ``GRID x GRID`` cells.

    Candidates meet in pairs: a cell goes to the one leaving fewer pixels unexplained, by more than
    ``_VOTE`` of the cell (flat cells, which every candidate explains, do not vote); the candidate
    winning the most duels is the answer. A drawn duel (as many cells each way) goes to the one leaving fewer
    pixels unexplained over the pixels of the duel, by more than ``_VOTE`` of a cell; then to the fewer
    unexplained pixels, those it does not see counted too (without evidence, the smaller motion). A pixel that a
    candidate does not see (mapped outside the reference, or onto what the reference does not show as
    background: outside ``ref_keep``, its objects' boxes) counts against it (with a periodic backdrop it is what
    tells a still camera from a shift by the period), except where it is no evidence: in a plain cell (all but
    ``_VOTE`` of its pixels within ``SIGMAS`` noise sigmas of its median), or in a cell where the reference, as
    the other candidate sees it, changes along their displacement (by ``SIGMAS`` sigmas per px) on no more than
    ``_VOTE`` of the pixels it sees: a floor edge along a pan (studio WMLE P10 and P3 under a 10 % pan lost key
    frames to such strips); a stripe edge anywhere in the cell keeps it as evidence. Nor does seeing more win
    a draw: a zoom-out sees all of the frame (P3 frame 3 took one, 20 px off). The noise a pixel is judged
    against serves all candidates: its cell's, the smallest of their residuals' median absolute deviations there
    (the right transform's), never below the whole frame's. Noise is not the same everywhere: a re-encoded
    lighting gradient leaves 1-2 grey levels under the true transform where a plain wall leaves 0.4, and judged
    by the frame's level those cells voted by chance (studio WMLE P4 seed 1002 under a 10 % zoom: candidates
    33 px off won key frames). Voting by cells, a densely textured object cannot outvote a sparser backdrop that
    spans more of the frame.
    """
    wins, pxs, total, margin = _duels(img, ref, candidates, keep, ref_keep)
    beaten = (wins > wins.T).sum(1)  # pairwise duels: how many others each candidate beats on more cells
    closer = ((wins == wins.T) & (pxs.T - pxs > margin)).sum(1)  # a drawn duel: fewer pixels against, overall
    return int(np.lexsort((total, -closer, -beaten))[0])


def cells_won(img: np.ndarray, ref: np.ndarray, A: np.ndarray, B: np.ndarray, keep: np.ndarray,
              ref_keep: np.ndarray | None = None) -> np.ndarray:
    """``[GRID, GRID]`` bool: the cells of :func:`best`'s vote that transform ``A`` wins from ``B``."""
    return _duels(img, ref, [A, B], keep, ref_keep, cells_of=True).reshape(GRID, GRID)


def _duels(img: np.ndarray, ref: np.ndarray, candidates: list[np.ndarray], keep: np.ndarray,
           ref_keep: np.ndarray | None, cells_of: bool = False):
    """:func:`best`'s duels: ``(wins, pixels against, total against, margin)`` with ``wins[a, b]`` the cells ``a``
    wins from ``b``; with ``cells_of``, the cells the first candidate wins from the second (bool, row by row)."""
    S = (slice(None, None, _SUB), slice(None, None, _SUB))
    img, ref, keep = np.ascontiguousarray(img[S]), np.ascontiguousarray(ref[S]), keep[S]
    rk = None if ref_keep is None else np.ascontiguousarray(ref_keep[S]).astype(np.uint8)
    scaled = [np.concatenate([A[:, :2], A[:, 2:] / _SUB], 1) for A in candidates]  # in subsampled px
    h, w = img.shape
    ch, cw = h // GRID, w // GRID
    margin = _VOTE * ch * cw

    def cells(m: np.ndarray) -> np.ndarray:  # [GRID * GRID, ch * cw], cells row by row
        return m[:ch * GRID, :cw * GRID].reshape(GRID, ch, GRID, cw).swapaxes(1, 2).reshape(GRID * GRID, ch * cw)

    sig, local, pre = [], np.full(GRID * GRID, np.inf), []
    for A in scaled:
        pre.append(residual(img, ref, A, keep))
        res, _, valid, idx = pre[-1]
        sig.append(max(_MAD * float(np.median(res.ravel()[idx])), _QUANT) if len(idx) >= 50 else float("inf"))
        local = np.fmin(local, _MAD * bn.nanmedian(np.where(cells(valid), cells(res), np.nan), axis=1))
    sigma = min(sig)
    noise = np.full(img.shape, sigma, np.float32)  # each cell's own, where its residuals show more than the frame's
    noise[:ch * GRID, :cw * GRID] = np.kron(np.fmax(local, sigma).reshape(GRID, GRID), np.ones((ch, cw), np.float32))

    px, kept = cells(img), cells(keep)
    med = np.median(px, 1)  # (cells with objects' pixels: the median of the rest)
    for j in np.flatnonzero(~kept.all(1)):
        med[j] = median(px[j][kept[j]]) if kept[j].any() else 0.0
    plain = ((np.abs(px - med[:, None]) > SIGMAS * sigma) & kept).sum(1) <= margin  # uniform within noise
    against, unseen, seen, grad, total = [], [], [], [], []
    for A, r in zip(scaled, pre):
        bad, valid, _, g = _unexplained(img, ref, A, keep, noise, DELTA / _SUB, pre=r)
        if rk is not None:
            valid &= cv2.warpAffine(rk, A, (w, h), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP) > 0
        bad, out = cells(bad & valid), cells(~valid & keep)
        total.append(int((bad | out).sum()))
        out[plain] = False
        against.append(bad | out)
        unseen.append(out)
        seen.append(cells(valid & keep))
        grad.append((cells(g[0]), cells(g[1])))  # the warped reference's, as _unexplained took it
    yy, xx = np.mgrid[0:h, 0:w]
    pix = np.stack([cells(xx), cells(yy), np.ones_like(cells(xx))], -1).astype(np.float64)  # [cells, px, 3]
    n = len(scaled)
    wins, pxs = np.zeros((n, n), int), np.zeros((n, n), int)  # cells won; pixels against, on the duel's pixels
    for a in range(n):
        for b in range(a + 1, n):
            d = pix @ (scaled[a] - scaled[b]).T  # where the two put each pixel in the reference, apart
            d /= np.maximum(np.hypot(d[..., 0], d[..., 1]), 1e-9)[..., None]
            # what one side does not see is evidence against it only in cells where the reference, as the other
            # sees it, changes along their displacement: a plain wall or a line along the motion fits either
            blind = np.zeros(unseen[a].shape, bool)
            for u, (gx, gy), sees in ((unseen[a], grad[b], seen[b]), (unseen[b], grad[a], seen[a])):
                moves = ((np.abs(gx * d[..., 0] + gy * d[..., 1]) > SIGMAS * sigma) & sees).sum(1) > margin
                blind |= u & ~moves[:, None]
            ca, cb = (against[a] & ~blind).sum(1), (against[b] & ~blind).sum(1)
            if cells_of:
                return cb - ca > margin
            wins[a, b], wins[b, a] = np.sum(cb - ca > margin), np.sum(ca - cb > margin)
            pxs[a, b], pxs[b, a] = ca.sum(), cb.sum()
    return wins, pxs, total, margin


def moving_mask(img: np.ndarray, ref: np.ndarray, A: np.ndarray, keep: np.ndarray, grow: int) -> np.ndarray:
    """Pixels of ``img`` (bool) that ``A`` and ``ref`` do not explain, without specks and edge lines (an opening
    by a disc ~5 px across), grown by ``grow`` px. Worked out on every ``_SUB``-th pixel, then enlarged."""
    S = (slice(None, None, _SUB), slice(None, None, _SUB))
    As = np.concatenate([A[:, :2], A[:, 2:] / _SUB], 1)
    sub = np.ascontiguousarray(img[S]), np.ascontiguousarray(ref[S])
    bad = _unexplained(*sub, As, keep[S], delta=None, min_delta=DELTA / _SUB)[0].astype(np.uint8)
    # misregistration, interpolation and compression leave lines along edges; moving things are blobs
    bad = cv2.morphologyEx(bad, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    g = max(1, round(grow / _SUB))
    bad = cv2.dilate(bad, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * g + 1, 2 * g + 1)))
    h, w = img.shape
    return cv2.resize(bad, (bad.shape[1] * _SUB, bad.shape[0] * _SUB), interpolation=cv2.INTER_NEAREST)[:h, :w] > 0


def phase(img: np.ndarray, ref: np.ndarray, A0: np.ndarray, keep: np.ndarray):
    """Translation correction of ``A0`` by phase correlation: ``(A, error px)`` or None.

    ``img`` (pixels outside ``keep`` set to its mean) against ``ref`` warped by ``A0``, with a
    Hanning window (``cv2.phaseCorrelate``). The error is taken from the same measurement on the
    four quadrants: the largest distance of their shifts from the whole frame's. Where the
    content does not pin a shift down (a smooth gradient, noise, a zoom that a translation cannot
    describe) the quadrants disagree and the error is large.
    """
    h, w = img.shape
    W, inside = warp(ref, A0, img.shape)
    valid = inside & keep
    if valid.mean() < 0.2:
        return None
    # each image loses only its own bad pixels: a mask shared by both would be common structure at zero shift
    a = np.where(keep, img, float(img[keep].mean())).astype(np.float32)
    b = np.where(inside, W, float(W[inside].mean())).astype(np.float32)

    def shift(ys, xs):
        aa, bb = a[ys, xs], b[ys, xs]
        win = cv2.createHanningWindow((aa.shape[1], aa.shape[0]), cv2.CV_32F)
        return np.array(cv2.phaseCorrelate(bb, aa, win)[0])

    d = shift(slice(None), slice(None))
    halves_y, halves_x = (slice(0, h // 2), slice(h // 2, None)), (slice(0, w // 2), slice(w // 2, None))
    quads = [shift(ys, xs) for ys in halves_y for xs in halves_x]
    se = float(np.sqrt(np.sum((np.array(quads) - d) ** 2, 1)).max())
    A = A0.copy()  # img(x) ~ W(x - d) = ref(A0 (x - d))
    A[:, 2] -= A0[:, :2] @ d
    return A, se


# --- the uncertainty of a registration (:mod:`lawful.perceive.camera_register`) -------------------

_BLOCK = 8  # work px: residuals within a block are treated as correlated (smoothing, resampling, compression)
# residuals the robust scale of :func:`scale` is taken from (at most twice as many: its sd is then 4-5 %, 1.17 / sqrt(n);
# with 256 a studio free fall under a zoom lost 3 points, its per-frame registrations a little noisier)
SCALE_N = 512
_TUKEY = 4.685  # Tukey biweight cut-off, in robust sigmas: pixels beyond carry no weight (moving things)


def block_scores(J: np.ndarray, wt: np.ndarray, e: np.ndarray, y: np.ndarray, w: int,
                 blocks: np.ndarray | None = None) -> tuple[np.ndarray, int] | None:
    """The middle of a cluster-robust (sandwich) covariance: the weighted scores ``J * wt * e`` of the points
    ``y`` (px, in an image ``w`` wide) summed per ``_BLOCK``-px block, ``([G, k], G)``; None with fewer than 8
    blocks. The covariance is then ``Hi @ (S.T @ S) @ Hi * G / (G - 1)``. ``blocks``: :func:`block_of` the
    points, where the caller keeps them."""
    sel = np.flatnonzero(wt > 0)
    b = block_of(y[sel], w) if blocks is None else blocks.take(sel)
    count = np.bincount(b)  # the blocks with points (no sort: bincount over all block numbers)
    full = np.flatnonzero(count)
    if len(full) < 8:
        return None
    q = J.T.take(sel, 1)
    q *= wt.take(sel) * e.take(sel)  # [k, points]: one bincount for all k (each bin summed in point order)
    k, nb = q.shape[0], len(count)
    bins = (b + nb * np.arange(k)[:, None]).ravel()
    return np.bincount(bins, q.ravel(), k * nb).reshape(k, nb).take(full, 1).T, len(full)


def block_of(y: np.ndarray, w: int) -> np.ndarray:
    """The ``_BLOCK``-px block number of each point ``y`` (px, in an image ``w`` wide)."""
    return ((y[:, 1] // _BLOCK) * (w // _BLOCK + 1) + y[:, 0] // _BLOCK).astype(np.int64)


def covariance(J: np.ndarray, wt: np.ndarray, e: np.ndarray, y: np.ndarray, d: np.ndarray, H: np.ndarray,
               w: int, h: int, grad_noise: float, min_snr: float = SIGMAS):
    """Uncertainty of a similarity fitted to intensities: ``(sd px, snr, weakest direction, blocks, loose)`` or
    None (fewer than 8 blocks of residuals); ``loose``: the directions pinned by less than ``SIGMAS`` times the
    gradient noise alone gives (:func:`register` checks them for a second minimum).

    ``J``: the Jacobian rows (``a, b, tx, ty`` first), ``wt`` the robust weights, ``e`` the residuals,
    ``y`` the points (level px) and ``d`` their offsets from the centre, ``H`` the weighted normal matrix,
    ``w x h`` the level's size, ``grad_noise`` the gradient of noise per component (times the gain).
    A cluster-robust (sandwich) covariance, residuals grouped in ``_BLOCK``-px blocks, propagated to the
    frame corners and centre (``sd``: the largest standard error along either axis); infinite where some
    direction is pinned by less than ``min_snr`` times the gradient noise alone gives.
    """
    got = block_scores(J, wt, e, y, w)
    if got is None:
        return None
    score, G = got
    sel = wt > 0
    # The template's own noise has gradients too: with N points they add about N * grad_sd^2 of
    # apparent information (Hn) that the frame, whose noise is independent, cannot match. Only what
    # exceeds it pins the motion: the covariance uses H - Hn, and a direction of (a, b, tx, ty) where
    # the gradient is not ``min_snr`` times what noise alone gives (stripes all along it) has no estimate.
    # Below ``SIGMAS`` the few structures that pin it (a shelf's end, one slanted edge) may leave wrong minima
    # several px away that the local covariance cannot see: those directions are returned as ``loose``. The
    # information is counted once gain and offset are fitted: shifting a brightness ramp changes the offset only.
    Hn = noise_information(d[sel], wt[sel], grad_noise)
    Hr = H.copy()
    Hr[:4, :4] -= Hn
    try:
        L = np.linalg.inv(np.linalg.cholesky(Hn))
        Hm = H[:4, :4] - (H[:4, 4:] @ np.linalg.solve(H[4:, 4:], H[4:, :4]) if len(H) > 4 else 0.0)  # gain, offset fitted
        ev, vec = np.linalg.eigh(L @ Hm @ L.T)
        snr = float(np.sqrt(max(ev[0], 0.0)))  # gradient over noise in the weakest direction
        weak = L.T @ vec[:, 0]
        weak = weak / np.abs(weak).max()
        loose = [L.T @ vec[:, j] for j in np.flatnonzero(np.sqrt(np.maximum(ev, 0.0)) < SIGMAS)]
    except np.linalg.LinAlgError:
        snr, weak, loose = 0.0, np.zeros(4), []
    sd = float("inf")
    if snr >= max(min_snr, 1.0 + 1e-6):
        Hi = np.linalg.inv(Hr)
        cov = Hi @ (score.T @ score) @ Hi * (G / (G - 1))
        sd = 0.0
        for dx, dy in _corners(w, h) - [(w - 1) / 2, (h - 1) / 2]:
            Jp = np.array([[dx, -dy, 1, 0], [dy, dx, 0, 1]])  # displacement of a point per (a, b, tx, ty)
            sd = max(sd, float(np.sqrt(np.max(np.diag(Jp @ cov[:4, :4] @ Jp.T)))))
    return sd, snr, weak, G, loose


def noise_information(d: np.ndarray, wt: np.ndarray, grad_noise: float) -> np.ndarray:
    """The ``4 x 4`` information about ``(a, b, tx, ty)`` that the template's own gradient noise (``grad_noise``
    per component) seems to add at points ``d`` (offsets from the centre) with weights ``wt``."""
    # each entry is a weighted sum of r^2, x, y or 1 over the points: ``sum_k wt_k Jn_k`` of the per-point matrices
    # [[r2, 0, x, y], [0, r2, -y, x], [x, -y, 1, 0], [y, x, 0, 1]]
    r2, x, y, n = wt @ np.sum(d ** 2, 1), wt @ d[:, 0], wt @ d[:, 1], wt.sum()
    return np.array([[r2, 0.0, x, y], [0.0, r2, -y, x], [x, -y, n, 0.0], [y, x, 0.0, n]]) * grad_noise ** 2
