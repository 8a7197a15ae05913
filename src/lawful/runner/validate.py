"""Validation of the evaluators: law-correct clips must score high, anti-physics twins low, in any render style.

For every task of a suite and ``n_variants`` seeds, a render style (:mod:`lawful.world.styles`) makes a
case and draws its law-correct clip and its anti-physics twin; both are written as H.264 and scored by
:func:`lawful.runner.evaluate.evaluate_video`, exactly as a user's videos would be. Optional
perturbations of the law-correct clip (camera pan or zoom of 10 %, a 5 % pan, sensor noise, CRF 35, optical
(defocus) blur, hue shift, and ``ghost3``: the mean of 3 consecutive frames, a triple exposure no camera
makes, kept as a stress test) measure how far each law mean moves; several joined by ``+`` apply left to right
(``noise+crf35``: a noisy clip through a lossy codec, as a generator's output reaches its users). Temporal breaks of the law clip (``freeze50``:
the second half frozen on one frame; ``swap2``: neighbouring frames swapped; ``shuffle``: the frames after the first
in a random order) are no longer lawful: per column the table gives the share of them *caught* (not scored, WMLE's S
under 80, a Principia score of 0) instead of a shift, over the copies the break changed (a still scene frozen or
shuffled is the same clip: ``unchanged``). Perturbed copies are written losslessly
(x264 in RGB at qp 0), so a column measures its perturbation alone, not a second lossy encoding on top (that
alone moved studio P2 by -1.42 and P5 by +0.90); ``reencode`` (the law clip's frames as they are) is the
control, its shift what the round trip and the reader leave. Motion blur as a camera records it
(a continuous smear within the exposure) is what the studio style renders, sub-frame by sub-frame.

The value of one video in one column: Principia, the column's score (0 unless ``scored``); WMLE, the
physical score P with the gate bypassed (the paper's §3.2 check; 0 when nothing could be scored).
A law-correct video that is not ``scored`` (or WMLE ``unresolved``) counts towards the column's
unmeasurable share. Per column: law mean and minimum, anti mean and maximum, whether the twin scored
lower on every variant, ROC AUC of law vs anti (Mann–Whitney), unmeasurable share, the share of law clips whose consistency C is under the gate (``law_gated_share``: WMLE's
S would not count their physics; None where the suite has no C) and, per perturbation,
the mean shift of the law value over the variants where both the clip and its perturbed copy were scored, and the share of variants the perturbation made unmeasurable
(a scored law clip whose perturbed copy is not: counting it as 0 would hide an honest "cannot measure"
inside a shift, counting it as its law value would hide the loss). A scene the style fails to draw (a renderer's
bug on one seed) is listed under ``not_drawn`` with its error and left out of the figures; the run goes on.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import as_completed
from pathlib import Path

import numpy as np

from lawful.progress import progress_bar
from lawful.runner.pool import process_pool
from lawful.score.stats import roc_auc
from lawful.score.wmle import CONSISTENCY_GATE, composite, passes_gate

SEED_BASE = 1000
ROBUSTNESS = ("pan10", "zoom10", "noise", "crf35", "blur", "reencode")  # what --robustness applies


def _perturbations() -> dict[str, Callable[[list[np.ndarray], float, int], Iterable[np.ndarray]]]:
    from lawful.world import perturb

    return {
        "pan10": lambda fr, fps, seed: perturb.camera_pan(fr, 0.10),
        "pan5": lambda fr, fps, seed: perturb.camera_pan(fr, 0.05),
        "zoom10": lambda fr, fps, seed: perturb.camera_zoom(fr, 0.10),
        "noise": lambda fr, fps, seed: perturb.noise_frames(fr, sigma=8 / 255, seed=seed),
        "crf35": lambda fr, fps, seed: perturb.reencode(fr, fps=fps, crf=35),
        "blur": lambda fr, fps, seed: perturb.defocus(fr, 0.003),
        "ghost3": lambda fr, fps, seed: perturb.exposure_blur(fr, 3),
        "hue10": lambda fr, fps, seed: (perturb.hue_shift(f, 10.0) for f in fr),
        "flicker8": lambda fr, fps, seed: perturb.flicker(fr, 0.08, seed),
        "reencode": lambda fr, fps, seed: iter(fr),  # the control: the law clip's frames, written as every copy is
        "freeze50": lambda fr, fps, seed: perturb.freeze_after(fr, 0.5),
        "swap2": lambda fr, fps, seed: perturb.swap_neighbours(fr),
        "shuffle": lambda fr, fps, seed: perturb.shuffle_after_first(fr, seed),
    }


TEMPORAL = ("freeze50", "swap2", "shuffle")  # time broken: to be caught, not scored (see the module docstring)
CHANGED_LEVELS = 8  # a pixel a temporal break changed: by more than this (0-255), beyond a lossy codec's flicker
CHANGED_MIN = 1e-3  # a break that changed less than this share of any frame's pixels left the clip as it was (a
# 15-px disc moved is 0.3 % of 640 x 360)
PERTURBATIONS = ("pan10", "pan5", "zoom10", "noise", "crf35", "blur", "hue10", "flicker8", "ghost3", "reencode",
                 *TEMPORAL)


def video_values(suite: str, evaluation) -> dict[str, dict]:
    """Per column of one evaluated video: ``{"value", "status", "C", "reason"}`` as defined in the module docstring
    (WMLE's reason: the score's own, else its metrics' reasons)."""
    out = {}
    for col, sc in evaluation.scores.items():
        if _cps(suite):
            P = (sc.metrics or {}).get("P")
            value = 0.0 if P is None else float(P)
            extra = sc.extra or {}
            status = "unmeasurable" if sc.status == "scored" and extra.get("unresolved") else sc.status
            why = sc.reason or "; ".join(f"{k}: {v}" for k, v in (extra.get("metric_reasons") or {}).items())
            out[col] = {"value": value, "status": status, "C": (sc.metrics or {}).get("C"), "reason": why}
        else:
            value = float(sc.value) if sc.status == "scored" and sc.value is not None else 0.0
            out[col] = {"value": value, "status": sc.status, "reason": sc.reason}
    return out


def _cps(suite: str) -> bool:
    """Whether ``suite`` scores with WMLE's C/P/S (validated on P, the gate bypassed)."""
    return suite in ("wmle", "recordings")


def renderer_fingerprint(suite: str, style: str = "flat", task: str | None = None) -> str:
    """Hash of the code that draws and encodes a task's clips, so a cached clip is reused only while it is unchanged.

    Flat style: ``lawful/world`` and the suite's package (tasks draw their own clips). Studio style: the
    task's scene module and the ``lawful.world`` modules it imports, transitively, also inside functions (other
    scenes may change). Both: ``lawful/encode.py`` (the encoder; not the reader, which only scores the clips).
    """
    import hashlib

    import lawful

    root = Path(lawful.__file__).parent
    h = hashlib.sha256()
    if style == "flat" or task is None:
        files = [*(root / "world").rglob("*.py"), *((root / "suites" / suite).rglob("*.py") if style == "flat" else ())]
    else:
        from lawful.world.studio import SCENES, StudioStyle

        StudioStyle().supports(suite, task)  # loads the scene modules
        files = _world_imports(root, SCENES[(suite, task)].__module__)
    for f in sorted({*files, root / "encode.py"}):
        h.update(f.relative_to(root).as_posix().encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _world_imports(root: Path, module: str) -> set[Path]:
    """The files of ``module`` and of every ``lawful.world`` module it imports, transitively (read from source)."""
    import re

    todo, seen = [module], set()
    while todo:
        name = todo.pop()
        f = root.parent / (name.replace(".", "/") + ".py")
        if not f.exists():
            f = f.with_suffix("") / "__init__.py"
        if f in seen or not f.exists():
            continue
        seen.add(f)
        text = f.read_text()
        for pkg, group, names in re.findall(r"^[ \t]*from (lawful\.world[\w.]*) import (?:\(([^)]*)\)|([\w, ]+))",
                                            text, re.M):
            names = re.sub(r"#[^\n]*", "", group or names)  # (comments inside the parentheses)
            todo.append(pkg)
            todo.extend(f"{pkg}.{n.split(' as ')[0].strip()}" for n in names.split(",") if n.strip())
        todo.extend(re.findall(r"^[ \t]*import (lawful\.world[\w.]*)", text, re.M))
    return seen


def check_perturbation(kind: str) -> None:
    """Raise ``KeyError`` (a message naming the choices) unless ``kind`` is a perturbation of
    :data:`PERTURBATIONS` or several non-temporal ones joined by ``+`` (applied left to right)."""
    from lawful.choices import unknown

    parts = kind.split("+")
    for p in parts:
        if p not in PERTURBATIONS:
            raise KeyError(unknown(p, PERTURBATIONS, "perturbation"))
        if p in TEMPORAL and len(parts) > 1:
            raise KeyError(f"{kind}: a temporal break ({p}) is caught, not scored, and is applied alone")


def perturb_frames(kind: str, frames: list[np.ndarray], fps: float, seed: int) -> Iterable[np.ndarray]:
    """``frames`` perturbed by ``kind`` (see :func:`check_perturbation`): ``noise+crf35`` adds the noise, then
    encodes at CRF 35 what it left, as a generator's noisy frames reach a user through a lossy codec."""
    table = _perturbations()
    parts = kind.split("+")
    for p in parts[:-1]:
        frames = list(table[p](frames, fps, seed))
    return table[parts[-1]](frames, fps, seed)


def _clips(made, folder: Path, cached: bool) -> tuple[Path, Path, list[np.ndarray]]:
    """The law and anti clips of ``made`` in ``folder`` (reused when ``cached`` and present) and the law
    clip's decoded frames: perturbations always start from the clip as scored, never from the rendered
    frames, so a run with a warm cache and one without score the same perturbed clips."""
    from lawful.video import iter_frames, write_video

    case = made.case
    law, anti = folder / f"{case.id}-true.mp4", folder / f"{case.id}-anti.mp4"
    if not (cached and law.exists() and anti.exists()):
        folder.mkdir(parents=True, exist_ok=True)
        write_video(law, made.render("true"), fps=case.fps)
        write_video(anti, made.render("anti"), fps=case.fps)
    return law, anti, [f for _, f in iter_frames(law)]


def validate_variant(suite: str, task_name: str, index: int, seed: int, style: str = "flat",
                     perturbations: Sequence[str] = (), cache: str | Path | None = None) -> dict:
    """Score one scene's law-correct clip, its twin and the perturbed law clips.

    ``cache``: a folder where rendered clips are kept and reused by later runs while the drawing code
    is unchanged (:func:`renderer_fingerprint`). Perturbed clips start from the decoded law clip either way.
    Returns ``{"task", "index", "seed", "case_id", "columns": {col: {"law", "law_status", "anti",
    "anti_status", "law_C", "anti_C", <perturbation>: value, <perturbation>_status}}}``, and ``<key>_reason``
    for each clip (law, anti or perturbed) that was not scored; a scene the style fails to draw has no columns and
    ``not_drawn``, the error (the run goes on: :func:`summarise` lists it).
    """
    from lawful.runner.evaluate import evaluate_video
    from lawful.suites.base import get_suite
    from lawful.video import write_video
    from lawful.world.styles import get_style

    task = get_suite(suite).task(task_name)
    try:
        made = get_style(style).make(suite, task_name, index, seed)
    except Exception as e:  # the renderer's failure on one scene is counted and shown, not the run's end
        return {"task": task_name, "index": index, "seed": seed, "case_id": None, "columns": {},
                "not_drawn": f"{type(e).__name__}: {e}"}
    case = made.case
    cols: dict[str, dict] = {}

    def score(path: Path, key: str) -> None:
        for col, v in video_values(suite, evaluate_video(case, path, task)).items():
            row = cols.setdefault(col, {})
            row[key], row[f"{key}_status"] = v["value"], v["status"]
            if "C" in v:
                row[f"{key}_C"] = v["C"]
            if v.get("reason") and v["status"] != "scored":
                row[f"{key}_reason"] = v["reason"]

    with tempfile.TemporaryDirectory(prefix="lawful-validate-") as tmp:
        folder = (Path(cache) / renderer_fingerprint(suite, style, task_name) / style / suite / f"{task_name}-{seed}"
                  if cache else Path(tmp))
        law, anti, law_frames = _clips(made, folder, cache is not None)
        score(law, "law")
        score(anti, "anti")
        for kind in perturbations:
            frames = perturb_frames(kind, law_frames, case.fps, seed)
            if kind in TEMPORAL:
                frames = list(frames)
                share = changed_share(law_frames, frames)
                for row in cols.values():
                    row[f"{kind}_changed"] = share
            score(write_video(Path(tmp) / f"{case.id}-{kind}.mp4", frames, fps=case.fps, crf=0, codec="rgb",
                              preset="ultrafast"), kind)
    return {"task": task_name, "index": index, "seed": seed, "case_id": case.id, "columns": cols}


def _scored(row: dict, key: str) -> bool:
    return row.get(f"{key}_status", "scored") == "scored"


def _lost(row: dict, kind: str) -> bool:
    """The law clip was scored, its ``kind`` copy not."""
    return _scored(row, "law") and not _scored(row, kind)


def caught(row: dict, kind: str) -> bool | None:
    """Whether a clip (``kind``: law, anti or a perturbation) was not scored, or scored low: WMLE's S (from its C and
    P) under the gate's 80, a Principia score of 0. None where the perturbation left the clip as it was
    (``<kind>_changed`` under :data:`CHANGED_MIN`: a still scene frozen or shuffled is the same clip)."""
    if row.get(f"{kind}_changed", 1.0) < CHANGED_MIN:
        return None
    if not _scored(row, kind):
        return True
    C = row.get(f"{kind}_C")
    return composite(C, row[kind]) < CONSISTENCY_GATE if C is not None else row[kind] == 0.0


def _caught_share(rows: Iterable[dict], kind: str) -> float:
    """The share of ``rows`` whose ``kind`` copy was :func:`caught`, over those it changed (NaN if none)."""
    got = [c for c in (caught(r, kind) for r in rows) if c is not None]
    return float(np.mean(got)) if got else math.nan


def changed_share(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> float:
    """The largest share, over frames, of pixels whose value differs by more than :data:`CHANGED_LEVELS` between
    two clips of the same frames' count (how far a temporal break changed a clip)."""
    return max((float(np.mean(np.abs(x.astype(np.int16) - y.astype(np.int16)).max(axis=2) > CHANGED_LEVELS))
                for x, y in zip(a, b)), default=0.0)


def _shift(items: list[tuple[dict, dict]], kind: str) -> float:
    """Mean ``kind`` value minus law value over the variants where both were scored (NaN if none)."""
    d = [row[kind] - row["law"] for _, row in items if _scored(row, "law") and _scored(row, kind)]
    return float(np.mean(d)) if d else math.nan


def summarise(results: list[dict], perturbations: Sequence[str] = ()) -> dict:
    """Per column and overall figures of :func:`validate_variant` results (see the module docstring)."""
    groups: dict[tuple[str, str], list[tuple[dict, dict]]] = {}
    for r in sorted(results, key=lambda r: (r["task"], r["index"])):
        for col, row in r["columns"].items():
            groups.setdefault((col, r["task"]), []).append((r, row))
    shared = {c for c, _ in groups if sum(1 for cc, _ in groups if cc == c) > 1}  # e.g. Principia's momentum
    columns = {}
    for (col, task), items in groups.items():
        law = [row["law"] for _, row in items]
        anti = [row["anti"] for _, row in items]
        unmeas = [row["law_status"] != "scored" for _, row in items]
        entry = {
            "task": task,
            "n": len(items),
            "law_mean": float(np.mean(law)),
            "law_min": float(np.min(law)),
            "anti_mean": float(np.mean(anti)),
            "anti_max": float(np.max(anti)),
            "anti_lower_every_variant": all(a < b for a, b in zip(anti, law)),
            "auc": roc_auc(law, anti),
            "unmeasurable_share": float(np.mean(unmeas)),
            "law_gated_share": _gated_share([row for _, row in items]),
            "shift": {k: _shift(items, k) for k in perturbations},
            "lost": {k: float(np.mean([_lost(row, k) for _, row in items])) for k in perturbations},
            "caught": {k: _caught_share([row for _, row in items], k) for k in perturbations if k in TEMPORAL},
            "per_variant": [{"index": r["index"], "seed": r["seed"], "case_id": r["case_id"], **row}
                            for r, row in items],
        }
        columns[f"{col}/{task}" if col in shared else col] = entry
    all_law = [v["law"] for e in columns.values() for v in e["per_variant"]]
    all_anti = [v["anti"] for e in columns.values() for v in e["per_variant"]]
    all_unmeas = [v["law_status"] != "scored" for e in columns.values() for v in e["per_variant"]]
    return {
        "columns": columns,
        "not_drawn": [{k: r[k] for k in ("task", "index", "seed", "not_drawn")} for r in results if r.get("not_drawn")],
        "overall": {
            "law_mean": float(np.mean([e["law_mean"] for e in columns.values()])) if columns else math.nan,
            "anti_mean": float(np.mean([e["anti_mean"] for e in columns.values()])) if columns else math.nan,
            "auc": roc_auc(all_law, all_anti),
            "unmeasurable_share": float(np.mean(all_unmeas)) if all_unmeas else math.nan,
            "law_gated_share": _gated_share([v for e in columns.values() for v in e["per_variant"]]),
            "caught": {k: _caught_share([v for e in columns.values() for v in e["per_variant"]], k)
                       for k in perturbations if k in TEMPORAL},
        },
    }


def _gated_share(rows: list[dict]) -> float | None:
    """Share of the law clips whose consistency C is under the gate (WMLE: S = 0.15·C, the physics not counted, however
    right P is; the law column shows P, the gate bypassed), over the clips with a C; None where no clip has one."""
    cs = [row["law_C"] for row in rows if row.get("law_C") is not None]
    return float(np.mean([not passes_gate(c) for c in cs])) if cs else None


def validate(suite: str, style: str = "flat", n_variants: int = 12, tasks: Sequence[str] | None = None,
             perturbations: Sequence[str] = (), workers: int | None = None, progress: bool = True,
             cache: str | Path | None = None, first_seed: int = SEED_BASE) -> dict:
    """Validate ``suite``'s tasks (all that ``style`` can draw, or those named in ``tasks`` by name or label).

    Variant ``i`` is drawn from seed ``first_seed + i``: the default seeds are those lawful's own figures use;
    other seeds give scenes nobody tuned the evaluator on. Returns :func:`summarise`'s dict plus ``suite``,
    ``style``, ``n_variants``, ``first_seed``, ``perturbations`` and ``skipped`` (tasks the style cannot draw).
    ``cache``: see :func:`validate_variant`.
    """
    from lawful.suites.base import get_suite
    from lawful.world.styles import get_style

    s = get_suite(suite)
    st = get_style(style)
    for p in perturbations:
        check_perturbation(p)
    chosen = list(s.tasks.values())
    if tasks:
        want = {t.lower() for t in tasks}
        chosen = [t for t in chosen if t.name.lower() in want or (t.label or "").lower() in want]
        if not chosen:
            raise KeyError(f"no {suite} task matches {sorted(want)}")
    skipped = [t.name for t in chosen if not st.supports(suite, t.name)]
    jobs = [(t.name, i, first_seed + i) for t in chosen if t.name not in skipped for i in range(n_variants)]
    workers = workers or min(len(jobs), max(1, os.cpu_count() or 2)) or 1
    results: list[dict] = []
    with progress_bar(progress) as bar:
        tid = bar.add_task(f"{suite} validate ({style})", total=len(jobs))
        if workers <= 1:
            for name, i, seed in jobs:
                results.append(validate_variant(suite, name, i, seed, style, perturbations, cache))
                bar.advance(tid)
        else:
            with process_pool(workers) as ex:
                futs = [ex.submit(validate_variant, suite, name, i, seed, style, tuple(perturbations), cache)
                        for name, i, seed in jobs]
                for f in as_completed(futs):
                    results.append(f.result())
                    bar.advance(tid)
    out = summarise(results, perturbations)
    order = {t.name: i for i, t in enumerate(s.tasks.values())}  # rows in the suite's order (P1 … P15)
    out["columns"] = dict(sorted(out["columns"].items(), key=lambda kv: order.get(kv[1]["task"], len(order))))
    out.update(suite=suite, style=style, n_variants=n_variants, first_seed=first_seed, perturbations=list(perturbations), skipped=skipped)
    out["paper_overall"] = s.paper.get("reference_P", {}).get("overall")
    out["groups"] = grouped_means(out["columns"], {t.name: t for t in chosen}, s.paper.get("reference_P", {}))
    return out


def grouped_means(columns: dict, tasks: dict, paper: dict) -> list[dict]:
    """Law and anti means per difficulty level and per family of the tasks that declare them (WMLE), each
    an equal-weight mean of its tasks' law means as the paper averages, beside the paper's reference figure
    (``paper``: ``{"E": 97.93, …}``) where it has one."""
    rows = []
    for attr in ("level", "family"):
        keys: dict[str, list[dict]] = {}
        for e in columns.values():
            k = getattr(tasks.get(e["task"]), attr, "")
            if k:
                keys.setdefault(k, []).append(e)
        order = {"E": 0, "M": 1, "H": 2}
        for k, es in sorted(keys.items(), key=lambda kv: order.get(kv[0], 3)) if attr == "level" else keys.items():
            rows.append({"group": f"{attr} {k}", "tasks": len(es),
                         "law_mean": float(np.mean([e["law_mean"] for e in es])),
                         "anti_mean": float(np.mean([e["anti_mean"] for e in es])),
                         "paper": paper.get(k)})
    return rows


def _shift_cell(e: dict, kind: str) -> str:
    """``+0.012``, with the share the perturbation made unmeasurable when there is one; for a temporal break the share
    of copies caught (``caught 100%``, red below 100)."""
    if kind in TEMPORAL:
        share = e.get("caught", {}).get(kind, math.nan)
        if not math.isfinite(share):
            return "unchanged"
        return f"caught {100 * share:.0f}%" if share == 1.0 else f"[red]caught {100 * share:.0f}%[/red]"
    lost = e.get("lost", {}).get(kind, 0.0)
    cell = f"{e['shift'][kind]:+.3f}" if math.isfinite(e["shift"][kind]) else "–"
    return cell + (f" [red]{100 * lost:.0f}% u[/red]" if lost else "")


def validation_table(result: dict):
    """A rich Table of :func:`validate`'s result: per column law/anti means, AUC, unmeasurable share, shifts."""
    from rich.table import Table

    wmle = _cps(result["suite"])
    fmt = (lambda v: f"{v:.2f}") if wmle else (lambda v: f"{v:.3f}")
    pert = result.get("perturbations", [])
    t = Table(title=f"{result['suite']} validation, style '{result['style']}' "
                    f"({result['n_variants']} variants per task, seeds from {result.get('first_seed', SEED_BASE)}"
                    f"{', gate bypassed' if wmle else ''})")
    gated = (lambda e: "" if e.get("law_gated_share") is None else
             (f"[red]{100 * e['law_gated_share']:.0f}%[/red]" if e["law_gated_share"] else "0%"))
    for col in ("column", "task", "law mean", "law min", "anti mean", "anti max", "twin lower", "AUC", "unmeas.",
                "law C<80"):
        t.add_column(col, justify="left" if col in ("column", "task") else "right")
    for k in pert:
        t.add_column(k if k in TEMPORAL else f"Δ {k}", justify="right")
    for col, e in result["columns"].items():
        t.add_row(col, e["task"], fmt(e["law_mean"]), fmt(e["law_min"]), fmt(e["anti_mean"]), fmt(e["anti_max"]),
                  "yes" if e["anti_lower_every_variant"] else "[red]no[/red]", f"{e['auc']:.3f}",
                  f"{100 * e['unmeasurable_share']:.0f}%", gated(e), *(_shift_cell(e, k) for k in pert))
    for g in result.get("groups", []):
        paper = f" (paper {g['paper']:.2f})" if g.get("paper") is not None else ""
        t.add_row(f"[italic]{g['group']}[/italic]", f"{g['tasks']} tasks{paper}", fmt(g["law_mean"]), "",
                  fmt(g["anti_mean"]), "", "", "", "", "", *([""] * len(pert)), end_section=g is result["groups"][-1])
    o = result["overall"]
    paper = result.get("paper_overall")
    t.add_row("[bold]overall[/bold]", "" if paper is None else f"(paper {paper:.2f})",
              f"[bold]{fmt(o['law_mean'])}[/bold]", "", f"[bold]{fmt(o['anti_mean'])}[/bold]",
              "", "", f"{o['auc']:.3f}", f"{100 * o['unmeasurable_share']:.0f}%", gated(o),
              *(_shift_cell(o, k) if k in TEMPORAL else "" for k in pert))
    notes = [f"not drawn in this style: {', '.join(result['skipped'])}"] if result.get("skipped") else []
    for f in result.get("not_drawn", []):
        notes.append(f"[red]scene not drawn[/red]: {f['task']} seed {f['seed']} ({f['not_drawn']}); left out of the figures")
    if notes:
        t.caption = "\n".join(notes)
    return t
