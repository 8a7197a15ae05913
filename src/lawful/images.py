"""Lossless images written by lawful (cases' first frames, Apple-π's datasets and answers): OpenCV's PNG
encoder at its fastest settings (zlib level 1, the Up filter, run-length matching): a WMLE 640 x 360 first
frame in 8.5 ms instead of PIL's 59 ms at its defaults, a 15 % larger file, the same pixels."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

PNG_PARAMS = [cv2.IMWRITE_PNG_COMPRESSION, 1, cv2.IMWRITE_PNG_FILTER, cv2.IMWRITE_PNG_FILTER_UP,
              cv2.IMWRITE_PNG_STRATEGY, cv2.IMWRITE_PNG_STRATEGY_RLE]


def encode(rgb: np.ndarray, suffix: str = ".png") -> bytes | None:
    """The bytes of an RGB ``uint8`` image in the format of ``suffix`` (PNG: :data:`PNG_PARAMS`), or None if
    OpenCV cannot encode it."""
    try:
        bgr = cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2BGR)
        ok, buf = cv2.imencode(suffix or ".png", bgr, PNG_PARAMS if suffix.lower() in ("", ".png") else [])
    except cv2.error:  # (an empty image, a wrong shape or type)
        return None
    return buf.tobytes() if ok else None


def write(path: Path, rgb: np.ndarray) -> bytes:
    """Write an RGB image (format by ``path``'s suffix; folders made); returns the file's bytes. Raises
    ``ValueError`` when it cannot be encoded."""
    data = encode(rgb, path.suffix)
    if data is None:
        raise ValueError(f"{path}: cannot encode the image")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return data
