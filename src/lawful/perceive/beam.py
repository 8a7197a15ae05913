"""Reading a beam: a thin line whose colour the region's background may share.

A ``line`` probe selects pixels nearer its colour than half-way to one background colour (the region's median
far from it: :mod:`lawful.perceive.regions`). Where part of the region is a surface of nearly the beam's hue (a
violet beam over a purple backdrop), that whole surface passes as beam and the line fit runs through it (studio
P17: 0° read for a 43° beam), and under blur so can the blend where it meets a white panel (a thin horizontal
"beam" along the panel's edge). The region's surfaces are what lies in *uniform* patches — pixels
whose :data:`WINDOW`-px neighbourhood varies by less than a beam running through it would — clustered by
colour, less any cluster that is itself one thin band (a thick beam's own core: :func:`surfaces`). A beam pixel
is nearer the beam's colour than every surface's (:func:`beam_selections`; in Lab, a blend of two surfaces lies
nearer one of them), tried where the plain selection is no beam: a thin band across the region (:func:`is_beam`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import NamedTuple

import cv2
import numpy as np
from scipy.cluster.vq import kmeans2

from lawful.perceive.lines import MIN_PIXELS, fit_line

WINDOW = 5  # px: side of the neighbourhood a surface pixel is uniform over
QUIET = 0.25  # a surface's window varies by at most this share of the beam's contrast (a beam's window: about half)
COLOURS = 4  # clusters of the uniform pixels' Lab colours (a panel, a two-tone backdrop, a floor)
SAMPLE = 4000  # at most this many uniform pixels clustered (an even stride over them)
BAND_SAMPLE = 150  # at most this many of a cluster's pixels tested for one band
LINE_FLOOR = 4.0  # px: a line's colour spreads over at least two 4:2:0 chroma samples and its edges' blur (a 1-px
# laser in studio P20 at 320x180 reads 4.7-5.4 px wide over 21-25 px)
SPAN = 0.5  # a beam's band runs over at least this share of its region's chord along it (else a fragment of it)


class Surfaces(NamedTuple):
    """A region's surface colours (Lab ``[k, 3]``) and which of them may be a thick beam's own core (``core`` ``[k]``)."""

    colours: np.ndarray
    core: np.ndarray


def beam_selections(sel: np.ndarray, lab_at: Callable[[tuple], np.ndarray], target: np.ndarray,
                    found: Surfaces | None) -> Iterator[np.ndarray]:
    """The selections to try in turn, the first that holds a beam winning: ``sel`` ``[H, W]`` itself (a beam's pixels
    blended with a surface of another hue stay in: a red beam over a green backdrop turns grey), then its pixels
    nearer the Lab ``target`` than every surface colour that is no beam's core, then (when some may be) than every
    one: a thick beam read whole first, then without a strip of a surface that looked like a core. ``lab_at``: the
    Lab ``[N, 3]`` of the pixels at ``np.nonzero`` indices, asked for only when ``sel`` itself is no beam;
    ``found``: the region's :func:`surfaces` (None: ``sel`` alone)."""
    yield sel
    if found is None:
        return
    at = np.nonzero(sel)
    lab = lab_at(at)
    d2 = ((lab - np.asarray(target, np.float32)) ** 2).sum(1)
    nearer = d2[:, None] < ((lab[:, None, :] - found.colours[None]) ** 2).sum(2)  # [N, k]
    tried = np.ones(len(lab), bool)
    for use in [~found.core] + ([np.ones(len(found.core), bool)] if found.core.any() else []):
        keep = nearer[:, use].all(1)
        if np.array_equal(keep, tried):
            continue  # no colour took a pixel the last try kept: nothing new to try
        tried = keep
        out = np.zeros_like(sel)
        out[at] = keep
        yield out


