"""What a video's first frame says of the case's objects: their colour models, look-alikes and colour groups.

:func:`learn_objects` learns each object's colour from the first frame inside its case box or mask (or, with a
colour alone, the largest blobs of it), tightened so that no background patch of a near colour elsewhere falls
inside it (:func:`_keep_out_patches`); :func:`lookalikes` finds blobs shaped and coloured like an object that
belong to none (followed as rivals, so that identity comes from motion); :func:`colour_groups` puts objects whose
colours cannot be told apart in one group. Used by :func:`lawful.perceive.track.track` on the first frame.
"""

from __future__ import annotations

import cv2
import numpy as np

from lawful.case import Case, ObjectSpec
from lawful.perceive.objects import Tracked, moments2, spreads
from lawful.perceive.segment import (
    THRESHOLD_FRACTION,
    FrameFeatures,
    NotFound,
    background_sample,
    components,
    find_by_color,
    hint_tolerance,
    learn_from_box,
    rgb_to_features,
)

CONVEX_SHAPES = {"sphere", "block", "cylinder", "hollow_cylinder", "cone", "bob"}
WEAK_COVERAGE = 0.8  # an object whose colour model holds less of its own pixels: by contrast where colour fails
PATCH_SHARE = 0.5  # a background patch this share of an object's diameter across can be taken for (part of) it
OWN_QUANTILE = 0.9  # the colour threshold never drops below this quantile of the object's own pixels


class ObjectNotFound(Exception):
    """An object of the case cannot be found in the video's first frame."""

    def __init__(self, object_id: str, detail: str = ""):
        self.object_id = object_id
        self.detail = detail
        super().__init__(f"object '{object_id}' not found in the first frame" + (f" ({detail})" if detail else ""))


def _case_box_to_frame(box, sx: float, sy: float, w: int, h: int) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = box
    return (max(0, int(np.floor(x0 / sx))), max(0, int(np.floor(y0 / sy))),
            min(w, int(np.ceil((x1 + 1) / sx))), min(h, int(np.ceil((y1 + 1) / sy))))


def _read_mask(case: Case, spec: ObjectSpec, w: int, h: int) -> np.ndarray | None:
    """The object's mask PNG (white = object) at tracking resolution ``w x h``, or None."""
    if spec.mask is None or not case.resolve(spec.mask).exists():
        return None
    m = cv2.imread(str(case.resolve(spec.mask)), cv2.IMREAD_GRAYSCALE)
    if m is None or not (m > 127).any():
        return None
    return (cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA) > 127).astype(np.uint8)


def learn_objects(feat: FrameFeatures, rgb: np.ndarray, case: Case, sx: float, sy: float) -> list[Tracked]:
    """Learn every object's colour model from the first frame (tracking resolution); a mask PNG
    seeds the model with its pixels, a box with the blob it holds."""
    h, w = feat.shape[:2]
    boxes: dict[str, tuple[int, int, int, int]] = {}
    masks: dict[str, np.ndarray] = {}
    for spec in case.objects:
        m = _read_mask(case, spec, w, h)
        if m is not None:
            masks[spec.id] = m
            ys, xs = np.nonzero(m)
            boxes[spec.id] = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
        elif spec.box is not None:
            boxes[spec.id] = _case_box_to_frame(spec.box, sx, sy, w, h)
    # colour-only objects: the largest blobs of that colour, assigned left to right
    by_color: dict[tuple, list[ObjectSpec]] = {}
    for spec in case.objects:
        if spec.id not in boxes:
            if spec.color is None:
                raise ObjectNotFound(spec.id, "no box, no colour and no readable mask")
            by_color.setdefault(tuple(spec.color), []).append(spec)
    if by_color:
        everything = background_sample(feat, list(boxes.values()))
    for color, specs in by_color.items():
        # the sample holds these objects too: ignore its nearest 5% (objects are small)
        tol = hint_tolerance(rgb_to_features(color), everything, quantile=0.05)
        found = find_by_color(feat.full, color, count=len(specs), tolerance=tol)
        for spec, b in zip(specs, found):
            boxes[spec.id] = b
        for spec in specs[len(found):]:
            raise ObjectNotFound(spec.id, "no blob of its colour")
    background = background_sample(feat, list(boxes.values()))
    objs = []
    for j, spec in enumerate(case.objects):
        hint = rgb_to_features(spec.color) if spec.color is not None else None
        try:
            got = learn_from_box(feat, boxes[spec.id], background, hint, seed=masks.get(spec.id))
        except NotFound as e:
            raise ObjectNotFound(spec.id, str(e)) from None
        x0, y0, x1, y1 = got.bbox
        o = Tracked(spec, j, got.model, spec.shape in CONVEX_SHAPES, (float(got.centroid[0]), float(got.centroid[1])))
        o.size = (float(x1 - x0 + 1), float(y1 - y0 + 1))
        o.ref_area = got.area
        o.diam = float(min(o.size))
        o.major, o.minor = spreads(got.mask)
        o.own = moments2(got.mask)
        ox, oy = got.origin
        crop = rgb[oy:oy + got.mask.shape[0], ox:ox + got.mask.shape[1]]
        o.rgb = tuple(cv2.mean(np.ascontiguousarray(crop), mask=got.mask)[:3])
        o.weak = got.model.coverage < WEAK_COVERAGE
        bx0, by0, bx1, by1 = boxes[spec.id]
        o.rim = float(min(max(0, x0 - bx0, y0 - by0, bx1 - 1 - x1, by1 - 1 - y1), max(o.size)))
        if o.weak:  # where the background is hidden in the first frame: the case's box and the blob learned in it
            o.last_box = (min(bx0, x0), min(by0, y0), max(bx1 - 1, x1), max(by1 - 1, y1))
        else:
            _keep_out_patches(o, got, feat, boxes.values())
        objs.append(o)
    return objs


