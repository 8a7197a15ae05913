"""A score's formula with its numbers filled in, from the stored Score JSON (what the case page prints).

Recognised by shape: WMLE-style scores (``metrics`` C, P, M…; ``extra`` S, gate, C_checks), Principia-style
scores (``sides`` F1, F2 and the DCS gate), anything else as its metrics.
"""

from __future__ import annotations

import math

from lawful.report.html import num


def _f(v, d: int = 4) -> str:
    return num(v, d)


def wmle_lines(score: dict) -> list[str]:
    from lawful.score.wmle import CONSISTENCY_GATE, CONSISTENCY_WEIGHT, PHYSICS_WEIGHT

    m, extra = score.get("metrics") or {}, score.get("extra") or {}
    C, P = m.get("C"), m.get("P")
    status = extra.get("metric_status") or {}
    reasons = extra.get("metric_reasons") or {}
    res = score.get("residuals") or {}
    lines = []
    for k in (k for k in m if k not in ("C", "P")):
        parts = ", ".join(f"{c.split('.', 1)[1]} = {_f(v)}" for c, v in res.items() if c.startswith(k + "."))
        e = res.get(k)
        lines.append(f"{k} = {_f(m[k])}" + (f"  (residual e = {_f(e)}" + (f"; {parts}" if parts else "") + ")"
                                             if e is not None or parts else "")
                     + (f"  [{status.get(k)}]" if status.get(k) and status.get(k) != "measured" else "")
                     + (f"  {reasons[k]}" if reasons.get(k) else ""))
    defined = [(k, m[k]) for k in m if k not in ("C", "P") and m[k] is not None]
    if defined:
        lines.append(f"P = 100 × mean({', '.join(k for k, _ in defined)}) = 100 × mean("
                     f"{', '.join(_f(v) for _, v in defined)}) = {_f(P)}")
    checks = extra.get("C_checks") or {}
    if extra.get("C_source") == "judge":
        lines.append(f"C = {_f(C)} (the judge's; measured factors: "
                     + ", ".join(f"{k} {_f(v, 3)}" for k, v in checks.items()) + ")")
    elif checks:
        lines.append(f"C = 100 × {' × '.join(checks)} = 100 × {' × '.join(_f(v, 3) for v in checks.values())} "
                     f"= {_f(C)}")
    if C is not None:
        passed = C >= CONSISTENCY_GATE
        p_tilde = P if (P is not None and passed) else 0.0
        lines.append(f"gate: C = {_f(C)} {'≥' if passed else '<'} {CONSISTENCY_GATE:g} → P̃ = "
                     + (f"P = {_f(P)}" if passed and P is not None else "0"))
        S = CONSISTENCY_WEIGHT * C + PHYSICS_WEIGHT * p_tilde
        lines.append(f"S = {CONSISTENCY_WEIGHT:g}·C + {PHYSICS_WEIGHT:g}·P̃ = {CONSISTENCY_WEIGHT:g}·{_f(C)} + "
                     f"{PHYSICS_WEIGHT:g}·{_f(p_tilde)} = {_f(S)}")
    return lines


def principia_lines(score: dict) -> list[str]:
    from lawful.score.consistency import DCS_THRESHOLD

    m, sides, res = score.get("metrics") or {}, score.get("sides") or {}, score.get("residuals") or {}
    f1, f2 = sides.get("F1"), sides.get("F2")
    lines = []
    if "dcs" in m:
        d = m.get("dcs")
        if d is None:
            lines.append(f"DCS undefined → score 0 (gate: DCS ≥ {DCS_THRESHOLD:g})")
        elif d >= DCS_THRESHOLD:
            lines.append(f"DCS = {_f(d, 3)} ≥ {DCS_THRESHOLD:g}")
        else:
            lines.append(f"DCS = {_f(d, 3)} < {DCS_THRESHOLD:g} → score 0 (gate)")
    if f1 is None or f2 is None:
        lines.append(f"F1 = {_f(f1)}, F2 = {_f(f2)}")
        return lines
    if "ratio_F1_F2" in res:
        holds = f1 > f2
        lines.append(f"order: F1 > F2 ⇔ {_f(f1)} > {_f(f2)} → {'holds: 1' if holds else 'fails: 0'}")
    elif m.get("S") is not None:
        den = abs(f1) + abs(f2)
        s = 1.0 if den == 0 else 1.0 - abs(f1 - f2) / den
        lines.append(f"S = 1 − |F1 − F2| / (|F1| + |F2|) = 1 − |{_f(f1)} − {_f(f2)}| / "
                     f"({_f(abs(f1))} + {_f(abs(f2))}) = {_f(s)}")
    else:
        lines.append(f"F1 = {_f(f1)}, F2 = {_f(f2)}")
    return lines


def is_formula(score: dict) -> bool:
    """Whether the score has a known formula (WMLE's or Principia's shape), not only metrics."""
    m = score.get("metrics") or {}
    return ("C" in m and ("S" in (score.get("extra") or {}) or "P" in m)) or "F1" in (score.get("sides") or {})


def score_lines(score: dict) -> list[str]:
    """The formula lines for one stored score (empty when there are no numbers to show)."""
    m, extra = score.get("metrics") or {}, score.get("extra") or {}
    if "C" in m and ("S" in extra or "P" in m):
        return wmle_lines(score)
    if "F1" in (score.get("sides") or {}):
        return principia_lines(score)
    out = [f"{k} = {_f(v)}" for k, v in m.items() if v is None or isinstance(v, (int, float))]
    out += [f"residual {k} = {_f(v)}" for k, v in (score.get("residuals") or {}).items()
            if v is None or (isinstance(v, float) and math.isfinite(v))]
    return out
