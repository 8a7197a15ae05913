"""Colour models of objects, learned from the first frame, and per-frame object masks.

Pixels are compared in a shading-robust feature space (:func:`to_features`): brightness
(down-weighted) and opponent chroma divided by brightness. The chroma part stays put when a
colour is darkened or brightened (shaded limbs, soft lighting changes) and is small for the
scene's greyish colours, however dark. An object is one Gaussian there (:class:`ColorModel`:
mean ``[3]``, whitening ``[3, 3]``, a squared-Mahalanobis threshold). The threshold sits a
little past halfway (in distance) from the object's colour to the nearest colour around it in
the first frame (capped by any colour that covers a tenth of the frame), so blur, compression, noise and a global hue shift of ~10 degrees keep
object pixels in while the scene (low-saturation by construction in rendered cases) stays out.

Learning (:func:`learn_from_box`): the blob of the case's colour in the box (or, failing
that, the pixels of the box that differ from the colours of a ring around it); a trimmed
mean/covariance of its pixels is the model (a small contrasting marker is trimmed away).
Without a box, :func:`find_by_color` locates blobs near an approximate RGB colour. Two
objects of the same colour get indistinguishable models (:meth:`ColorModel.similar`); the
tracker then tells them apart by position.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

L_WEIGHT = 0.3  # weight of brightness against chroma in the feature space
CHROMA_SCALE = 100.0  # chroma per unit of (brightness + DARK_OFFSET)
DARK_OFFSET = 16.0  # keeps the chroma of near-black pixels (mostly noise) small
# Minimum per-channel standard deviation (feature units) added to learned covariances:
# covers sensor noise, compression and shading that the first frame may not show.
MIN_STD = np.array([2.0, 3.0, 3.0], np.float32)
THRESHOLD_RANGE = (6.0, 144.0)  # bounds of the squared-Mahalanobis acceptance threshold
THRESHOLD_FRACTION = 0.36  # threshold = this x squared distance to the nearest background colour
BACKGROUND_QUANTILE = 0.1  # a colour covering more of the frame than this share caps the threshold
LOCAL_QUANTILE = 0.02  # the "nearest background colour": this quantile around the object
HINT_TOLERANCE = 30.0  # chroma distance within which a pixel has the case's stated colour
PIECE_SHARE = 0.1  # a second piece of an object's colour wholly in its box, this share of the first's size, is it too
_ONES = np.ones((1, 3), np.float32)
_K3_SEG = np.ones((3, 3), np.uint8)
# opponent axes of RGB: (R - G) / sqrt 2 and (R + G - 2 B) / sqrt 6 (greys have none)
_OPPONENT = np.array([[0, 0, 0],
                      [1 / np.sqrt(2), -1 / np.sqrt(2), 0],
                      [1 / np.sqrt(6), 1 / np.sqrt(6), -2 / np.sqrt(6)]], np.float32)
_OPPONENT_AND_ONE = np.hstack([_OPPONENT, [[1], [0], [0]]]).astype(np.float32)  # [3, 4]: (1, o1, o2)


def to_features(rgb: np.ndarray, blur: bool = True) -> np.ndarray:
    """``uint8`` RGB ``[H, W, 3]`` -> shading-robust colour features ``float32 [H, W, 3]``.

    Channels: ``0.3 * V`` (``V = max(R, G, B)``, 0-255) and the two opponent chroma axes
    divided by ``V + 16`` (times 100). Shading scales R, G, B alike, so the chroma ratios stay
    put over lit faces, dark limbs and soft lighting changes; greys (the scene's colours have
    HSV saturation <= 0.25) sit near zero, saturated objects ~60-75 away. ``blur``: a 3x3 box
    filter first (cuts pixel noise ~3x; edges stay centred).
    """
    rgb = _blur3(rgb) if blur else np.ascontiguousarray(rgb)
    # channel 0 of the transform is the constant 1; the factors L_WEIGHT * V and 100 / (V + 16) depend
    # on V alone: looked up in float32 tables made by the same arithmetic (_v_tables) instead of computed
    out = cv2.transform(rgb.astype(np.float32), _OPPONENT_AND_ONE)
    v = brightness(rgb)
    k = cv2.LUT(v, _K_TABLE)
    return cv2.multiply(out, cv2.merge((cv2.LUT(v, _V_TABLE), k, k)), dst=out)


def _v_tables() -> tuple[np.ndarray, np.ndarray]:
    """Per brightness ``V`` (0-255), the float32 factors that turn ``(1, o1, o2)`` into features:
    ``L_WEIGHT * V`` and ``CHROMA_SCALE / (V + DARK_OFFSET)``."""
    v = np.arange(256, dtype=np.float32)
    k = np.add(v, DARK_OFFSET)
    np.divide(CHROMA_SCALE, k, out=k)
    v *= L_WEIGHT
    return v, k


_V_TABLE, _K_TABLE = _v_tables()


def _blur3(rgb: np.ndarray) -> np.ndarray:
    """The 3x3 box filter :func:`to_features` applies (skipped for images under 3 px a side)."""
    return cv2.blur(rgb, (3, 3)) if min(rgb.shape[:2]) >= 3 else np.ascontiguousarray(rgb)


class FrameFeatures:
    """:func:`to_features` of a whole frame, computed only for the regions asked for.

    ``ff[y0:y1, x0:x1]`` (any spatial indexing, steps included) equals
    ``to_features(rgb)[y0:y1, x0:x1]``: the frame is blurred once, the features are per pixel.
    ``shape`` is the frame's ``(H, W, 3)``.
    """

    def __init__(self, rgb: np.ndarray):
        self.blurred = _blur3(rgb)
        self.shape = rgb.shape
        self._full: np.ndarray | None = None

    def __getitem__(self, key) -> np.ndarray:
        return to_features(self.blurred[key], blur=False)

    @property
    def full(self) -> np.ndarray:
        """The whole frame's features, computed once (``ff[:, :]``)."""
        if self._full is None:
            self._full = self[:, :]
        return self._full


