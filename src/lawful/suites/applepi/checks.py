"""Objective checks of the five subtracks, measured in pixels against the case's references.

Every check returns a value in [0, 1] (1 = matches the reference) or ``-1`` when it does not
apply to the case (the release's "not applicable"). Images are ``uint8 [H, W, 3]`` RGB at the
case's resolution.

Check names (subtrack → checks):

- perception_text: ``white_background``, ``annotation_layout_f1``, ``objects_removed_px``, ``label_values_ocr``
- perception_graphic: ``white_background``, ``annotations_removed_px``, ``object_appearance_psnr``,
  ``segmentation_iou`` (seed), ``object_position_accuracy``
- formulation_text: ``white_background``, ``three_text_lines``, ``option_letter_ocr``, ``formula_text_ocr``,
  ``substitution_text_ocr``
- formulation_graphic: ``annotations_removed_px``, ``segmentation_iou`` (seed), ``object_position_accuracy``,
  ``orange_arrow_present``, ``arrow_origin``, ``arrow_direction``, ``velocity_values_ocr``
- deduction: ``psnr``, ``masked_psnr``, ``spatial_iou``, ``spatiotemporal_iou``, ``weighted_spatial_iou``,
  ``velocity_accuracy`` (all seed, E.2), ``annotations_removed_px``, ``object_presence``

``*_ocr`` checks exist only when the Tesseract engine is installed and OCR is enabled.
"""

from __future__ import annotations

import difflib
import math
import re

import cv2
import numpy as np

from lawful.score import applepi as F
from lawful.suites.applepi import ocr as ocr_mod
from lawful.suites.applepi.dataset import DatasetError, GTCase
from lawful.suites.applepi.predictions import DeductionFrames
from lawful.suites.applepi.segment import centroid

NA = -1.0
NEAR_WHITE = 235
REF_WHITE = 250
INK_LEVEL = 200
DISTINCT = 60  # an annotation pixel counts only where annotated and clean colours differ by this much


def _na(x: float) -> float:
    return NA if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


# --- generic pixel checks ------------------------------------------------------------------
def _erode(mask: np.ndarray, px: int) -> np.ndarray:
    if px <= 0:
        return mask
    k = np.ones((2 * px + 1, 2 * px + 1), np.uint8)
    return cv2.erode(mask.astype(np.uint8), k).astype(bool)


def white_background(gen: np.ndarray, reference: np.ndarray) -> float:
    """Fraction of the reference's white area (eroded by ~0.6 % of the size) that is near-white in ``gen``."""
    region = _erode(_all_channels(reference, REF_WHITE), max(1, round(min(reference.shape[:2]) / 160)))
    if not region.any():
        return NA
    return float(_all_channels(gen, NEAR_WHITE)[region].mean())


def _all_channels(img: np.ndarray, level: int) -> np.ndarray:
    """``(img >= level).all(-1)``, channel by channel (numpy's reduction over a last axis of 3 is slow)."""
    return (img[..., 0] >= level) & (img[..., 1] >= level) & (img[..., 2] >= level)


def ink(img: np.ndarray) -> np.ndarray:
    """Non-white content: dark or coloured pixels."""
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    lo, hi = np.minimum(np.minimum(r, g), b), np.maximum(np.maximum(r, g), b)
    return (lo < INK_LEVEL) | ((hi - lo) > 60)  # hi >= lo: no wrap-around in uint8


def ink_f1(gen_ink: np.ndarray, ref_ink: np.ndarray, tol: float) -> float:
    """F1 of content pixels within ``tol`` px of the other image's content (1 if both empty)."""
    if not gen_ink.any() and not ref_ink.any():
        return 1.0
    if not gen_ink.any() or not ref_ink.any():
        return 0.0
    d_ref = cv2.distanceTransform((~ref_ink).astype(np.uint8), cv2.DIST_L2, 3)
    d_gen = cv2.distanceTransform((~gen_ink).astype(np.uint8), cv2.DIST_L2, 3)
    precision = float((d_ref[gen_ink] <= tol).mean())
    recall = float((d_gen[ref_ink] <= tol).mean())
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def removed_fraction(gen: np.ndarray, before: np.ndarray, after: np.ndarray, region: np.ndarray) -> float:
    """Of the ``region`` pixels where ``before`` and ``after`` differ clearly, the fraction where ``gen``
    is closer to ``after`` (the thing was removed) than to ``before`` (it is left over)."""
    idx = np.flatnonzero(region)
    if idx.size == 0:
        return NA
    b, a, g = (x.reshape(-1, 3)[idx].astype(np.int32) for x in (before, after, gen))
    distinct = np.abs(b - a).max(-1) > DISTINCT
    if not distinct.any():
        return NA
    b, a, g = b[distinct], a[distinct], g[distinct]
    return float((((g - a) ** 2).sum(-1) <= ((g - b) ** 2).sum(-1)).mean())


