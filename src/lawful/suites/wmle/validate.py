"""WMLE's synthetic-reference check (the paper's §3.2) in lawful's own render style, one variant at a time.

The whole-suite validation, in any render style and under perturbations, is
:func:`lawful.runner.validate.validate` (``lawful validate --suite wmle``); this module keeps the
per-variant view the task tests use: the reference's and the twin's P (gate bypassed) and C.
"""

from __future__ import annotations

from lawful.runner import validate as generic

PERTURBATIONS = ("noise", "crf35", "hue10")  # the robustness set of the WMLE task tests
SEED_BASE = generic.SEED_BASE


def validate_variant(task_name: str, index: int, seed: int, robustness: bool = False, style: str = "flat") -> dict:
    """``{"ref_P", "ref_status", "ref_C", "anti_P", "anti_status", "anti_C", [<perturbation>_P]}`` of one variant."""
    r = generic.validate_variant("wmle", task_name, index, seed, style, PERTURBATIONS if robustness else ())
    (label, row), = r["columns"].items()
    out = {"task": task_name, "label": label, "index": index, "seed": seed, "case_id": r["case_id"],
           "ref_P": row["law"], "ref_status": row["law_status"], "ref_C": row.get("law_C"),
           "anti_P": row["anti"], "anti_status": row["anti_status"], "anti_C": row.get("anti_C")}
    out.update({f"{k}_P": row[k] for k in PERTURBATIONS if k in row})
    return out
