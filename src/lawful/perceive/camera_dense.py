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

import cv2
import numpy as np

DELTA = 1.0  # work px: misregistration allowed for at edges (the RANSAC inlier distance, camera._RANSAC_PX)
SIGMAS = 3.0  # noise sigmas above which a pixel is not explained
_MAD = 1.4826  # median absolute deviation -> sigma for normal noise
_QUANT = (2 / 12) ** 0.5  # grey levels: sigma of the difference of two images rounded to integers
_SUB = 2  # scoring uses every 2nd pixel in each direction
GRID = 8  # cells per side in the vote of best()
_VOTE = 0.05  # share of a cell by which a candidate must explain more to win it


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
                 delta: float | None = None, min_delta: float = DELTA):
    """Pixels (bool) of ``img`` that ``ref`` warped by ``A`` does not explain, the valid pixels and the
    noise sigma used.

    Unexplained: a residual above ``SIGMAS * sigma + delta * |gradient|``. Unless given, ``sigma`` is
    the residual's median absolute deviation (flat areas: sensor noise) and ``delta`` (px) is measured
    at the textured pixels (gradient in its top quarter): ``SIGMAS`` robust sigmas of residual per unit
    gradient, at least ``DELTA`` (resampling blur, compression and sub-pixel error show up there).
    """
    res, W, valid, idx = residual(img, ref, A, keep)
    if len(idx) < 50:
        return np.zeros(img.shape, bool), valid, float("inf")
    r = res.ravel()[idx]
    if sigma is None:
        sigma = max(_MAD * float(np.median(r)), _QUANT)
    gx = cv2.Sobel(W, cv2.CV_32F, 1, 0, ksize=3, scale=0.125)
    gy = cv2.Sobel(W, cv2.CV_32F, 0, 1, ksize=3, scale=0.125)
    grad = cv2.magnitude(gx, gy)
    if delta is None:
        g = grad.ravel()[idx]
        edge = g > max(float(np.partition(g, (3 * len(g)) // 4)[(3 * len(g)) // 4]), 1e-3)
        delta = min_delta if edge.sum() < 20 else max(min_delta, SIGMAS * _MAD * float(np.median(r[edge] / g[edge])))
    return (res > SIGMAS * sigma + delta * grad) & valid, valid, sigma


def best(img: np.ndarray, ref: np.ndarray, candidates: list[np.ndarray], keep: np.ndarray) -> int:
    """Index of the candidate transform that explains the most of the frame, by a vote of ``GRID x GRID`` cells.

    Candidates meet in pairs: a cell goes to the one leaving fewer pixels unexplained, by more than
    ``_VOTE`` of the cell (flat cells, which every candidate explains, do not vote); the candidate
    winning the most duels is the answer.
    One noise sigma serves all candidates: the smallest of their residuals' median absolute
    deviations (the right transform's). Voting by cells rather than counting corners or pixels, a
    densely textured object cannot outvote a sparser backdrop that spans more of the frame.
    Equal votes go to the fewer unexplained pixels.
    """
    S = (slice(None, None, _SUB), slice(None, None, _SUB))
    img, ref, keep = np.ascontiguousarray(img[S]), np.ascontiguousarray(ref[S]), keep[S]
    scaled = [np.concatenate([A[:, :2], A[:, 2:] / _SUB], 1) for A in candidates]  # in subsampled px
    sig = []
    for A in scaled:
        res, _, _, idx = residual(img, ref, A, keep)
        sig.append(max(_MAD * float(np.median(res.ravel()[idx])), _QUANT) if len(idx) >= 50 else float("inf"))
    sigma = min(sig)
    h, w = img.shape
    ch, cw = h // GRID, w // GRID
    counts = []
    for A in scaled:
        bad, valid, _ = _unexplained(img, ref, A, keep, sigma, DELTA / _SUB)
        bad |= ~valid & keep  # outside the reference counts as unexplained (a shift that leaves the frame)
        counts.append(bad[:ch * GRID, :cw * GRID].reshape(GRID, ch, GRID, cw).sum((1, 3)).ravel())
    C = np.array(counts, float)  # [candidates, cells]
    margin = _VOTE * ch * cw
    wins = np.array([[np.sum(C[b] - C[a] > margin) for b in range(len(C))] for a in range(len(C))])
    beaten = (wins > wins.T).sum(1)  # pairwise duels: how many others each candidate beats on more cells
    return int(np.lexsort((C.sum(1), -beaten))[0])


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
