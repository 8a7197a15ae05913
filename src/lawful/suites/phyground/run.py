"""PhyGround's own flow: cases → videos → judge (two rubrics) → leaderboard section.

``run_phyground`` is what ``lawful run --suite phyground`` calls. Without a judge it still
writes the cases and the built-in models' videos (so ``lawful judge --run DIR`` can score them
later) and returns a section saying a judge is required; it never invents scores.

The cases are the built-in set, or a prompt set loaded by :mod:`lawful.suites.phyground.prompts`
(``prompts=PATH``, or the file named by ``LAWFUL_PHYGROUND_PROMPTS``).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from PIL import Image

from lawful.judges.cache import JudgeCache
from lawful.judges.client import JudgeClient, JudgeConfig
from lawful.judges.judge import CACHE_DIR, STORE_FILE, VideoItem, judge_items
from lawful.judges.rubric import load_rubric
from lawful.store import Store, VideoKey
from lawful.suites.phyground.cases import CASES, CaseSpec, build_case
from lawful.suites.phyground.prompts import load_prompts, off_rule, prompts_from_env
from lawful.suites.phyground.scoring import GENERAL_RUBRIC, JUDGE_REQUIRED, LAW_RUBRIC, aggregate_judgements

SUITE = "phyground"


def case_specs(prompts: str | Path | None = None) -> tuple[Sequence[CaseSpec], str]:
    """The cases to run and where they came from: the prompt file ``prompts`` (or ``LAWFUL_PHYGROUND_PROMPTS``),
    else the built-in set. Prompts tagged outside PhyGround's 2-4 laws are kept, with a warning on stderr."""
    path = prompts or prompts_from_env()
    if path is None:
        return CASES, "built-in"
    specs = load_prompts(path)
    odd = off_rule(specs)
    if odd:
        sys.stderr.write(f"warning: {len(odd)} prompt(s) not tagged with 2-4 laws as PhyGround requires: "
                         f"{', '.join(odd[:5])}{' …' if len(odd) > 5 else ''}\n")
    return specs, str(path)


def write_cases(out_dir: str | Path, n: int | None = None, specs: Sequence[CaseSpec] | None = None) -> list[Path]:
    """Write (or reuse) the first ``n`` cases of ``specs`` (default: the built-in set): ``<id>.json`` and, when
    the case has a first frame (drawn, or a loaded prompt's image), ``<id>.png``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    specs = CASES if specs is None else specs
    paths = []
    for spec in specs[: n or len(specs)]:
        path = out_dir / f"{spec.id}.json"
        if not path.exists():
            case, frame = build_case(spec)
            if frame is not None:
                Image.fromarray(frame).save(out_dir / f"{spec.id}.png")
                case = case.model_copy(update={"first_frame": f"{spec.id}.png"})
            case.save(out_dir)
        paths.append(path)
    return paths


def export_prompts(out_dir: str | Path, cases_per_task: int | None = None, seed: int = 0,
                   prompts: str | Path | None = None) -> int:
    """Cases for generation elsewhere: ``<id>.json``, ``<id>.png`` (first frames) and ``<id>.txt`` (prompt)."""
    from lawful.case import load_case

    paths = write_cases(out_dir, cases_per_task, case_specs(prompts)[0])
    for p in paths:
        p.with_suffix(".txt").write_text(load_case(p).prompt + "\n")
    return len(paths)


def make_videos(case_paths: list[Path], models, out_dir: Path, progress: bool = False) -> list[VideoItem]:
    """Videos of every model for every case it can produce (built-in renders exist only for drawn
    cases; a folder model contributes the rollouts it has)."""
    from lawful.progress import progress_bar

    items = []
    with progress_bar(progress) as bar:
        task = bar.add_task("phyground videos", total=len(models) * len(case_paths))
        for model in models:
            items += _model_videos(model, case_paths, out_dir, bar, task)
    return items


def _model_videos(model: str, case_paths: list[Path], out_dir: Path, bar, task) -> list[VideoItem]:
    from lawful.case import load_case
    from lawful.generators.base import GenerationError, get_generator
    from lawful.generators.external import Folder
    from lawful.store import model_dir_name

    items = []
    gen = get_generator(model)
    label = gen.name or model
    for cp in case_paths:
        bar.advance(task)
        case = load_case(cp)
        if isinstance(gen, Folder):
            for k, path in sorted(gen.rollouts(case.id).items()):
                items.append(VideoItem(VideoKey(SUITE, case.id, label, k), case, Path(path), cp))
            continue
        out = out_dir / "videos" / model_dir_name(label) / f"{case.id}__0.mp4"
        if not out.exists():
            try:
                out = gen.generate(case, case.first_frame_path(cp), out, 0)
            except (GenerationError, NotImplementedError):
                continue  # e.g. a text-only case and a renderer: nothing to judge
        items.append(VideoItem(VideoKey(SUITE, case.id, label, 0), case, Path(out), cp))
    return items


def law_table(section: dict):
    """Per-law means (1-5) of every model as a rich table: the 13 columns of the taxonomy, grouped by domain,
    with each law's count of scored (case, law) instances; '–' where a law has no scored instance."""
    from rich.table import Table

    from lawful.suites.phyground.taxonomy import LAWS

    t = Table(title="phyground per law (1-5; n = scored case-law instances)")
    t.add_column("model", style="bold")
    for law in LAWS:
        t.add_column(f"{law.name.split(' (')[0]}\n[dim]{law.domain}[/dim]", justify="right")
    for model, m in section.get("models", {}).items():
        laws, n = m.get("laws", {}), m.get("instances", {}).get("laws", {})
        t.add_row(model, *[f"{laws[k.key]:.2f} ({n[k.key]})" if k.key in laws else "–" for k in LAWS])
    return t


