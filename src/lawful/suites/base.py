"""What every task and suite provides, and the registry that finds them by name.

A :class:`Task` is small and declarative: it makes cases (first frame, prompt,
truth), renders the law-correct clip and its anti-physics twin, turns tracks
into a :class:`~lawful.result.Measurement`, and a measurement into scores.
It never decodes video itself: the runner perceives tracks and hands them over.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np

from lawful import images
from lawful.case import Case, case_seed
from lawful.choices import unknown  # noqa: F401  (suites.base.unknown: API before)
from lawful.perceive.plan import TrackingPlan
from lawful.result import Measurement, Score
from lawful.suite_registry import get_suite, register_suite, suite_names  # noqa: F401  (API: suites.base.get_suite)
from lawful.tracks import Tracks

Law = Literal["true", "anti"]


class Task(ABC):
    """One test of one law. Subclasses set the class attributes and implement the methods."""

    suite: ClassVar[str]
    name: ClassVar[str]
    label: ClassVar[str] = ""  # the seed's identifier, e.g. "P12"
    phenomena: ClassVar[tuple[str, ...]] = ()  # leaderboard columns this task's scores feed
    plan: ClassVar[TrackingPlan] = TrackingPlan()
    # ``case.known`` keys the task reads when present (key → what it is); required ones are in ``required_known``.
    optional_known: ClassVar[dict[str, str]] = {}
    # keys every watched object must state in its own ``known`` (key → what it is), e.g. a mass
    object_known: ClassVar[dict[str, str]] = {}
    # False: a judged task (PhyGround): the runner decodes nothing and scores ``measure(case, None)``
    perceives: ClassVar[bool] = True

    def case_ids(self, n: int) -> list[str]:
        """The ids of the task's first ``n`` cases (fewer when the task has a fixed, smaller set)."""
        return [f"{self.name}-{i:03d}" for i in range(n)]

    def case_problem(self, case: Case) -> str:
        """Why ``case`` cannot be evaluated by this task ('' when it can): a required object id
        (``object_ids`` or ``required_objects``), ``known`` value (``required_known``) or per-object
        ``known`` value (``object_known``) is missing."""
        ids = {o.id for o in case.objects}
        need = tuple(getattr(self, "object_ids", ()) or getattr(self, "required_objects", ()))
        for oid in need:
            if oid not in ids:
                return f"objects: no object '{oid}' (task '{self.name}' watches {', '.join(need)})"
        for key, what in getattr(self, "required_known", {}).items():
            if key not in case.known:
                return f"known.{key} is missing ({what})"
        for o in case.objects:
            if o.id in need:
                for key, what in self.object_known.items():
                    if key not in o.known:
                        return f"objects.{o.id}.known.{key} is missing ({what})"
        return ""

    def probes(self, case: Case) -> list:
        """Region readings (:class:`lawful.perceive.regions.Probe`) to take beside the tracks, in the same
        decoding pass; they arrive as ``tracks.regions[name]`` (default: none)."""
        return []

    def movers(self, case: Case) -> list:
        """Regions (case pixels of the first frame: boxes ``(x0, y0, x1, y1)`` or polygons) where something the
        scene sets in motion, and nobody tracks, moves: a pushing rod, its reflection. They are kept out of the
        camera's estimates (not of its still test), as the tracked objects' boxes are (default: none)."""
        return []

    def write_case(self, index: int, run_seed: int, case_id: str, folder: Path, options: dict | None = None) -> Path:
        """Make case ``index`` of a run seeded ``run_seed`` and write it as ``folder/<case_id>.json`` (and its first
        frame, if any, as ``<case_id>.png``); return the case file. ``options``: the run's suite options."""
        case, frame = self.make_case(index, case_seed(run_seed, self.suite, self.name, index))
        if frame is None:  # a text-only case (PhyGround): no first frame to write
            case = case.model_copy(update={"id": case_id})
        else:
            case = case.model_copy(update={"id": case_id, "first_frame": f"{case_id}.png"})
            images.write(folder / f"{case_id}.png", frame)  # (makes the folder)
        return case.save(folder)

    @abstractmethod
    def make_case(self, index: int, seed: int) -> tuple[Case, np.ndarray]:
        """A new case (parameters drawn from ``seed``) and its first frame ``[H, W, 3]`` uint8 RGB."""

    @abstractmethod
    def render(self, case: Case, law: Law = "true") -> Iterator[np.ndarray]:
        """Frames of the law-correct clip (``law='true'``) or its anti-physics twin (``'anti'``).

        Yields ``case.n_frames`` RGB frames; frame 0 equals the first frame.
        """

    @abstractmethod
    def measure(self, case: Case, tracks: Tracks) -> Measurement:
        """The task's observables from tracks (events, heights, periods …)."""

    @abstractmethod
    def score(self, case: Case, measurement: Measurement) -> dict[str, Score]:
        """Scores keyed by phenomenon/metric column (one key for most tasks)."""


