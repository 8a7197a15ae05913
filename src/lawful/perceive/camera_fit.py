"""Least-squares similarity fits with their uncertainty, and the spatial spread of a point set.

A similarity ``p0 = A @ [x, y, 1]`` with ``A = [[a, -b, tx], [b, a, ty]]`` is linear in
``q = (a, b, tx, ty)``: each point contributes the rows ``[x, -y, 1, 0]`` and ``[y, x, 0, 1]``.
For independent, equal-variance errors the covariance of ``q`` is ``sigma^2 (J^T J)^-1``
(``sigma`` estimated from the residuals); propagated to a point ``c`` through the same rows it gives
the standard error of where ``A`` puts ``c``. :func:`corner_sd` takes the worst frame corner or
the centre, so points clustered in one part of the frame (a poor lever arm for rotation and
scale) give a large uncertainty at the far corners, as they should.
"""

from __future__ import annotations

import numpy as np


def rows(xy: np.ndarray) -> np.ndarray:
    """Design matrix ``[2N, 4]`` of the similarity parameters ``(a, b, tx, ty)`` at points ``[N, 2]``."""
    x, y = np.asarray(xy, float).T
    one, zero = np.ones_like(x), np.zeros_like(x)
    J = np.empty((2 * len(x), 4))
    J[0::2] = np.stack([x, -y, one, zero], 1)
    J[1::2] = np.stack([y, x, zero, one], 1)
    return J


def to_matrix(q: np.ndarray) -> np.ndarray:
    a, b, tx, ty = q
    return np.array([[a, -b, tx], [b, a, ty]])


def to_params(A: np.ndarray) -> np.ndarray:
    """Nearest similarity parameters of a ``[2, 3]`` affine (the mean of its rotation-scale part)."""
    return np.array([(A[0, 0] + A[1, 1]) / 2, (A[1, 0] - A[0, 1]) / 2, A[0, 2], A[1, 2]])


def fit_similarity(src: np.ndarray, dst: np.ndarray):
    """Least-squares similarity ``src -> dst``: ``(A [2, 3], cov [4, 4], rms residual)`` or None (< 3 points)."""
    src, dst = np.asarray(src, float), np.asarray(dst, float)
    n = len(src)
    if n < 3:
        return None
    c = src.mean(0)  # centred for conditioning; the covariance is mapped back below
    J = rows(src - c)
    q, *_ = np.linalg.lstsq(J, dst.reshape(-1), rcond=None)
    r = J @ q - dst.reshape(-1)
    dof = max(1, 2 * n - 4)
    s2 = float(r @ r) / dof
    cov = s2 * np.linalg.pinv(J.T @ J)
    # undo the centring: tx' = tx - a cx + b cy, ty' = ty - b cx - a cy
    T = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [-c[0], c[1], 1, 0], [-c[1], -c[0], 0, 1]])
    q, cov = T @ q, T @ cov @ T.T
    return to_matrix(q), cov, float(np.sqrt(float(r @ r) / max(1, 2 * n)))


def corner_sd(cov: np.ndarray, width: float, height: float) -> float:
    """Largest standard error (px, along the worse axis) of where the fit puts a corner or the centre."""
    pts = np.array([[0, 0], [width - 1, 0], [0, height - 1], [width - 1, height - 1],
                     [(width - 1) / 2, (height - 1) / 2]], float)
    J = rows(pts).reshape(len(pts), 2, 4)
    C = J @ cov @ J.transpose(0, 2, 1)  # [5, 2, 2]
    return float(np.sqrt(np.linalg.eigvalsh(C)[:, -1].max()))


def cells(xy: np.ndarray, width: float, height: float, n: int = 4) -> int:
    """Number of the ``n x n`` grid cells over the frame that hold at least one point."""
    if not len(xy):
        return 0
    ij = np.clip((np.asarray(xy, float) / [width, height] * n).astype(int), 0, n - 1)
    return len(np.unique(ij[:, 0] * n + ij[:, 1]))