def object_positions(gen_masks: list[np.ndarray], gt_inst: np.ndarray, ids: list[int]) -> float:
    """Mean over objects of ``1 / (1 + e / d)``, ``e`` the centroid error and ``d`` the GT equivalent diameter.

    A missing object scores 0; objects absent from the GT map are skipped (``-1`` if none remain).
    """
    scores = []
    for m, oid in zip(gen_masks, ids):
        g = gt_inst == oid
        area = float(g.sum())
        if area == 0:
            continue
        cg, cm = centroid(g), centroid(m)
        if cm is None:
            scores.append(0.0)
            continue
        d = 2 * math.sqrt(area / math.pi)
        scores.append(F.q_relative(math.hypot(cm[0] - cg[0], cm[1] - cg[1]), d))
    return float(np.mean(scores)) if scores else NA


def orange_mask(img: np.ndarray) -> np.ndarray:
    """Saturated orange pixels (hue 16-44 degrees), the colour of target-time velocity arrows."""
    hsv = cv2.cvtColor(img, cv2.COLOR_RGB2HSV)
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    return (h >= 8) & (h <= 22) & (s >= 120) & (v >= 120)


def _arrows(mask: np.ndarray) -> list[np.ndarray]:
    """Pixel coordinates ``[M, 2]`` (x, y) of each orange component of at least 6 pixels."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    out = []
    for j in range(1, n):
        if stats[j, cv2.CC_STAT_AREA] >= 6:
            ys, xs = np.nonzero(lab == j)
            out.append(np.stack([xs, ys], 1).astype(float))
    return out


def _nearest_arrow(arrows: list[np.ndarray], c: np.ndarray) -> tuple[np.ndarray | None, float]:
    best, dist = None, math.inf
    for a in arrows:
        d = float(np.min(np.hypot(a[:, 0] - c[0], a[:, 1] - c[1])))
        if d < dist:
            best, dist = a, d
    return best, dist


def arrow_checks(gen: np.ndarray, reference: np.ndarray, gen_masks: list[np.ndarray], gt_inst: np.ndarray,
                 ids: list[int]) -> dict[str, float]:
    """Orange arrows against the target-time reference's arrows.

    For an object whose reference shows an arrow: present (an orange component starts within one
    equivalent diameter of the object's centre), origin ``1 / (1 + e / r)`` with ``e`` the distance
    from the object's centre to the arrow, direction ``(1 + cos Δ) / 2`` with the tip the arrow pixel
    farthest from the centre. For an object shown without an arrow, all three are 1 when none is
    drawn from it and 0 otherwise.
    """
    ref_arrows, gen_arrows = _arrows(orange_mask(reference)), _arrows(orange_mask(gen))
    present, origin, direction = [], [], []
    for m, oid in zip(gen_masks, ids):
        g = gt_inst == oid
        area = float(g.sum())
        if area == 0:
            continue
        d = 2 * math.sqrt(area / math.pi)
        cg = np.array(centroid(g))
        ra, rdist = _nearest_arrow(ref_arrows, cg)
        cm = centroid(m)
        c = np.array(cm) if cm is not None else cg
        ga, gdist = _nearest_arrow(gen_arrows, c)
        has_ref = ra is not None and rdist <= 0.5 * d
        has_gen = ga is not None and gdist <= d
        if not has_ref:
            v = 0.0 if has_gen and gdist <= 0.5 * d else 1.0
            present.append(v), origin.append(v), direction.append(v)
            continue
        if not has_gen:
            present.append(0.0), origin.append(0.0), direction.append(0.0)
            continue
        present.append(1.0)
        origin.append(F.q_relative(gdist, d / 2))
        ref_tip = ra[np.argmax(np.hypot(ra[:, 0] - cg[0], ra[:, 1] - cg[1]))] - cg
        gen_tip = ga[np.argmax(np.hypot(ga[:, 0] - c[0], ga[:, 1] - c[1]))] - c
        da = F.direction_agreement(gen_tip, ref_tip)
        direction.append(0.0 if math.isnan(da) else da)
    if not present:
        return {"orange_arrow_present": NA, "arrow_origin": NA, "arrow_direction": NA}
    return {"orange_arrow_present": float(np.mean(present)), "arrow_origin": float(np.mean(origin)),
            "arrow_direction": float(np.mean(direction))}


def text_line_count(img: np.ndarray) -> int:
    """Rows of text: bands of rows containing dark pixels, separated by blank rows."""
    dark = (img.astype(np.int16).mean(-1) < 140).any(1)
    bands, inside, gap = 0, False, 0
    min_gap = max(2, img.shape[0] // 100)
    for row in dark:
        if row:
            if not inside:
                bands += 1
            inside, gap = True, 0
        elif inside:
            gap += 1
            if gap >= min_gap:
                inside = False
    return bands


def _similarity(a: str, b: str) -> float:
    norm = lambda s: re.sub(r"\s+", "", s.lower().replace("·", "*").replace("×", "*"))
    return difflib.SequenceMatcher(None, norm(a), norm(b)).ratio()


# --- per subtrack ----------------------------------------------------------------------------
def perception_text(case: GTCase, gen: np.ndarray, use_ocr: bool = False) -> dict[str, float]:
    ref = case.image("annotations_only_reference")
    h, w = ref.shape[:2]
    out = {
        "white_background": white_background(gen, ref),
        "annotation_layout_f1": ink_f1(ink(gen), ink(ref), tol=max(2.0, min(h, w) / 160)),
        "objects_removed_px": removed_fraction(gen, case.clean_first_frame(), ref, case.instances()[0] > 0),
    }
    if use_ocr and ocr_mod.available():
        truth = {round(v, 3) for v, _, _ in ocr_mod.numbers(ocr_mod.words(ref))}
        truth &= {round(float(x), 3) for x in ocr_mod.NUMBER_RE.findall(str(case.meta.get("annotation", "")))}
        if truth:
            got = {round(v, 3) for v, _, _ in ocr_mod.numbers(ocr_mod.words(gen))}
            out["label_values_ocr"] = len(truth & got) / len(truth)
        else:
            out["label_values_ocr"] = NA
    return {k: _na(v) for k, v in out.items()}


def perception_graphic(case: GTCase, gen: np.ndarray) -> dict[str, float]:
    ref = case.image("objects_only_reference")
    inst0 = case.instances()[0]
    key = case.colour_key()
    masks = key.masks(gen)
    gt = inst0 > 0
    out = {
        "white_background": white_background(gen, ref),
        "annotations_removed_px": removed_fraction(gen, case.image("input_image"), ref, case.annotation_mask()),
        "object_appearance_psnr": F.psnr_score(F.psnr(gen, ref, gt)) if gt.any() else NA,
        "segmentation_iou": F.mask_iou(np.any(masks, 0) if masks else np.zeros_like(gt), gt),
        "object_position_accuracy": object_positions(masks, inst0, key.ids),
    }
    return {k: _na(v) for k, v in out.items()}


def formulation_text(case: GTCase, gen: np.ndarray, reference: np.ndarray, use_ocr: bool = False) -> dict[str, float]:
    """``reference``: the correct three-line answer drawn on white (defines the white area)."""
    out = {"white_background": white_background(gen, reference), "three_text_lines": float(text_line_count(gen) == 3)}
    if use_ocr and ocr_mod.available():
        # Each line is compared with the true text and with how the engine reads the reference answer
        # (the better of the two), so the engine's own misreadings of symbols do not count against an answer.
        info = case.formula_info
        lines = ocr_mod.text_lines(gen)
        ref_lines = ocr_mod.text_lines(reference) + ["", "", ""]
        first = re.sub(r"[^A-Za-z]", "", lines[0]) if lines else ""
        out["option_letter_ocr"] = float(first[:1].upper() == str(info.get("correct_letter", "")).upper()) if first else 0.0
        truth = info.get("correct_formula", "")
        out["formula_text_ocr"] = (max(_similarity(lines[1], truth), _similarity(lines[1], ref_lines[1]))
                                   if len(lines) > 1 else 0.0)
        sub = (case.ext or {}).get("substituted_formula")
        out["substitution_text_ocr"] = ((max(_similarity(lines[2], sub), _similarity(lines[2], ref_lines[2]))
                                         if len(lines) > 2 else 0.0) if sub else NA)
    return {k: _na(v) for k, v in out.items()}


def target_objects(case: GTCase) -> np.ndarray:
    """Instance ids at t* (``instantaneous_velocity/mask.npy``); a binary mask is split into components."""
    p = case.dir / "instantaneous_velocity/mask.npy"
    try:
        m = np.load(p)
    except (OSError, ValueError):
        raise DatasetError(f"{p}: missing or unreadable target-time mask") from None
    if m.dtype == bool or m.max() <= 1:
        _, m = cv2.connectedComponents(m.astype(np.uint8))
    return m


def formulation_graphic(case: GTCase, gen: np.ndarray, use_ocr: bool = False) -> dict[str, float]:
    ref = case.image("future_state_reference")
    inst = target_objects(case)
    key = case.colour_key()
    ids = [int(i) for i in np.unique(inst) if i != 0]
    masks_all = key.masks(gen, fill_convex=True, exclude=orange_mask(gen))
    by_id = dict(zip(key.ids, masks_all))
    masks = [by_id.get(i, np.zeros(inst.shape, bool)) for i in ids]
    gt = inst > 0
    out = {
        "annotations_removed_px": removed_fraction(gen, case.image("input_image"), ref, case.annotation_mask()),
        "segmentation_iou": F.mask_iou(np.any(masks_all, 0) if masks_all else np.zeros_like(gt), gt),
        "object_position_accuracy": object_positions(masks, inst, ids),
    }
    out.update(arrow_checks(gen, ref, masks, inst, ids))
    if use_ocr and ocr_mod.available():
        ref_nums = ocr_mod.numbers(ocr_mod.words(ref))
        gen_nums = ocr_mod.numbers(ocr_mod.words(gen))
        scores = []
        for v, x, y in ref_nums:
            near = [(abs(gv - v), math.hypot(gx - x, gy - y)) for gv, gx, gy in gen_nums
                    if math.hypot(gx - x, gy - y) < 0.25 * max(gen.shape[:2])]
            if not near:
                scores.append(0.0)
                continue
            err = min(near, key=lambda e: e[1])[0]
            scores.append(F.q_relative(err, max(abs(v), 0.5)))
        out["velocity_values_ocr"] = float(np.mean(scores)) if scores else NA
    return {k: _na(v) for k, v in out.items()}


def pixel_velocity(samples: list[tuple[float, tuple[float, float]]]) -> np.ndarray | None:
    """Velocity (px/s) at offset 0 from centroids at time offsets ``(dt, (x, y))``.

    Three samples at ``-h, 0, h``: the central difference, lengthened by ``θ / sin θ`` where ``θ``
    is the turn between the two chords (exact for uniform circular motion, a no-op on straight
    paths, so curved paths are not flattened into a chord). Otherwise the least-squares slope;
    None with fewer than two samples.
    """
    if len(samples) < 2:
        return None
    by = {round(dt, 9): np.asarray(c, float) for dt, c in samples}
    dts = sorted(by)
    if len(dts) == 3 and dts[1] == 0.0 and abs(dts[0] + dts[2]) < 1e-6:
        h = dts[2]
        a, b = by[0.0] - by[dts[0]], by[dts[2]] - by[0.0]
        v = (by[dts[2]] - by[dts[0]]) / (2 * h)
        na, nb = np.linalg.norm(a), np.linalg.norm(b)
        if na > 0.5 and nb > 0.5:
            theta = math.acos(float(np.clip(a @ b / (na * nb), -1, 1)))
            if 1e-6 < theta < math.pi / 2:
                v = v * theta / math.sin(theta)
        return v
    t = np.array(dts)
    xy = np.array([by[d] for d in dts])
    tc = t - t.mean()
    return (tc[:, None] * (xy - xy.mean(0))).sum(0) / (tc**2).sum()


def deduction(case: GTCase, frames: DeductionFrames) -> dict[str, float]:
    """E.2 metrics at the case's deduction timestamps, plus annotation removal and object presence."""
    ts = sorted(frames.at)
    n_gt = case.n_gt_phys
    gidx = {t: F.gt_physics_index(t, case.gt_fps, n_gt) + 1 for t in ts}
    gt_frames = case.gt_frames(gidx.values())
    inst_all, mask_all = case.instances(), case.masks()
    key = case.colour_key()
    ids = key.ids
    input_img = case.image("input_image")
    ann = case.annotation_mask()
    psnrs, mpsnrs, removed, presence = [], [], [], []
    gen_seq, gt_seq = [], []
    gen_v, gt_v = [], []
    for t in ts:
        g = gidx[t]
        gen, ref = frames.at[t], gt_frames[g]
        fg = mask_all[g]
        psnrs.append(F.psnr_score(F.psnr(gen, ref)))
        if fg.any():
            mpsnrs.append(F.psnr_score(F.psnr(gen, ref, fg)))
        masks, cents = key.segment(gen, centroids=True)
        gen_seq.append(np.any(masks, 0) if masks else np.zeros_like(fg))
        gt_seq.append(fg)
        r = removed_fraction(gen, input_img, ref, ann)
        if r != NA:
            removed.append(r)
        inst = inst_all[g]
        nb_cents = [(dt, key.segment(f, centroids=True)[1]) for dt, f in frames.neighbours.get(t, []) if dt != 0]
        for j, oid in enumerate(ids):
            gt_area = float((inst == oid).sum())
            area = float(masks[j].sum())
            if gt_area > 0:
                presence.append(float(0.5 * gt_area <= area <= 2.0 * gt_area))
            v_gt = case.velocity(oid, g)
            mpp = case.metres_per_pixel(oid, g)
            if frames.kind != "video" or v_gt is None or mpp is None or gt_area == 0:
                continue
            gt_v.append(v_gt)
            pts = [(0.0, cents[j])] + [(dt, c[j]) for dt, c in nb_cents]
            v_px = pixel_velocity([(dt, c) for dt, c in pts if c is not None]) if pts[0][1] is not None else None
            gen_v.append(None if v_px is None else v_px * mpp)  # None: lost by the tracker, error 100
    gen_seq, gt_seq = np.stack(gen_seq), np.stack(gt_seq)
    out = {
        "psnr": float(np.mean(psnrs)),
        "masked_psnr": float(np.mean(mpsnrs)) if mpsnrs else NA,
        "spatial_iou": F.spatial_iou(gen_seq, gt_seq),
        "spatiotemporal_iou": F.spatiotemporal_iou(gen_seq, gt_seq),
        "weighted_spatial_iou": F.weighted_spatial_iou(gen_seq, gt_seq),
        "velocity_accuracy": F.velocity_accuracy(F.velocity_error(gen_v, gt_v)) if gt_v else NA,
        "annotations_removed_px": float(np.mean(removed)) if removed else NA,
        "object_presence": float(np.mean(presence)) if presence else NA,
    }
    return out


def deduction_motion_masks(case: GTCase, out, max_seconds: float = 5.0) -> dict[str, float]:
    """Physics-IQ's motion-mask IoUs in Physics-IQ's order (:mod:`lawful.suites.applepi.motion`): the video's
    frames resampled to the GT's frame times (release time rule) over the first ``max_seconds``, masks made
    at each clip's own resolution and shrunk to a quarter of the GT's; GT masks computed once per case."""
    from lawful.suites.applepi import motion

    if out.kind != "video":
        return {k: NA for k in motion.KEYS}
    gt_m = motion.gt_motion_masks(case, max_seconds)
    gen_m = video_motion_masks(case, out.path, max_seconds)
    return motion.ious(gen_m, gt_m)


def video_motion_masks(case: GTCase, path, max_seconds: float = 5.0) -> np.ndarray:
    """Motion masks of a prediction video at the GT's frame times, decoded once (BGR, never resized) on a
    background thread while the masks are made."""
    from lawful.suites.applepi import motion
    from lawful.suites.applepi.predictions import PredictionError, _count, _open
    from lawful.threads import opencv_threads, prefetched

    size = motion.eval_size(case.shape)
    # Opened once (opening probes the stream, which costs as much as a few frames), with one decoder thread: the
    # masks take the other core, and FFmpeg's frame threads cost more CPU than they save at this size.
    cap = _open(path, threads=1)
    n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
    for _attempt in range(2):
        if n < 2:
            n = _count(path)
        if n < 2:
            cap.release()
            raise PredictionError(f"{path}: needs the condition frame and at least one physics frame")
        pidx = motion.pred_indices(case, n - 1, max_seconds)
        mm = motion.MotionMasker(size, order="bgr")
        with opencv_threads(1):  # the decoder's thread has the other core
            masks = [mm.push(f) for f in prefetched(_frames_at(cap, pidx), 4)]
        if len(masks) == len(pidx):
            return np.stack(masks) if masks else np.zeros((0, size[1], size[0]), bool)
        # the container over-stated its length: re-plan with the true count
        n, cap = _count(path), _open(path, threads=1)
    cap.release()
    raise PredictionError(f"{path}: stream ends early")


def _frames_at(cap, indices):
    """The decoded BGR frame for each of the non-decreasing full ``indices`` (a repeat yields the same frame)
    from an opened capture (released here); stops early where the stream ends."""
    try:
        i, cur, frame = 0, -1, None
        for want in indices:
            if want != cur:
                while i < want:
                    if not cap.grab():
                        return
                    i += 1
                ok, frame = cap.read()
                if not ok:
                    return
                i, cur = i + 1, want
            yield frame
    finally:
        cap.release()
