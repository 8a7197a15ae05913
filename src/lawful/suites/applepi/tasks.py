"""Apple-π's ten tasks as tasks of the common runner.

A case is one case folder of a dataset in the release layout (:mod:`lawful.suites.applepi.dataset`) plus a
case file under the run's ``cases/applepi/`` that points at it (``known``: ``dataset`` root, relative to the
case file when it lies in the run folder, and the dataset ``entry``). Building a case simulates, renders and
writes its folder into the run's ``applepi/dataset/`` (:func:`~lawful.suites.applepi.build.write_case`) with
the seed ``run seed × 1000 + index``; an official dataset is read through :func:`case_files` instead.
What a model answers with (five outputs per rollout) and how it is scored: :mod:`lawful.suites.applepi.answers`.
"""

from __future__ import annotations

import os
from pathlib import Path

from lawful.case import Case, load_case
from lawful.result import Measurement, Score
from lawful.suites.applepi import scenario
from lawful.suites.base import Task

SUITE = "applepi"
# build options (``lawful run`` keeps the defaults; run_applepi and tests set smaller ones)
DEFAULTS = {"width": 832, "height": 480, "duration": 2.0, "gt_fps": 24.0, "dense_maps": False}


class ApplePiTask(Task):
    """One of the ten tasks (``name``: e.g. ``FreeFall``); its columns are the five subtracks (stored per rollout)."""

    suite = SUITE
    perceives = False  # scored from its answers, not tracked

    def __init__(self, name: str):
        self.name = self.label = name
        self.pillar = scenario.PILLAR_OF[name]

    def case_ids(self, n: int) -> list[str]:
        return [f"{self.name}_{i + 1:06d}" for i in range(n)]

    def write_case(self, index: int, run_seed: int, case_id: str, folder: Path, options: dict | None = None) -> Path:
        """Simulate and write the case's folder into the run's ``applepi/dataset`` (kept if already there) and
        the case file pointing at it."""
        from lawful.suites.applepi.build import case_relpath, write_case

        o = {**DEFAULTS, **{k: v for k, v in (options or {}).items() if k in DEFAULTS and v is not None}}
        root = Path(folder).parent.parent / SUITE / "dataset"
        number, seed = index + 1, run_seed * 1000 + index
        entry = {"case_id": case_id, "path": case_relpath(self.name, number), "split": "test"}
        if not (root / entry["path"] / "lawful.json").exists():
            write_case(root, self.name, number, seed, o["width"], o["height"], o["gt_fps"], o["duration"], seed,
                       o["dense_maps"])
        return case_file(self.name, entry, root, folder, o)

    def make_case(self, index: int, seed: int):
        raise NotImplementedError("Apple-π cases are dataset folders: see write_case")

    def render(self, case: Case, law: str = "true"):
        raise NotImplementedError("Apple-π's answers are written by lawful.suites.applepi.models")

    def measure(self, case: Case, tracks) -> Measurement:
        return Measurement(notes={"scored_by": "lawful.suites.applepi.answers"})

    def score(self, case: Case, measurement: Measurement) -> dict[str, Score]:
        return {}


def case_file(task: str, entry: dict, root: Path, folder: Path, o: dict | None = None) -> Path:
    """Write ``folder/<case_id>.json`` for a dataset entry (``root``: the dataset, relative when inside the run)."""
    o = {**DEFAULTS, **(o or {})}
    folder = Path(folder)
    try:
        where = os.path.relpath(Path(root).resolve(), folder.resolve())
    except ValueError:  # another drive
        where = str(Path(root).resolve())
    if where.startswith(".." + os.sep + ".." + os.sep + ".."):  # outside the run folder: keep it absolute
        where = str(Path(root).resolve())
    case = Case(id=entry["case_id"], suite=SUITE, task=task, width=o["width"], height=o["height"], fps=o["gt_fps"],
                duration=o["duration"], known={"dataset": where, "entry": entry})
    return case.save(folder)


def case_files(dataset, folder: Path) -> list[Path]:
    """Case files for every entry of a dataset read from disk (the official release, or one built elsewhere);
    an entry whose folder cannot be read still gets a file, so its jobs record why it is invalid."""
    from lawful.suites.applepi.dataset import DatasetError, GTCase

    paths = []
    for entry in dataset.entries:
        task, o = next((t for t in scenario.TASKS if f"/{t}/" in f"/{entry.get('path', '')}/"), scenario.TASKS[0]), None
        try:
            gt = GTCase(dataset.root, entry)
            task, (h, w) = gt.task, gt.shape
            o = {"width": w, "height": h, "duration": gt.physics_duration, "gt_fps": gt.gt_fps}
        except (DatasetError, OSError, ValueError, KeyError):
            pass
        paths.append(case_file(task if task in scenario.TASKS else scenario.TASKS[0], entry, dataset.root, folder, o))
    return paths


def gt_case(case: Case):
    """The :class:`~lawful.suites.applepi.dataset.GTCase` a case file points at."""
    from lawful.suites.applepi.dataset import GTCase

    root = Path(case.known["dataset"])
    if not root.is_absolute() and case._dir is not None:
        root = case._dir / root
    return GTCase(root, case.known["entry"])


def load(case_path: str | Path):
    """``(case, its GTCase)`` from a case file."""
    case = load_case(case_path)
    return case, gt_case(case)