def surfaces(rgb: np.ndarray, lab: np.ndarray, mask: np.ndarray, thin: float, target: np.ndarray, reach: float,
             contrast: float) -> Surfaces | None:
    """:class:`Surfaces`: the Lab colours of the surfaces of the region ``mask`` (``rgb``, ``lab`` ``[H, W, 3]``) within ``reach``
    of the Lab ``target`` (a colour farther than twice a selection's radius about the target is farther from every
    selected pixel than the target is: it rejects none). Surfaces are the pixels whose :data:`WINDOW`-px
    neighbourhood lies in the region and varies (rms RGB distance from its mean) by at most :data:`QUIET` of the
    beam's RGB ``contrast`` with the background, or twice the region's median variation plus 1 where that is more:
    a window a beam runs through varies by about half the beam's contrast, a surface by its texture and noise.
    They are clustered into :data:`COLOURS` by k-means (fixed seed), clusters of fewer than
    :data:`~lawful.perceive.lines.MIN_PIXELS` sampled pixels left out; a cluster whose pixels mostly lie in one band
    as narrow as the core of a beam :func:`is_beam` takes (``thin`` of its length wide) may be that core, or a
    strip of a surface the region's outline cuts, or a blurred edge between two surfaces: both are tried
    (:func:`beam_selections`). None when none is left."""
    lab = np.nan_to_num(np.asarray(lab, np.float32))
    rgb = np.nan_to_num(np.asarray(rgb, np.float32))
    k = (WINDOW, WINDOW)
    mean = cv2.blur(rgb, k)
    spread = np.sqrt(np.maximum(cv2.blur(rgb * rgb, k) - mean * mean, 0).sum(2))
    inner = cv2.erode(mask.view(np.uint8), np.ones(k, np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
    if not inner.any():
        return None
    quiet = max(QUIET * contrast, 2.0 * float(np.median(spread[inner])) + 1.0)
    ys, xs = np.nonzero(inner & (spread <= quiet))
    step = max(1, len(xs) // SAMPLE)
    ys, xs = ys[::step], xs[::step]
    if len(xs) < COLOURS:
        return None
    with warnings.catch_warnings():  # fewer distinct colours than clusters (a flat fill) leaves some empty: harmless
        warnings.simplefilter("ignore")
        _, label = kmeans2(lab[ys, xs].astype(np.float64), COLOURS, minit="++", seed=0)
    colours, core = [], []
    for c in range(COLOURS):
        at = label == c
        colour = lab[ys[at], xs[at]].mean(0) if at.any() else None
        if at.sum() < MIN_PIXELS or np.linalg.norm(colour - target) >= reach:
            continue  # a speck (a beam's brightest pixels), not a surface; or too far to take a selected pixel
        colours.append(colour)
        pts = np.stack([xs[at], ys[at]], 1).astype(np.float32)
        got = fit_line(pts[:: max(1, len(pts) // BAND_SAMPLE)])
        core.append(got is not None and got[0]["n"] >= 0.5 * min(len(pts), BAND_SAMPLE)
                    and np.sqrt(12.0) * got[0]["rms"] <= _widest(thin, got, WINDOW - 1))
    return Surfaces(np.array(colours, np.float32), np.array(core, bool)) if colours else None


def is_beam(got, share: float, mask: np.ndarray) -> bool:
    """Whether a :func:`fit_line` result is a beam: a band (√12 · rms wide: a uniform band) no wider than ``share``
    of its length plus :data:`LINE_FLOOR`, running over at least :data:`SPAN` of the region ``mask``'s chord along
    the fitted line."""
    v = got[0]
    if np.sqrt(12.0) * v["rms"] > _widest(share, got):
        return False
    h, w = mask.shape
    t = np.arange(-float(h + w), float(h + w) + 1.0)  # 1-px steps along the line, past the region both ways
    x, y = np.rint(v["x"] + t * np.cos(v["angle"])).astype(int), np.rint(v["y"] + t * np.sin(v["angle"])).astype(int)
    on = (x >= 0) & (y >= 0) & (x < w) & (y < h)
    return bool(v["length"] >= SPAN * np.count_nonzero(mask[y[on], x[on]]))


def _widest(share: float, got, inset: float = 0.0) -> float:
    """Widest band (px) a beam of :func:`fit_line` result ``got``'s length can be: ``share`` of it plus
    :data:`LINE_FLOOR`, less ``inset`` (a beam's core, where a :data:`WINDOW`-px window fits inside it, is
    ``WINDOW - 1`` px narrower than the beam)."""
    return share * got[0]["length"] + LINE_FLOOR - inset