def brightness(rgb: np.ndarray) -> np.ndarray:
    """``V = max(R, G, B)`` of ``uint8`` RGB ``[H, W, 3]`` -> ``uint8 [H, W]`` (HSV's V channel; OpenCV's maximum of
    the split channels where the pixels are packed: a third of NumPy's over strided channel views)."""
    if rgb.ndim == 3 and rgb.dtype == np.uint8 and rgb.strides[1:] == (3, 1) and rgb.shape[2] == 3:
        r, g, b = cv2.split(rgb)
        return cv2.max(cv2.max(r, g, dst=r), b, dst=r)
    return np.maximum(np.maximum(rgb[..., 0], rgb[..., 1]), rgb[..., 2])


def lightness(feat: np.ndarray) -> np.ndarray:
    """Brightness ``V`` (0-255) back from :func:`to_features` output ``[..., 3]``."""
    return feat[..., 0] / L_WEIGHT


def rgb_to_features(color: tuple[int, int, int]) -> np.ndarray:
    """One RGB colour (0-255) -> feature vector ``[3]`` (see :func:`to_features`)."""
    px = np.array([[color]], np.uint8)
    return to_features(px, blur=False)[0, 0]


@dataclass
class ColorModel:
    """Gaussian colour model of one object.

    ``mean`` ``[3]`` (feature units, see :func:`to_features`); ``whiten`` ``[3, 3]`` with
    ``d2 = |whiten @ (f - mean)|^2``; ``threshold``: pixels with ``d2 < threshold`` belong to
    the object. ``mean0`` is the first-frame mean; :meth:`adapt` keeps ``mean`` within half
    the threshold of it. ``bg_d2``: squared distance of the nearest background colour seen.
    """

    mean: np.ndarray
    whiten: np.ndarray
    threshold: float
    mean0: np.ndarray = field(default=None)  # type: ignore[assignment]
    bg_d2: float = float("inf")  # squared distance of the nearest background colour
    coverage: float = 1.0  # share of the first-frame object pixels inside the threshold

    def __post_init__(self) -> None:
        if self.mean0 is None:
            self.mean0 = self.mean.copy()

    @classmethod
    def fit(cls, pixels: np.ndarray, threshold: float = 16.0) -> "ColorModel":
        """Fit mean and regularised covariance (``+ MIN_STD**2``) to feature ``pixels`` ``[N, 3]``."""
        pixels = np.asarray(pixels, np.float64).reshape(-1, 3)
        mean = pixels.mean(0)
        cov = np.cov(pixels.T) if len(pixels) > 3 else np.zeros((3, 3))
        cov = cov + np.diag(MIN_STD.astype(np.float64) ** 2)
        # whiten = L^-1 with cov = L L^T  ->  d2 = |L^-1 (x - mean)|^2
        whiten = np.linalg.inv(np.linalg.cholesky(cov))
        return cls(mean.astype(np.float32), whiten.astype(np.float32), float(threshold))

    def distance2(self, feat: np.ndarray) -> np.ndarray:
        """Squared Mahalanobis distance of every pixel of ``feat`` ``[..., 3]`` -> ``[...]``."""
        w = np.asarray(self.whiten, np.float32)
        affine = np.empty((3, 4), np.float32)  # [whiten | -whiten @ mean]
        affine[:, :3] = w
        affine[:, 3] = -(w @ self.mean)
        x = np.asarray(feat, np.float32)
        shape = x.shape[:-1]
        if x.ndim != 3:
            x = x.reshape(-1, 1, 3)
        z = cv2.transform(x, affine)
        return cv2.transform(cv2.multiply(z, z, dst=z), _ONES).reshape(shape)

    def mask(self, feat: np.ndarray) -> np.ndarray:
        """Binary ``uint8`` mask (0/1) of the pixels of ``feat`` ``[H, W, 3]`` matching the object."""
        return np.less(self.distance2(feat), self.threshold).view(np.uint8)

    def adapt(self, observed: np.ndarray, rate: float = 0.05) -> None:
        """Move the mean a little toward ``observed`` ``[3]``, the mean of confident object pixels."""
        target = (1 - rate) * self.mean + rate * np.asarray(observed, np.float32).reshape(3)
        z = self.whiten @ (target - self.mean0)
        d2 = float(z @ z)
        limit = 0.5 * self.threshold
        if d2 > limit:  # keep within reach of the first-frame colour
            target = self.mean0 + (target - self.mean0) * np.sqrt(limit / d2)
        self.mean = target if target.dtype == np.float32 else target.astype(np.float32)

    def similar(self, other: "ColorModel") -> bool:
        """True when the two colours are indistinguishable (each mean inside the other's threshold)."""
        a = self.whiten @ (other.mean - self.mean)
        b = other.whiten @ (self.mean - other.mean)
        return float(a @ a) < self.threshold or float(b @ b) < other.threshold


