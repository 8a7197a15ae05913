"""Fast colour segmentation of a case's objects, seeded by the case's first frame and instance map.

A :class:`ColourKey` learns a few colour centres per object (shading, markers) and for
everything else in the scene (backdrop, floor, ramps, annotations, white, orange arrows),
then classifies every colour of a 32×32×32 RGB grid once by its nearest centre in CIE Lab
(lightness weighted by one half, so shading matters less than hue). Classifying a frame is
then a table lookup: about 5 ms for 832×480 on one core.

Objects with (near) identical colours share a class; their pixels are split into connected
components and assigned to the nearest last-known position.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

BITS = 5
LEVELS = 1 << BITS
L_WEIGHT = 0.5
MAX_DISTANCE = 38.0  # Lab units; a colour farther from every centre counts as background
OBJECT_BIAS = 1.25
EXTRA_BACKGROUND = np.array([[255, 255, 255], [0, 0, 0], [255, 140, 0]], np.uint8)


def _lab(rgb: np.ndarray) -> np.ndarray:
    """CIE Lab (L in 0-100) of uint8 RGB colours ``[..., 3]`` as float32."""
    a = np.asarray(rgb, np.float32).reshape(-1, 1, 3) / 255.0
    lab = cv2.cvtColor(a, cv2.COLOR_RGB2Lab).reshape(-1, 3)
    lab[:, 0] *= L_WEIGHT
    return lab


def _centres(pixels: np.ndarray, k: int, seed: int = 0) -> np.ndarray:
    """Up to ``k`` k-means centres (uint8 RGB) of ``pixels [M, 3]``."""
    pixels = np.asarray(pixels, np.float32).reshape(-1, 3)
    if len(pixels) == 0:
        return np.zeros((0, 3), np.uint8)
    k = int(min(k, len(pixels)))
    if len(pixels) > 4000:
        idx = np.random.default_rng(seed).choice(len(pixels), 4000, replace=False)
        pixels = pixels[idx]
    cv2.setRNGSeed(seed)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    _, _, centres = cv2.kmeans(pixels, k, None, crit, 2, cv2.KMEANS_PP_CENTERS)
    return np.clip(np.round(centres), 0, 255).astype(np.uint8)


def lut_index(img: np.ndarray) -> np.ndarray:
    """Index of each pixel's colour cell in the 32³ grid (``uint16 [H, W]``)."""
    s = 8 - BITS
    r = (img[..., 0] >> s).astype(np.uint16)
    g = (img[..., 1] >> s).astype(np.uint16)
    b = (img[..., 2] >> s).astype(np.uint16)
    return (r << (2 * BITS)) | (g << BITS) | b


@dataclass
class ObjectSeed:
    """What the key knows of one object from the first frame: mask area and centroid (px)."""

    area: float
    centroid: tuple[float, float]