def _keep_out_patches(o: Tracked, got, feat: FrameFeatures, boxes) -> None:
    """Tighten ``o``'s colour threshold so that no background patch of the first frame at least
    :data:`PATCH_SHARE` of its diameter across falls inside it.

    The learned threshold sits past halfway to the colours around the object and to those that cover
    a tenth of the frame; a patch of a near colour elsewhere (a floor tile the object will fall
    onto) may lie inside it, and merge with the object or be taken for it when it is lost at a bounce.
    The nearest such patch is the least, over the frame, of the largest model distance within a
    ``k x k`` window (``k`` = that share of the diameter); objects' boxes, grown by half their size, are
    left out. The same rule as the learned threshold (:data:`THRESHOLD_FRACTION` of the squared
    distance) applies to it, but never below the object's own pixels' spread
    (:data:`OWN_QUANTILE`; a shaded 3-D object spreads widely); a patch within that spread (a
    look-alike of the object's very colour) cannot be kept out by colour, and is left to motion gating
    and look-alike tracking.
    """
    full = feat.full
    h, w = full.shape[:2]
    o.first_d2 = o.model.distance2(full)  # float32; :func:`_decoys` masks it with the final threshold
    d2 = o.first_d2.copy()
    for x0, y0, x1, y1 in boxes:
        px, py = (x1 - x0) // 2 + 1, (y1 - y0) // 2 + 1
        d2[max(0, y0 - py):min(h, y1 + py), max(0, x0 - px):min(w, x1 + px)] = np.float32(1e9)
    k = max(3, int(round(PATCH_SHARE * o.diam)))
    near = float(cv2.dilate(d2, np.ones((k, k), np.uint8)).min())
    ox, oy = got.origin
    own = o.model.distance2(full[oy:oy + got.mask.shape[0], ox:ox + got.mask.shape[1]][got.mask > 0])
    floor = float(np.quantile(own, OWN_QUANTILE)) if own.size else o.model.threshold
    tight = max(THRESHOLD_FRACTION * near, floor)
    if tight < min(near, o.model.threshold):
        o.model.threshold = tight


MAX_DECOYS = 4  # look-alikes followed per object
DECOY_SHAPE = (0.6, 1.6)  # a look-alike's spreads across / along its axis, relative to the object's
# a look-alike's area under the object's colour model, relative to the object's: one lit otherwise (a highlight, a
# dark rim) shows a ring of a third of it (studio drop seed 7000: 60 of 170 px)
DECOY_AREA = (0.25, 2.5)


def lookalikes(objs: list[Tracked], feat: FrameFeatures) -> list[Tracked]:
    """Look-alikes in the first frame: blobs of an object's colour, about its area (:data:`DECOY_AREA`) and its
    shape (:data:`DECOY_SHAPE`) that belong to no object of the case. Each is followed like an object of the same colour group, so that
    when the object passes or lands beside it, association has a rival and the object's identity
    comes from motion instead of the nearest same-coloured blob. They are left out of the tracks."""
    import copy

    out: list[Tracked] = []
    for o in objs:
        if o.weak:
            continue
        d2, o.first_d2 = o.first_d2, None
        n, labels, stats, cents = components(np.less(d2 if d2 is not None else o.model.distance2(feat.full),
                                                     o.model.threshold).view(np.uint8))
        found = 0
        for k in np.argsort(-stats[1:, 4]) + 1 if n > 1 else []:
            x, y, bw, bh, area = (int(v) for v in stats[k])
            cx, cy = float(cents[k][0]), float(cents[k][1])
            if not DECOY_AREA[0] * o.ref_area <= area <= DECOY_AREA[1] * o.ref_area:
                continue
            major, minor = spreads((labels[y:y + bh, x:x + bw] == k).view(np.uint8))
            if not (DECOY_SHAPE[0] * o.minor <= minor <= DECOY_SHAPE[1] * o.minor and major <= DECOY_SHAPE[1] * o.major):
                continue  # not shaped like the object: a stripe or patch of a surface of its colour
            if any(x - 0.5 * p.size[0] <= p.pos[0] <= x + bw + 0.5 * p.size[0]
                   and y - 0.5 * p.size[1] <= p.pos[1] <= y + bh + 0.5 * p.size[1] for p in objs + out):
                continue  # touches an object of the case (its string, its shadow) or a look-alike already taken
            spec = ObjectSpec(id=f"~lookalike-{len(objs) + len(out)}", shape=o.spec.shape,
                              box=(float(x), float(y), float(x + bw), float(y + bh)))
            d = Tracked(spec, len(objs) + len(out), copy.deepcopy(o.model), o.convex, (cx, cy))
            d.size, d.ref_area, d.diam, d.rgb = (float(bw), float(bh)), float(area), float(min(bw, bh)), o.rgb
            d.major, d.minor, d.own = o.major, o.minor, o.own
            out.append(d)
            found += 1
            if found >= MAX_DECOYS:
                break
    return out


def colour_groups(objs: list[Tracked]) -> list[list[Tracked]]:
    """Objects whose colours cannot be told apart share a group (identity then comes from
    motion); an object its colour model holds only in part (:attr:`Tracked.weak`) is a group of its own."""
    groups: list[list[Tracked]] = []
    for o in objs:
        for g in groups:
            if not o.weak and not g[0].weak and any(o.model.similar(p.model) for p in g):
                g.append(o)
                break
        else:
            groups.append([o])
    return groups