def _trimmed_fit(pixels: np.ndarray, iters: int = 4) -> ColorModel:
    """Robust Gaussian fit: refit on the pixels within the 99% ellipsoid, a few times."""
    keep = pixels
    med = np.median(pixels, 0)
    # start from the pixels nearest the median so a marker cannot pull the first fit
    d = np.abs(pixels - med).sum(1)
    keep = pixels[d <= np.quantile(d, 0.6)] if len(pixels) > 20 else pixels
    model = ColorModel.fit(keep)
    for _ in range(iters):
        d2 = model.distance2(pixels)
        sel = pixels[d2 < 11.3]
        if len(sel) < 5:
            break
        model = ColorModel.fit(sel)
    return model


def background_sample(feat: np.ndarray, exclude: list[tuple[int, int, int, int]], n: int = 6000) -> np.ndarray:
    """About ``n`` feature pixels ``[M, 3]`` on a grid over the frame outside the ``exclude`` boxes
    (``x0, y0, x1, y1`` end-exclusive)."""
    h, w = feat.shape[:2]
    keep = np.ones((h, w), bool)
    for x0, y0, x1, y1 in exclude:
        keep[max(0, y0):max(0, y1), max(0, x0):max(0, x1)] = False
    step = max(1, int(np.sqrt(keep.sum() / max(n, 1))))
    sub = feat[::step, ::step][keep[::step, ::step]]
    return sub.reshape(-1, 3)


