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
EXTRA_BACKGROUND = np.array([[255, 255, 255], [0, 0, 0], [255, 140, 0], [128, 128, 128]], np.uint8)


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
                 per_object: int = 4, background_k: int = 10):
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
            core = cv2.erode(m, kernel) if area > 30 else m
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
        nearest = d2.argmin(1)
        lut = cls[nearest]
        lut[d2[np.arange(len(cells)), nearest] > MAX_DISTANCE**2] = 0
        self.lut = lut.astype(np.uint8)

    @property
    def n_objects(self) -> int:
        return len(self.ids)

    def classes(self, img: np.ndarray) -> np.ndarray:
        """Class per pixel ``uint8 [H, W]`` (0 background, else a colour group)."""
        return self.lut[lut_index(img)]

    def masks(self, img: np.ndarray, last: list[tuple[float, float] | None] | None = None,
              fill_convex: bool = False) -> list[np.ndarray]:
        """One ``bool [H, W]`` mask per object (in ``ids`` order).

        Specks under 5 % of the object's first-frame area are dropped; ``fill_convex`` fills each
        object's convex hull (objects are convex solids; this closes gaps cut by arrows drawn over them).
        """
        cls = self.classes(img)
        out: list[np.ndarray] = [np.zeros(cls.shape, bool) for _ in self.ids]
        for gi, group in enumerate(self.groups):
            m = (cls == gi + 1).astype(np.uint8)
            if not m.any():
                continue
            n, lab, stats, cents = cv2.connectedComponentsWithStats(m, connectivity=8)
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
                        return (cents[j][0] - p[0]) ** 2 + (cents[j][1] - p[1]) ** 2
                    comps[min(group, key=dist)].append(j)
            for o, js in comps.items():
                if not js:
                    continue
                mo = np.isin(lab, js) if len(js) > 1 else lab == js[0]
                if fill_convex:
                    pts = cv2.findNonZero(mo.astype(np.uint8))
                    hull = cv2.convexHull(pts)
                    filled = np.zeros(cls.shape, np.uint8)
                    cv2.fillConvexPoly(filled, hull, 1)
                    mo = filled.astype(bool) | mo
                out[self.ids.index(o)] = mo
        return out


def centroid(mask: np.ndarray) -> tuple[float, float] | None:
    """Centroid ``(x, y)`` in pixels of a binary mask, None if empty."""
    mom = cv2.moments(mask.astype(np.uint8), binaryImage=True)
    if mom["m00"] == 0:
        return None
    return mom["m10"] / mom["m00"], mom["m01"] / mom["m00"]