def phyground_section(store: Store) -> dict:
    """The leaderboard section from the store's PhyGround judgements."""
    return aggregate_judgements(store.judgements(suite=SUITE))


def run_phyground(out_dir: str | Path, models=("reference", "counterfactual", "static"),
                  judge_config: JudgeConfig | None = None, cases_per_task: int | None = None, seed: int = 0,
                  workers: int = 0, progress: bool = True, redo: bool = False,
                  prompts: str | Path | None = None) -> dict:
    """Build the cases, make the videos, judge them with both rubrics and return the section (scale 1-5).

    ``cases_per_task`` takes the first n cases of the set; ``prompts`` a prompt file to use instead of the
    built-in set (default: ``LAWFUL_PHYGROUND_PROMPTS`` when set); ``seed`` and ``workers`` are accepted for
    the common runner signature (the set is fixed, rendering is cheap).
    """
    out_dir = Path(out_dir)
    specs, origin = case_specs(prompts)
    case_paths = write_cases(out_dir / "cases" / SUITE, cases_per_task, specs)
    items = make_videos(case_paths, models, out_dir, progress)
    videos = dict(Counter(it.key.model for it in items))
    if judge_config is None:
        return {"scale": [1, 5], "status": "judge required", "reason": JUDGE_REQUIRED, "videos": videos,
                "cases": len(case_paths), "prompt_set": origin, "models": {}}
    client = JudgeClient(judge_config, JudgeCache(out_dir / CACHE_DIR))
    with Store(out_dir / STORE_FILE) as store:
        reports = {name: judge_items(items, load_rubric(name), client, store, redo=redo)
                   for name in (GENERAL_RUBRIC, LAW_RUBRIC)}
        section = phyground_section(store)
    section["judge"] = {"model": judge_config.model, "rubrics": [load_rubric(n).id for n in reports],
                        "statuses": {n: dict(r.statuses) for n, r in reports.items()},
                        "usage": dict(client.usage.counts), "summary": client.usage.summary()}
    section["videos"] = videos
    section["prompt_set"] = origin
    return section