@dataclass
class Learned:
    """What :func:`learn_from_box` found: the model, the object's blob (frame coordinates)."""

    model: ColorModel
    mask: np.ndarray  # uint8 0/1 blob, holes filled, in the search region (the box grown by 25%)
    origin: tuple[int, int]  # (x0, y0) of ``mask`` in the frame
    area: float
    centroid: tuple[float, float]
    bbox: tuple[int, int, int, int]  # inclusive pixel extremes x0, y0, x1, y1 in the frame


class NotFound(Exception):
    """The requested object could not be found in the frame."""



def chroma_distance(feat: np.ndarray, color: np.ndarray) -> np.ndarray:
    """Distance ``[...]`` between the chroma ratios of ``feat`` ``[..., 3]`` and ``color`` ``[3]``
    (brightness ignored: a case's colour says nothing of shading)."""
    d = feat[..., 1:] - color[1:]
    return np.sqrt((d * d).sum(-1))


def hint_tolerance(hint: np.ndarray, background: np.ndarray, quantile: float = 0.002) -> float:
    """How far (chroma units) a pixel may be from a case colour and still count as it: at most
    :data:`HINT_TOLERANCE`, and under half-way to the closest background colour (the
    ``quantile`` of the background sample's distances; raise it when the sample may contain
    the objects themselves)."""
    if len(background) == 0:
        return HINT_TOLERANCE
    near_bg = float(np.quantile(chroma_distance(background, hint), quantile))
    return min(HINT_TOLERANCE, 0.5 * near_bg)


def learn_from_box(feat: np.ndarray, box: tuple[int, int, int, int], background: np.ndarray,
                   hint: np.ndarray | None = None, seed: np.ndarray | None = None) -> Learned:
    """Learn an object's colour from the blob in ``box``.

    The blob is the connected set of pixels near the ``hint`` colour with the most pixels in
    the box (it may spill past the box: a generated first frame can shift the object a
    little), with any other piece of that colour wholly inside the box (a ring split by its cut);
    without a hint, or if nothing is near it, the pixels of the box that differ from
    the colours of a ring around it. ``feat``: frame features ``[H, W, 3]``; ``box``:
    ``x0, y0, x1, y1`` (end-exclusive ints, frame pixels); ``background``: feature sample
    ``[M, 3]`` of the scene outside all objects (sets the threshold); ``hint``: optional
    feature colour ``[3]``; ``seed``: optional object mask ``[H, W]`` (a case's mask PNG at
    this resolution): its pixels are the blob. Raises :class:`NotFound`.

    The threshold comes from the separation of the object's colour from the background's: the
    nearest 2% of the background sample (a small patch of a similar colour elsewhere does not
    collapse it: search windows and motion gating keep such patches out).
    """
    h, w = feat.shape[:2]
    x0, y0, x1, y1 = (int(v) for v in box)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 - x0 < 1 or y1 - y0 < 1:
        raise NotFound("box outside the frame")
    pad = max(3, int(0.25 * max(x1 - x0, y1 - y0)))
    ox0, oy0, ox1, oy1 = max(0, x0 - pad), max(0, y0 - pad), min(w, x1 + pad), min(h, y1 + pad)
    region = feat[oy0:oy1, ox0:ox1]
    in_box = np.zeros(region.shape[:2], bool)
    in_box[y0 - oy0:y1 - oy0, x0 - ox0:x1 - ox0] = True
    min_px = max(4, int(0.02 * in_box.sum()))
    blob = None
    if seed is not None:
        blob = (seed[oy0:oy1, ox0:ox1] > 0).astype(np.uint8)
        if blob.sum() < min_px:
            raise NotFound("the mask is (nearly) empty")
    elif hint is not None:
        near = (chroma_distance(region, hint) < hint_tolerance(hint, background)).astype(np.uint8)
        blob = _component_in_box(near, in_box, min_px, pieces=True)
        if blob is not None and (blob > 0)[~in_box].sum() > 0.6 * (blob > 0)[in_box].sum():
            blob = None  # spills far past the box: the backdrop, not the object
    if blob is None:
        blob = _component_in_box(_differs_from_ring(region, in_box).astype(np.uint8), in_box, min_px)
        if blob is None:
            raise NotFound("nothing in the box differs from its surroundings")
        if hint is not None and np.median(chroma_distance(region[blob > 0], hint)) > 2 * HINT_TOLERANCE:
            raise NotFound("no blob of the expected colour in the box")
    model = _trimmed_fit(region[blob > 0])
    bg_d2 = model.distance2(background) if len(background) else np.array([np.inf])
    finite = np.isfinite(bg_d2).all()
    near_bg = float(np.quantile(bg_d2, BACKGROUND_QUANTILE)) if finite else float("inf")
    near_local = _local_separation(model, feat, (x0, y0, x1, y1), blob, (ox0, oy0))
    model.threshold = float(np.clip(THRESHOLD_FRACTION * min(near_local, near_bg), *THRESHOLD_RANGE))
    model.bg_d2 = float(np.quantile(bg_d2, 0.002)) if finite else float("inf")
    # the final blob: model pixels connected to the learned blob, holes filled (a mask is kept as given)
    m = None if seed is not None else _component_in_box(model.mask(region) | blob, in_box, 1, pieces=True)
    m = fill_holes(blob if m is None else m)
    if seed is None and (m > 0)[~in_box].sum() > 0.1 * (m > 0)[in_box].sum():
        m = _without_thin_runs(m, in_box, min(x1 - x0, y1 - y0))
    model.coverage = float(np.mean(model.distance2(region[blob > 0]) < model.threshold))
    ys, xs = np.nonzero(m)
    return Learned(model, m, (ox0, oy0), float(len(xs)), (float(xs.mean() + ox0), float(ys.mean() + oy0)),
                   (int(xs.min() + ox0), int(ys.min() + oy0), int(xs.max() + ox0), int(ys.max() + oy0)))


