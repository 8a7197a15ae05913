"""Apple-π: Perception → Formulation → Deduction on Orchard-style cases (seed 000, appendices E–G).

Ten tasks in four pillars (UniversalGravitation: FreeFall, ProjectileMotion, InclinedPlane,
CircularMotion; ConservationOfMomentum: PerfectlyElasticCollision, PerfectlyInelasticCollision,
InelasticCollision; NewtonsFirstLaw: AtRest, UniformLinearMotion; MultiLaw: Composition), five
subtracks, three rollouts per case, in the public release's dataset and prediction layouts.

The ten tasks are tasks of the common runner (:mod:`lawful.suites.applepi.tasks`): ``lawful run`` builds each
case's dataset folder and case file, plans one job per (case, model, rollout) and stores one row per job like
every suite; what differs is what a model answers with, five outputs per rollout in the release layout
(:mod:`lawful.suites.applepi.answers`, the suite's ``answers``). The section is recomputed from the store
(``store_section``). Entry points at the edge (all in :mod:`lawful.suites.applepi.run`, on the same runner)::

    run_applepi(out_dir, models=("reference", "counterfactual", "static"), cases_per_task=2, seed=0,
                dataset=None, workers=None, progress=True, width=832, height=480, tasks=None,
                ocr=False, motion_masks=False, protocol="video", store=None, duration=2.0, gt_fps=24.0,
                dense_maps=False) -> dict
        # builds (or reads, with dataset=PATH) the dataset, writes the built-in models' outputs under
        # out_dir/applepi/predictions/<model>/, scores them into out_dir/results.sqlite and returns the
        # leaderboard.json "applepi" section:
        # {"scale": [0, 1], "models": {model: {"overall", "subtracks", "pillars", "tasks", "sources",
        #   "metrics", "task_metrics", "scoring", "cases", "videos", "scored", "unmeasurable", "invalid"}},
        #  "ocr": engine or None}

    evaluate_predictions(dataset_dir, predictions_dir, out_dir, model=None, workers=None, progress=True,
                         ocr=False, motion_masks=False, store=None) -> dict
        # validates (missing / unreadable outputs listed under "validation") and scores predictions in
        # the release layout; same section shape as run_applepi.
        # motion_masks=True (both functions): Deduction also gets Physics-IQ's motion-mask IoUs
        # (spatial_iou_motion, spatiotemporal_iou_motion, weighted_spatial_iou_motion), made in Physics-IQ's
        # order (lawful.suites.applepi.motion); every job of a case runs in one worker, so a case's
        # ground truth is read and derived once.

    export_prompts(out_dir, dataset=None, cases_per_task=2, seed=0, protocols=("video", "image"),
                   width=832, height=480, tasks=None, workers=None, progress=True) -> dict
        # out_dir/applepi/prompts/<protocol>/<subtrack>.jsonl

    aggregate_rows(store_rows) -> dict         # the same section from Store.scores("applepi") rows
    store_section(store) -> dict              # ... from everything a run's store holds (lawful report, judge)
    apply_judge(store, values=None) -> int     # judge rubric values -> the paper's fused subtrack scores
    table(section) -> rich.table.Table        # models × overall / subtracks / pillars
    task_table(section) -> rich.table.Table   # tasks × models

Without judge values every subtrack is reported by its objective-only score (keys ``<subtrack>_objective``,
``"scoring": "objective-only …"``); judge values recorded in the store under rubric ``applepi.<subtrack>``
switch a model to the paper's fused scores (see :mod:`lawful.suites.applepi.fusion`).
"""

from __future__ import annotations

from lawful.suites.base import Suite, register_suite


@register_suite("applepi")
def make_suite() -> Suite:
    from lawful.suites.applepi.answers import ReleaseAnswers
    from lawful.suites.applepi.fusion import SUBTRACKS, rubric_name
    from lawful.suites.applepi.judging import judge_rubric
    from lawful.suites.applepi.run import DEFAULT_CASES_PER_TASK, export_prompts, store_section, tables
    from lawful.suites.applepi.scenario import TASKS
    from lawful.suites.applepi.tasks import ApplePiTask

    return Suite(name="applepi", tasks={t: ApplePiTask(t) for t in TASKS}, scale=(0.0, 1.0),
                 default_cases_per_task=DEFAULT_CASES_PER_TASK, section=store_section, table=tables,
                 answers=ReleaseAnswers(), export=export_prompts, judge=judge_rubric,
                 # judged values are fused into the stored rows when judging (fused.apply_judge), read as stored
                 judged={rubric_name(s): _as_stored for s in SUBTRACKS},
                 paper={"cases_per_task": 40, "rollouts": 3, "note": "Orchard's 400 cases (10 tasks x 40), three rollouts"},
                 case_set=judge_cases, on_judged=after_judging)


def _as_stored(rows: list[dict], values: dict) -> list[dict]:
    return rows


def after_judging(store, rubrics: set[str], publish, show) -> None:
    """After ``lawful judge`` with an Apple-π rubric: rewrite the run's applepi section (now fused where judged)."""
    from lawful.suites.applepi.run import store_section, tables

    section = store_section(store)
    publish([], {"applepi": section})
    show(tables(section))


def judge_cases(suite: Suite):
    """Apple-π's cases for ``lawful judge plan``: each of its ten tasks once per
    subtrack, at the suite's default size (832 x 480, 2 s at 24 fps), standing for ``default_cases_per_task``
    cases of three rollouts each (the release's ``num_rollouts``)."""
    from lawful.case import Case
    from lawful.suites.applepi.scenes import TASKS

    refs = {"annotations_only_reference": "x.png", "objects_only_reference": "x.png",
            "future_state_reference": "x.png", "correct_letter": "A", "correct_formula": "h = g t^2 / 2",
            "annotation": "Environment: g=-9.81"}
    for task in TASKS:
        for sub in ("perception-text", "perception-graphic", "formulation-text", "formulation-graphic", "deduction"):
            case = Case(id=f"{task}-{sub}", suite="applepi", task=task, width=832, height=480, fps=24.0,
                        duration=2.0, known={"subtrack": sub, **refs})
            yield case, 3 * suite.default_cases_per_task


def __getattr__(name: str):
    if name in ("run_applepi", "evaluate_predictions", "export_prompts", "table", "task_table", "build_dataset",
                "aggregate_rows"):
        from lawful.suites.applepi import run

        return getattr(run, name)
    if name == "apply_judge":
        from lawful.suites.applepi.fused import apply_judge

        return apply_judge
    raise AttributeError(name)
