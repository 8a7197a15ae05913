"""Optional text reading with the Tesseract command-line engine (Debian package ``tesseract-ocr``).

Used only when the ``tesseract`` program is on ``PATH``; without it every OCR-based check is
absent (left to a judge), never guessed. Results are memoised by image content.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

NUMBER_RE = re.compile(r"-?\d+(?:[.,]\d+)?")


def available() -> bool:
    return shutil.which("tesseract") is not None


@dataclass(frozen=True)
class Word:
    text: str
    x: float  # centre, pixels of the original image
    y: float
    line: int  # (block, paragraph, line) flattened into an ordinal


_MEMO: dict[str, list[Word]] = {}


def words(rgb: np.ndarray, psm: int = 11, scale: float | None = None) -> list[Word]:
    """Words with their centres; ``[]`` if Tesseract is missing or fails."""
    if not available():
        return []
    h = rgb.shape[0]
    s = scale or (2.0 if h < 600 else 1.0)
    key = hashlib.md5(rgb.tobytes() + bytes([psm]) + str(s).encode()).hexdigest()
    if key in _MEMO:
        return _MEMO[key]
    img = cv2.resize(rgb, None, fx=s, fy=s, interpolation=cv2.INTER_CUBIC) if s != 1.0 else rgb
    ok, png = cv2.imencode(".png", cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
    try:
        res = subprocess.run(["tesseract", "stdin", "stdout", "--psm", str(psm), "tsv"], input=png.tobytes(),
                             capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    out: list[Word] = []
    lines: dict[tuple, int] = {}
    for row in res.stdout.decode("utf-8", "replace").splitlines()[1:]:
        f = row.split("\t")
        if len(f) < 12 or not f[11].strip():
            continue
        try:
            left, top, w, hh = (float(v) for v in f[6:10])
        except ValueError:
            continue
        lk = (f[2], f[3], f[4])
        lines.setdefault(lk, len(lines))
        out.append(Word(f[11].strip(), (left + w / 2) / s, (top + hh / 2) / s, lines[lk]))
    _MEMO[key] = out
    return out


def text_lines(rgb: np.ndarray) -> list[str]:
    """Lines of text top to bottom (page-segmentation mode 6: one uniform block)."""
    ws = words(rgb, psm=6)
    by: dict[int, list[Word]] = {}
    for w in ws:
        by.setdefault(w.line, []).append(w)
    ordered = sorted(by.values(), key=lambda ln: min(w.y for w in ln))
    return [" ".join(w.text for w in sorted(ln, key=lambda w: w.x)) for ln in ordered]


def numbers(ws: list[Word]) -> list[tuple[float, float, float]]:
    """Numbers read, as ``(value, x, y)``."""
    out = []
    for w in ws:
        for m in NUMBER_RE.findall(w.text):
            try:
                out.append((float(m.replace(",", ".")), w.x, w.y))
            except ValueError:
                pass
    return out


@lru_cache(maxsize=1)
def version() -> str:
    if not available():
        return ""
    try:
        return subprocess.run(["tesseract", "--version"], capture_output=True, timeout=20).stdout.decode().split("\n")[0]
    except (OSError, subprocess.TimeoutExpired):
        return ""