def _local_separation(model: "ColorModel", feat, box: tuple[int, int, int, int], blob: np.ndarray,
                      origin: tuple[int, int]) -> float:
    """Squared model distance of the nearest colours (:data:`LOCAL_QUANTILE`) around the object:
    the box grown by its own size on each side, less the box and the (dilated) blob. Inf when
    nothing surrounds it."""
    h, w = feat.shape[:2]
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    lx0, ly0, lx1, ly1 = max(0, x0 - bw), max(0, y0 - bh), min(w, x1 + bw), min(h, y1 + bh)
    keep = np.ones((ly1 - ly0, lx1 - lx0), bool)
    keep[y0 - ly0:y1 - ly0, x0 - lx0:x1 - lx0] = False
    grown = cv2.dilate(blob, _K3_SEG, iterations=2) > 0
    ox, oy = origin[0] - lx0, origin[1] - ly0
    gy, gx = np.nonzero(grown)
    inside = (gy + oy >= 0) & (gy + oy < keep.shape[0]) & (gx + ox >= 0) & (gx + ox < keep.shape[1])
    keep[gy[inside] + oy, gx[inside] + ox] = False
    if keep.sum() < 20:
        return float("inf")
    return float(np.quantile(model.distance2(feat[ly0:ly1, lx0:lx1][keep]), LOCAL_QUANTILE))


def _without_thin_runs(m: np.ndarray, in_box: np.ndarray, side: int) -> np.ndarray:
    """A blob that spills out of its box along a thin run (a string of its colour): opened with a
    disc a tenth of the box's side, its component in the box; ``m`` itself if nothing is left."""
    kept = _component_in_box(open_disc(m, max(1, int(0.1 * side))), in_box, max(4, int(0.02 * in_box.sum())))
    return m if kept is None else kept


def _component_in_box(mask: np.ndarray, in_box: np.ndarray, min_px: int, pieces: bool = False) -> np.ndarray | None:
    """The 8-connected component of ``mask`` with the most pixels inside ``in_box`` (at least
    ``min_px``), as a uint8 0/1 mask, else None. ``pieces``: with every other component wholly inside
    the box of at least :data:`PIECE_SHARE` of its pixels (an object its own cut or marker splits: a split
    ring's short side is the ring, not a look-alike of it)."""
    n, labels, stats, _ = components(mask.astype(np.uint8))
    if n <= 1:
        return None
    counts = np.bincount(labels[in_box], minlength=n)
    counts[0] = 0
    k = int(np.argmax(counts))
    if counts[k] < min_px:
        return None
    keep = [k]
    if pieces:
        keep += [j for j in range(1, n) if j != k and counts[j] == stats[j, 4]
                 and counts[j] >= max(min_px, PIECE_SHARE * counts[k])]
    return (np.isin(labels, keep) if len(keep) > 1 else labels == k).astype(np.uint8)


