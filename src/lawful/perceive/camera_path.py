"""The camera path's key frames as evidence: whether a held key frame lies on the path, why frames were held.

A key frame is ``(index, work-pixel transform [2, 3], method, info)`` as :class:`lawful.perceive.camera.
CameraMotion` keeps them; ``method == "hold"`` means no estimate within its uncertainty bound (``info``
says what was tried: an intensity registration's weakest direction and its signal-to-noise, a rejected
uncertainty, or nothing for too few background points).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

_NAMES = ("scale", "rotation", "x", "y")  # the similarity's parameters (a, b, tx, ty)


def _shift(A: np.ndarray, pts: np.ndarray) -> float:
    return float(np.abs(pts @ A[:, :2].T + A[:, 2]).max())


def bridged(keys: list[tuple], i: int, corners: np.ndarray, tol: float) -> bool:
    """Whether held frame ``i`` lies on the path: the two estimates on each side, each pair extrapolated to
    ``i``, and the interpolation between the nearest two agree within ``tol`` (work px at ``corners``)."""
    good = [(k[0], k[1]) for k in keys if k[2] != "hold"]
    before, after = [g for g in good if g[0] < i][-2:], [g for g in good if g[0] > i][:2]
    if len(before) < 2 or len(after) < 2:
        return False
    (i0, A0), (i1, A1) = before
    (i2, A2), (i3, A3) = after
    guesses = [A1 + (A1 - A0) * ((i - i1) / (i1 - i0)), A2 + (A2 - A3) * ((i2 - i) / (i3 - i2)),
               A1 + (A2 - A1) * ((i - i1) / (i2 - i1))]
    return max(_shift(P - Q, corners) for P in guesses for Q in guesses) <= tol


def why_held(keys: list[tuple], Z: float, scale: float) -> str:
    """Why key frames have no estimate, the two most frequent reasons with their counts (``Z`` standard
    errors, ``scale``: work px per frame px)."""
    why = Counter()
    for _, _, m, d in keys:
        if m != "hold":
            continue
        if d.get("outvoted"):
            why["intensity registration outvoted by the pixel check"] += 1
        elif d.get("snr") is not None and not np.isfinite(d.get("u", np.inf)):
            weak = _NAMES[int(np.argmax(np.abs(d.get("weakest", [0, 0, 1, 0]))))]
            why[f"{weak} not pinned: its gradient {d['snr']:.1f}x that of noise"] += 1
        elif d.get("u") is not None:
            why[f"{d.get('rejected', 'estimate')} uncertainty {Z * d['u'] / scale:.2f} px"] += 1
        else:
            why["too few background points"] += 1
    return "; ".join(f"{n}: {w}" for w, n in why.most_common(2))