@dataclass
class Suite:
    """A protocol: its tasks, how many cases each, and how its scores aggregate."""

    name: str
    tasks: dict[str, Task] = field(default_factory=dict)
    scale: tuple[float, float] = (0.0, 1.0)
    default_cases_per_task: int = 4
    # Optional overrides of the generic leaderboard (lawful.report.leaderboard):
    # aggregate(score_rows: list[dict]) -> dict  (the suite's leaderboard.json section)
    # table(section: dict) -> a rich renderable   (what `lawful run` prints)
    aggregate: Callable[[list[dict]], dict] | None = None
    # section(store) -> dict: the whole section instead (PhyGround: from judge answers; Apple-π: its own counts)
    section: Callable[[Any], dict] | None = None
    # What a model answers a case with, when it is not one video per rollout (None: a video, made by the model's
    # generator and scored by perception). Apple-π's five outputs per case in its release layout: an object with
    #   plan(store, suite, case_paths, models, out, rollouts, seed_base, options) -> (jobs, reused, notes)
    #   evaluate(job, case, task) -> lawful.job.Evaluation   (make the answers if missing, then score them)
    #   finish(store, out, models, options, progress) -> dict   (run-specific keys of the section, e.g. judge counts)
    answers: Any = None
    # export(out_dir, cases_per_task, seed) -> {"cases": n, "files": {...}} writes its prompts for elsewhere.
    export: Callable[..., dict] | None = None
    table: Callable[[dict], Any] | None = None
    # Judge rubrics whose stored values feed this suite's scores: rubric name → apply(rows, values) → rows,
    # where values maps lawful.store.VideoKey → {criterion: value}. Applied when the leaderboard is
    # recomputed, so a judged re-score never regenerates or re-measures a video.
    judged: dict[str, Callable[[list[dict], dict], list[dict]]] = field(default_factory=dict)
    # The paper's own run settings (`lawful run --preset paper`): cases_per_task, rollouts, seed_base, note.
    paper: dict[str, Any] = field(default_factory=dict)
    # Hooks for `lawful judge` (lawful.judges.cli reaches suites through lawful.suite_registry, never by name):
    # case_set(suite) -> iterable of (case, videos like it): overrides :meth:`judge_cases`;
    # on_judged(store, rubrics, publish, show) -> dict | None: see :meth:`after_judging`.
    case_set: Callable[[Suite], Iterable[tuple[Case, int]]] | None = None
    on_judged: Callable[..., dict | None] | None = None
    # judge(run_dir, rubric, client, store, *, models, redo, progress) -> lawful.judges.judge.RunReport | None: how
    # lawful.judges.judge.judge_run judges this suite's rows when they are not one video each (Apple-π; None:
    # the run holds none, judge its videos as every suite's)
    judge: Callable[..., Any] | None = None

    def judge_cases(self) -> Iterator[tuple[Case, int]]:
        """(case, how many videos like it) standing for the suite's default case set in a judging cost
        estimate (`lawful judge plan`): each task's first case, standing for ``default_cases_per_task`` cases."""
        if self.case_set is not None:
            yield from self.case_set(self)
            return
        for task in self.tasks.values():
            case, _ = task.make_case(0, 0)
            yield case.model_copy(update={"suite": self.name}), self.default_cases_per_task

    def after_judging(self, store, rubrics: set[str], publish: Callable[[list[str], dict], dict],
                      show: Callable[[Any], None]) -> dict | None:
        """After `lawful judge` stored answers of ``rubrics`` (names, all of this suite's protocol): update the
        run's leaderboard through ``publish(suites, extra_sections) -> board`` (the judges' writer: suites do not
        import the report layer), ``show`` tables, and return model → where each video's score came from for
        the judge summary (None: nothing to say). The default does nothing."""
        return self.on_judged(store, rubrics, publish, show) if self.on_judged is not None else None

    def task_names(self) -> tuple[str, ...]:
        """Names of the suite's tasks."""
        return tuple(self.tasks)

    def match_tasks(self, names) -> list[str]:
        """The suite's tasks among ``names`` (task names or seed labels such as 'P3', any case), in suite order."""
        want = {n.lower() for n in names}
        labels = {t.name: (t.label or "").lower() for t in self.tasks.values()}
        return [n for n in self.task_names() if n.lower() in want or labels.get(n, "") in want]

    def task(self, name: str) -> Task:
        try:
            return self.tasks[name]
        except KeyError:
            raise KeyError(unknown(name, self.tasks, f"task of suite '{self.name}'")) from None

    def columns(self) -> list[str]:
        cols: list[str] = []
        for t in self.tasks.values():
            for p in t.phenomena or (t.name,):
                if p not in cols:
                    cols.append(p)
        return cols


def discover_tasks(package: str, path, pattern: str, base: type) -> list[type]:
    """Concrete subclasses of ``base`` with a label, one per module of ``package`` (its ``__path__``) whose
    name matches ``pattern``, ordered by the label's number: a new task module needs no registration."""
    import importlib
    import inspect
    import pkgutil

    rx, found = re.compile(pattern), []
    for info in pkgutil.iter_modules(path):
        if not rx.match(info.name):
            continue
        mod = importlib.import_module(f"{package}.{info.name}")
        for _, cls in inspect.getmembers(mod, inspect.isclass):
            if (issubclass(cls, base) and cls.__module__ == mod.__name__ and getattr(cls, "label", "")
                    and not inspect.isabstract(cls)):
                found.append(cls)
    return sorted(found, key=lambda c: (int(re.sub(r"\D", "", c.label) or 0), c.__name__))

