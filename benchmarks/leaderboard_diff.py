"""Compare two ``leaderboard.json`` files number by number (a speed change must not move a figure).

    python benchmarks/leaderboard_diff.py BEFORE.json AFTER.json [--tol 0] [--ignore KEY ...]

Walks both trees together and prints every leaf that differs: a number farther apart than ``--tol``
(default 0: exactly equal), any other value that is not equal, and keys present on one side only.
Keys named with ``--ignore`` (e.g. a timestamp or an absolute path) are skipped wherever they occur.
Exit status 0 when nothing differs, 1 otherwise; the last line says how many leaves were compared.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path


def diff(a, b, tol: float = 0.0, ignore: frozenset[str] = frozenset(), path: str = "") -> tuple[list[str], int]:
    """``(differences, leaves compared)`` between two JSON values."""
    if isinstance(a, dict) and isinstance(b, dict):
        out, n = [], 0
        for k in sorted(set(a) | set(b), key=str):
            if k in ignore:
                continue
            p = f"{path}/{k}"
            if k not in a or k not in b:
                out.append(f"{p}: only in {'after' if k not in a else 'before'}")
                continue
            d, m = diff(a[k], b[k], tol, ignore, p)
            out += d
            n += m
        return out, n
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items before, {len(b)} after"], 1
        out, n = [], 0
        for i, (x, y) in enumerate(zip(a, b)):
            d, m = diff(x, y, tol, ignore, f"{path}[{i}]")
            out += d
            n += m
        return out, n
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b))
    if numbers:
        same = (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol
    else:
        same = a == b
    return ([] if same else [f"{path}: {a!r} -> {b!r}"]), 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--tol", type=float, default=0.0, help="largest allowed |before - after| of a number")
    ap.add_argument("--ignore", nargs="*", default=[], help="keys to skip wherever they occur")
    args = ap.parse_args(argv)
    a, b = (json.loads(p.read_text()) for p in (args.before, args.after))
    found, n = diff(a, b, args.tol, frozenset(args.ignore))
    for line in found:
        print(line)
    print(f"{len(found)} of {n} leaves differ (tolerance {args.tol:g})")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