class ColourKey:
    """Nearest-colour classifier for one case (see module docstring).

    ``n_objects`` objects with ids ``1..N`` as in the case's instance maps.
    """

    def __init__(self, first_frame: np.ndarray, instances: np.ndarray, extra_background: np.ndarray | None = None,
                 per_object: int = 6, background_k: int = 10):
        counts = np.bincount(np.asarray(instances).ravel().astype(np.int64))
        ids = [int(i) for i in np.flatnonzero(counts) if i != 0]
        self.ids = ids
        self.seeds: list[ObjectSeed] = []
        kernel = np.ones((3, 3), np.uint8)
        obj_centres, owners = [], []
        for oid in ids:
            m = (instances == oid).astype(np.uint8)
            mom = cv2.moments(m, binaryImage=True)
            area = float(mom["m00"])
            self.seeds.append(ObjectSeed(area, (mom["m10"] / max(area, 1), mom["m01"] / max(area, 1))))
            core = cv2.erode(m, kernel)
            if core.sum() < 0.6 * area:  # thin or small: keep its edge colours too
                core = m
            px = first_frame[core.astype(bool)]
            c = _centres(px if len(px) else first_frame[m.astype(bool)], per_object, seed=oid)
            obj_centres.append(c)
            owners += [oid] * len(c)
        near = cv2.dilate((instances > 0).astype(np.uint8), kernel, iterations=2).astype(bool)
        bg_px = first_frame[~near]
        bg = [_centres(bg_px, background_k, seed=99), EXTRA_BACKGROUND]
        if extra_background is not None and len(extra_background):
            bg.append(np.asarray(extra_background, np.uint8).reshape(-1, 3))
        bg_centres = np.concatenate(bg, 0)
        centres = np.concatenate(obj_centres + [bg_centres], 0) if obj_centres else bg_centres
        owner = np.array(owners + [0] * len(bg_centres), np.int32)
        # Objects whose colours are nearly the same share a class (split later by components).
        means = [_lab(c).mean(0) for c in obj_centres]
        self.cls_of = {}
        self.groups: list[list[int]] = []
        for oid, mu in zip(ids, means):
            for gi, g in enumerate(self.groups):
                if np.linalg.norm(means[ids.index(g[0])] - mu) < 8.0:
                    g.append(oid)
                    self.cls_of[oid] = gi + 1
                    break
            else:
                self.groups.append([oid])
                self.cls_of[oid] = len(self.groups)
        cls = np.array([0 if o == 0 else self.cls_of[int(o)] for o in owner], np.uint8)
        grid = (np.arange(LEVELS, dtype=np.float32) * (256 / LEVELS) + 128 / LEVELS).astype(np.uint8)
        rr, gg, bb = np.meshgrid(grid, grid, grid, indexing="ij")
        cells = _lab(np.stack([rr, gg, bb], -1).reshape(-1, 3))
        cl = _lab(centres)
        d2 = ((cells[:, None, :] - cl[None, :, :]) ** 2).sum(-1)
        d2[:, owner > 0] /= OBJECT_BIAS**2  # favour objects at the margin: blends at a boundary join the object
        nearest = d2.argmin(1)
        lut = cls[nearest]
        lut[d2[np.arange(len(cells)), nearest] > MAX_DISTANCE**2] = 0
        self.lut = lut.astype(np.uint8)
        # Soft membership for sub-pixel centroids: in RGB a blend of an object colour and a background
        # colour with coverage a lies at distances (1 - a) D and a D from them, so d_bg / (d_obj + d_bg) = a.
        cells_rgb = np.stack([rr, gg, bb], -1).reshape(-1, 3).astype(np.float32)
        c_rgb = centres.astype(np.float32)
        dr = np.sqrt(((cells_rgb[:, None, :] - c_rgb[None, :, :]) ** 2).sum(-1))
        self.soft = np.zeros((len(self.groups) + 1, len(cells_rgb)), np.float32)
        d_bg = dr[:, owner == 0].min(1)
        for gi in range(len(self.groups)):
            sel = np.isin(owner, [o for o in self.groups[gi]])
            d_obj = dr[:, sel].min(1)
            self.soft[gi + 1] = d_bg / np.maximum(d_obj + d_bg, 1e-6)

    @property
    def n_objects(self) -> int:
        return len(self.ids)

    def classes(self, img: np.ndarray, idx: np.ndarray | None = None) -> np.ndarray:
        """Class per pixel ``uint8 [H, W]`` (0 background, else a colour group)."""
        return np.take(self.lut, lut_index(img) if idx is None else idx)

    def masks(self, img: np.ndarray, last: list[tuple[float, float] | None] | None = None,
              fill_convex: bool = False, exclude: np.ndarray | None = None) -> list[np.ndarray]:
        """One ``bool [H, W]`` mask per object (in ``ids`` order).

        Specks under 5 % of the object's first-frame area are dropped; ``fill_convex`` fills each
        object's convex hull (objects are convex solids; this closes gaps cut by arrows drawn over them);
        ``exclude`` marks pixels that belong to no object (e.g. detected arrows).
        """
        return self.segment(img, last, fill_convex, exclude)[0]

    def segment(self, img: np.ndarray, last: list[tuple[float, float] | None] | None = None,
                fill_convex: bool = False, exclude: np.ndarray | None = None,
                centroids: bool = False) -> tuple[list[np.ndarray], list[tuple[float, float] | None]]:
        """Masks as :meth:`masks`, and (``centroids=True``) each object's sub-pixel centroid.

        The centroid weighs the mask grown by one pixel with the colour coverage of each pixel
        (see ``soft``), so it moves smoothly as an object crosses pixel boundaries.
        """
        idx = lut_index(img)
        cls = np.take(self.lut, idx)
        if exclude is not None:
            cls[exclude] = 0
        h, w = cls.shape
        out: list[np.ndarray] = [np.zeros((h, w), bool) for _ in self.ids]
        cents_out: list[tuple[float, float] | None] = [None] * len(self.ids)
        for gi, group in enumerate(self.groups):
            m = (cls == gi + 1).view(np.uint8)
            x0, y0, bw, bh = cv2.boundingRect(m)
            if bw == 0:
                continue
            n, lab, stats, cents = cv2.connectedComponentsWithStats(m[y0:y0 + bh, x0:x0 + bw], connectivity=8)
            min_area = max(3.0, 0.05 * min(self.seeds[self.ids.index(o)].area for o in group))
            keep = [j for j in range(1, n) if stats[j, cv2.CC_STAT_AREA] >= min_area]
            if len(group) == 1:
                comps = {group[0]: keep}
            else:
                comps = {o: [] for o in group}
                for j in keep:
                    def dist(o):
                        p = (last[self.ids.index(o)] if last and last[self.ids.index(o)] is not None
                             else self.seeds[self.ids.index(o)].centroid)
                        return (cents[j][0] + x0 - p[0]) ** 2 + (cents[j][1] + y0 - p[1]) ** 2
                    comps[min(group, key=dist)].append(j)
            for o, js in comps.items():
                if not js:
                    continue
                k = self.ids.index(o)
                sub = np.isin(lab, js) if len(js) > 1 else lab == js[0]
                mo = out[k]
                mo[y0:y0 + bh, x0:x0 + bw] = sub
                if fill_convex:
                    hull = cv2.convexHull(cv2.findNonZero(mo.view(np.uint8)))
                    filled = np.zeros((h, w), np.uint8)
                    cv2.fillConvexPoly(filled, hull, 1)
                    mo |= filled.view(bool)
                if centroids:
                    cents_out[k] = self._soft_centroid(o, mo, idx)
        return out, cents_out

    def _soft_centroid(self, oid: int, mask: np.ndarray, idx: np.ndarray) -> tuple[float, float] | None:
        x0, y0, bw, bh = cv2.boundingRect(mask.view(np.uint8))
        if bw == 0:
            return None
        H, W = mask.shape
        x0, y0 = max(x0 - 1, 0), max(y0 - 1, 0)
        x1, y1 = min(x0 + bw + 2, W), min(y0 + bh + 2, H)
        m = mask[y0:y1, x0:x1]
        grown = cv2.dilate(m.view(np.uint8), np.ones((3, 3), np.uint8)).view(bool)
        ii = idx[y0:y1, x0:x1]
        wgt = np.take(self.soft[self.cls_of[oid]], ii) * (grown & (m | (np.take(self.lut, ii) == 0)))
        tot = float(wgt.sum())
        if tot <= 0:
            return centroid(mask)
        ys, xs = np.mgrid[y0:y1, x0:x1]
        return float((wgt * xs).sum() / tot), float((wgt * ys).sum() / tot)


def soft_centroids(key: "ColourKey", img: np.ndarray, masks: list[np.ndarray]) -> list[tuple[float, float] | None]:
    """Sub-pixel centroids of given object masks (see :meth:`ColourKey.segment`)."""
    idx = lut_index(img)
    return [key._soft_centroid(oid, m, idx) if m.any() else None for oid, m in zip(key.ids, masks)]


def centroid(mask: np.ndarray) -> tuple[float, float] | None:
    """Centroid ``(x, y)`` in pixels of a binary mask, None if empty."""
    mom = cv2.moments(mask.astype(np.uint8), binaryImage=True)
    if mom["m00"] == 0:
        return None
    return mom["m10"] / mom["m00"], mom["m01"] / mom["m00"]