def _differs_from_ring(region: np.ndarray, in_box: np.ndarray) -> np.ndarray:
    """Pixels of the box ``[h, w]`` bool whose colour is far from every colour of the ring around it."""
    ring = region[~in_box]
    if len(ring) < 8:  # the box covers the frame: nothing to compare with
        return in_box.copy()
    ring = ring[:: max(1, len(ring) // 1500)]
    cents = _kcenters(ring, 8)
    d = np.sqrt(((region.reshape(-1, 1, 3) - cents[None]) ** 2).sum(-1)).min(1).reshape(in_box.shape)
    dr = np.sqrt(((ring[:, None, :] - cents[None]) ** 2).sum(-1)).min(1)
    tau = max(10.0, 2.5 * float(np.quantile(dr, 0.95)))
    return (d > tau) & in_box


def find_by_color(feat: np.ndarray, color: tuple[int, int, int], count: int = 1,
                  tolerance: float = 30.0) -> list[tuple[int, int, int, int]]:
    """Boxes (end-exclusive, padded) of the ``count`` largest blobs within ``tolerance`` (chroma
    units, see :func:`chroma_distance`) of RGB ``color`` in ``feat`` ``[H, W, 3]``, left to right."""
    hint = rgb_to_features(color)
    m = (chroma_distance(feat, hint) < tolerance).astype(np.uint8)
    m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, _, stats, _ = components(m)
    if n <= 1:
        return []
    order = 1 + np.argsort(-stats[1:, cv2.CC_STAT_AREA])
    out = []
    for k in order[:count]:
        x, y, bw, bh, area = stats[k]
        if area < 6:
            continue
        p = max(2, int(0.15 * max(bw, bh)))
        out.append((int(x - p), int(y - p), int(x + bw + p), int(y + bh + p)))
    return sorted(out)


def components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """8-connected components of a uint8 mask: ``(n, labels, stats, centroids)`` as
    ``cv2.connectedComponentsWithStats`` gives them; 16-bit labels (about twice as fast) when
    the mask is small enough that no labelling can overflow them."""
    if mask.size < 4 * 65535:  # isolated 8-connected pixels are at most a quarter of the mask
        return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_16U, cv2.CCL_SPAGHETTI)
    return cv2.connectedComponentsWithStats(mask, connectivity=8)


def open_disc(mask: np.ndarray, r: int) -> np.ndarray:
    """``mask`` (uint8 0/1, a crop) opened with a disc of radius ``r``: what is thinner than the disc goes. Pixels
    outside the crop are background (OpenCV's default border counts them as foreground, so a run along the crop's
    edge, as wide as the disc's radius, survived: studio drop seed 7001, a ball on a backdrop stripe of its colour
    that ran down its blob's edge, opened into one piece with it and lost)."""
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1,) * 2)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, disc, borderType=cv2.BORDER_CONSTANT, borderValue=0)


def fill_holes(mask: np.ndarray) -> np.ndarray:
    """``mask`` (uint8 0/1) with enclosed holes filled."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(mask)
    cv2.drawContours(out, contours, -1, 1, thickness=cv2.FILLED)
    return out


def _kcenters(x: np.ndarray, k: int) -> np.ndarray:
    """Greedy farthest-point centres of ``x`` ``[N, 3]`` (a cheap stand-in for k-means)."""
    x = np.asarray(x, np.float32)
    c = [x[len(x) // 2]]
    d = ((x - c[0]) ** 2).sum(1)
    for _ in range(1, min(k, len(x))):
        i = int(np.argmax(d))
        if d[i] < 1.0:
            break
        c.append(x[i])
        d = np.minimum(d, ((x - x[i]) ** 2).sum(1))
    return np.array(c, np.float32)
