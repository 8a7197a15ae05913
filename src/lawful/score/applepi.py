"""Apple-π's objective formulas (appendix E.2) and the release's time rule.

Everything here is a pure function of arrays; nothing decodes video or reads files.

Shapes: frames are ``uint8`` RGB ``[H, W, 3]``; mask sequences are ``bool [T, H, W]``
(``T`` evaluated timestamps); velocities are in metres per second.

Time rule (release, appendix D.2): index 0 of every GT array and prediction video is the
condition frame; physics frames start at index 1. For physical time ``t``:

- prediction physics index ``min(round(t * n_pred_phys / physics_duration), n_pred_phys - 1)``
- GT physics index        ``min(round(t * gt_fps) - 1, n_gt_phys - 1)``

``round`` is Python's (half to even), as in the release. The GT formula gives ``-1`` at
``t = 0`` (which would wrap to the last frame); we clamp both indices at 0.
"""

from __future__ import annotations

import math

import numpy as np

PSNR_CAP_DB = 40.0  # Eq. 7: S_PSNR = min(PSNR / 40, 1)
LOST_OBJECT_VELOCITY_ERROR = 100.0  # release: an object the tracker lost adds an error of 100 m/s


# --- time rule -----------------------------------------------------------------------------
def pred_physics_index(t: float, n_pred_phys: int, physics_duration: float) -> int:
    """Physics-frame index (0-based, frame 0 of the clip excluded) showing time ``t`` in a prediction."""
    if n_pred_phys < 1:
        raise ValueError("a prediction needs at least one physics frame")
    return max(0, min(round(t * n_pred_phys / physics_duration), n_pred_phys - 1))


def gt_physics_index(t: float, gt_fps: float, n_gt_phys: int) -> int:
    """Physics-frame index (0-based) of the GT frame showing time ``t``."""
    if n_gt_phys < 1:
        raise ValueError("ground truth needs at least one physics frame")
    return max(0, min(round(t * gt_fps) - 1, n_gt_phys - 1))


# --- pixel fidelity ------------------------------------------------------------------------
def psnr(a: np.ndarray, b: np.ndarray, mask: np.ndarray | None = None) -> float:
    """PSNR in dB between two uint8 images (peak 255), over ``mask`` pixels if given.

    ``inf`` when identical; ``nan`` when the mask is empty.
    """
    if a.shape != b.shape:
        raise ValueError(f"shape mismatch {a.shape} vs {b.shape}")
    d = a.astype(np.float32) - b.astype(np.float32)
    d *= d
    if mask is not None:
        m = np.asarray(mask, bool)
        if not m.any():
            return float("nan")
        mse = float(d[m].mean())
    else:
        mse = float(d.mean())
    if mse == 0.0:
        return float("inf")
    return 10.0 * math.log10(255.0 * 255.0 / mse)


def psnr_score(db: float) -> float:
    """Eq. 7: ``min(PSNR / 40, 1)``; identical images (inf dB) score 1."""
    if math.isnan(db):
        return float("nan")
    return 1.0 if db >= PSNR_CAP_DB else max(0.0, db / PSNR_CAP_DB)


# --- mask overlap (Physics-IQ definitions; Apple-π E.2 uses the same on object masks) -------
def _as_seq(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, bool)
    if m.ndim == 2:
        m = m[None]
    if m.ndim != 3:
        raise ValueError(f"mask sequence must be [T, H, W], got {m.shape}")
    return m


def _frame_counts(m: np.ndarray) -> np.ndarray:
    """Set pixels of each frame of a ``bool [T, H, W]`` sequence (a frame at a time: 5x quicker than along axes)."""
    return np.array([np.count_nonzero(f) for f in m], np.int64)


def spatial_iou(gen: np.ndarray, gt: np.ndarray, empty: float = 0.0) -> float:
    """IoU of the max-over-time masks ("where does action happen").

    ``empty``: the value when both are empty: 0 by Apple-π's ``/(union + ε)`` (seed E.2), 1 by Physics-IQ's
    convention (the same for the two functions below).
    """
    g, r = _as_seq(gen).any(0), _as_seq(gt).any(0)
    union = np.count_nonzero(g | r)
    return float(empty) if union == 0 else np.count_nonzero(g & r) / union


def spatiotemporal_iou(gen: np.ndarray, gt: np.ndarray, empty: float = 0.0) -> float:
    """Mean over frames of per-frame IoU ("where and when"); a frame with an empty union counts ``empty``
    (0 in Apple-π: frames where both sides show no object earn nothing)."""
    g, r = _as_seq(gen), _as_seq(gt)
    if g.shape != r.shape:
        raise ValueError(f"shape mismatch {g.shape} vs {r.shape}")
    inter, union = _frame_counts(g & r).astype(float), _frame_counts(g | r).astype(float)
    per = np.where(union > 0, inter / np.maximum(union, 1), float(empty))
    return float(per.mean())


def weighted_spatial_iou(gen: np.ndarray, gt: np.ndarray, empty: float = 0.0) -> float:
    """Σ min(W_gen, W_gt) / Σ max(W_gen, W_gt) with W = per-pixel mean over time ("how much")."""
    g, r = _as_seq(gen), _as_seq(gt)
    dt = np.uint16 if max(len(g), len(r)) < 2**16 else np.uint32
    wg = g.view(np.uint8).sum(0, dtype=dt) / len(g)  # the means, counted (4x quicker than a float mean)
    wr = r.view(np.uint8).sum(0, dtype=dt) / len(r)
    den = np.maximum(wg, wr).sum()
    return float(empty) if den == 0 else float(np.minimum(wg, wr).sum() / den)


def mask_iou(a: np.ndarray, b: np.ndarray) -> float:
    """IoU of two binary masks; 1.0 when both are empty."""
    a, b = np.asarray(a, bool), np.asarray(b, bool)
    union = np.count_nonzero(a | b)
    return 1.0 if union == 0 else np.count_nonzero(a & b) / union


# --- velocity ------------------------------------------------------------------------------
def velocity_error(gen: list[np.ndarray | None], gt: list[np.ndarray]) -> float:
    """Mean Euclidean error over (object, timestamp) pairs; a lost object (``None``) adds 100."""
    if len(gen) != len(gt) or not gt:
        raise ValueError("need one generated entry (or None) per GT velocity")
    errs = [LOST_OBJECT_VELOCITY_ERROR if g is None else float(np.linalg.norm(np.asarray(g) - np.asarray(r)))
            for g, r in zip(gen, gt)]
    return float(np.mean(errs))


def velocity_accuracy(error: float) -> float:
    """Eq. 8: ``1 / (1 + e_v)``."""
    return 1.0 / (1.0 + max(0.0, float(error)))


# --- small helpers shared by the objective checks --------------------------------------------
def q_relative(error: float, scale: float) -> float:
    """``1 / (1 + |error| / scale)``: a [0, 1] closeness score for an error in units of ``scale``."""
    if scale <= 0:
        raise ValueError("scale must be positive")
    return 1.0 / (1.0 + abs(float(error)) / scale)


def direction_agreement(a: np.ndarray, b: np.ndarray) -> float:
    """``(1 + cos angle(a, b)) / 2``: 1 for the same direction, 0 for opposite; nan if either is zero."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        return float("nan")
    return float((1.0 + np.clip(a @ b / (na * nb), -1, 1)) / 2.0)
