"""The case contract: one concrete test, serialised as JSON beside its first frame.

A case says what to show a model (first frame, prompt, duration, fps), which
objects to watch (:class:`ObjectSpec`), what is known about the scene (heights,
lengths, masses, the image-space geometry of lines the law refers to) and, for
synthetic cases, the ground truth the reference render obeys.

Coordinates are image pixels of the first frame, origin top-left, ``y`` down.
Times are physical seconds: the whole decoded clip spans ``duration``.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

SHAPES = ("sphere", "block", "cylinder", "hollow_cylinder", "cone", "bob", "other")


class CaseError(ValueError):
    """A case file that cannot be used; the message is one line for the user."""


class ObjectSpec(BaseModel):
    """One object to watch: how to find it in the first frame and what is known of it."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Identifier used in tracks and measurements, e.g. 'ball_1'.")
    shape: Literal["sphere", "block", "cylinder", "hollow_cylinder", "cone", "bob", "other"] = "other"
    color: tuple[int, int, int] | None = Field(
        default=None, description="Approximate RGB colour (0-255) of the object in the first frame."
    )
    box: tuple[float, float, float, float] | None = Field(
        default=None, description="First-frame bounding box [x0, y0, x1, y1] in pixels."
    )
    mask: str | None = Field(default=None, description="Optional first-frame mask PNG, relative to the case file.")
    known: dict[str, float] = Field(
        default_factory=dict, description="Known physical quantities of this object (SI units): mass, height, length …"
    )

    @model_validator(mode="after")
    def _findable(self) -> "ObjectSpec":
        if self.color is None and self.box is None and self.mask is None:
            raise ValueError(f"object '{self.id}' needs a color, a box or a mask so it can be found")
        if self.box is not None:
            x0, y0, x1, y1 = self.box
            if x1 <= x0 or y1 <= y0:
                raise ValueError(f"object '{self.id}' box must be [x0, y0, x1, y1] with x1 > x0 and y1 > y0")
        return self


Box = tuple[float, float, float, float]
Polygon = list[tuple[float, float]]  # vertices [[x, y], ...], at least three
Region = Box | Polygon  # a box [x0, y0, x1, y1] or a polygon


def region_box(r: Region) -> Box:
    """Bounding box ``(x0, y0, x1, y1)`` of a box or a polygon."""
    if is_box(r):
        return tuple(float(v) for v in r)  # type: ignore[return-value]
    xs, ys = [float(p[0]) for p in r], [float(p[1]) for p in r]
    return (min(xs), min(ys), max(xs), max(ys))


def pad_box(box: Box, p: float = 1.0) -> Box:
    """``box`` grown by ``p`` px on every side."""
    return (box[0] - p, box[1] - p, box[2] + p, box[3] + p)


def is_box(r: Region) -> bool:
    """Whether region ``r`` is a box (four numbers) rather than a polygon (vertex pairs)."""
    return len(r) == 4 and np.ndim(r[0]) == 0


class Window(BaseModel):
    """The part of a video to evaluate: frames (or seconds of the file) ``start`` to ``end`` inclusive.

    Nothing outside it is read; frame ``start`` becomes the clip's first frame (time 0).
    """

    model_config = ConfigDict(extra="forbid")

    start: float = Field(default=0, ge=0, description="First frame (or second, with unit 's') evaluated.")
    end: float | None = Field(default=None, description="Last frame (or second) evaluated; default: the end.")
    unit: Literal["frame", "s"] = Field(default="frame", description="'frame' (0-based decoded frames) or 's'.")

    @model_validator(mode="after")
    def _ordered(self) -> "Window":
        if self.end is not None and self.end <= self.start:
            raise ValueError(f"window end ({self.end}) must come after its start ({self.start})")
        return self

    def frames(self, fps: float, n_frames: int | None = None) -> tuple[int, int | None]:
        """``(first, last)`` decoded frame indices (inclusive; last None = to the end) at the file's ``fps``."""
        k = 1.0 if self.unit == "frame" else fps
        first = int(round(self.start * k))
        last = None if self.end is None else int(round(self.end * k))
        if n_frames is not None and last is not None:
            last = min(last, n_frames - 1)
        return first, last


def _check_box(b: Region, what: str) -> Region:
    if not is_box(b):
        if len(b) < 3:
            raise ValueError(f"{what} must be a box [x0, y0, x1, y1] or a polygon of at least 3 [x, y] points")
        _finite([list(p) for p in b], what)
        xs, ys = [p[0] for p in b], [p[1] for p in b]
        area = 0.5 * abs(sum(xs[i] * ys[i - 1] - xs[i - 1] * ys[i] for i in range(len(b))))
        if not area > 0:
            raise ValueError(f"{what}: the polygon has no area")
        return b
    x0, y0, x1, y1 = b
    if x1 <= x0 or y1 <= y0:
        raise ValueError(f"{what} must be [x0, y0, x1, y1] with x1 > x0 and y1 > y0")
    return b


def _finite(value: Any, where: str) -> None:
    """Raise ValueError naming ``where`` if a number anywhere in ``value`` is NaN or infinite."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where} is {value}: only finite numbers are allowed")
    if isinstance(value, dict):
        for k, v in value.items():
            _finite(v, f"{where}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _finite(v, f"{where}[{i}]")


class GroundTruth(BaseModel):
    """What the law-correct render of a synthetic case contains.

    ``tracks`` maps object id to rows ``[t, x, y]`` (seconds, pixels: centroid);
    ``events`` maps event names to physical times in seconds; ``quantities``
    holds the invariant's true values (e.g. ``F1``, ``F2``, periods, ratios).
    """

    model_config = ConfigDict(extra="forbid")

    tracks: dict[str, list[tuple[float, float, float]]] = Field(default_factory=dict)
    events: dict[str, float] = Field(default_factory=dict)
    quantities: dict[str, float] = Field(default_factory=dict)


class Case(BaseModel):
    """One concrete test. See ``docs/case-format.md``."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1, 2] = Field(default=1, description="2 adds window, release, roi, exclude, camera, "
                                          "rotation and capture_fps; version-1 files load unchanged.")
    id: str = Field(description="Unique case id; also the stem of the video file to score.")
    suite: str = Field(description="Protocol: principia, wmle, applepi, phyground.")
    task: str = Field(description="Phenomenon or task name within the suite, e.g. 'pendulum'.")
    prompt: str = Field(default="", description="Text given to the model with the first frame.")
    first_frame: str | None = Field(default=None, description="First-frame PNG, relative to the case file.")
    width: int = Field(default=832, gt=0)
    height: int = Field(default=480, gt=0)
    fps: float = Field(default=24.0, gt=0, description="Requested frame rate.")
    duration: float = Field(default=4.0, gt=0, description="Requested physical duration in seconds.")
    objects: list[ObjectSpec] = Field(default_factory=list)
    assumptions: list[str] = Field(default_factory=list, description="Physical assumptions stated to the model.")
    known: dict[str, Any] = Field(
        default_factory=dict,
        description="Known quantities of the scene (SI units) and its image geometry in pixels "
        "(e.g. ground_y, finish_line, anchor_x).",
    )
    criteria: list[str] = Field(default_factory=list, description="Metric names this case is scored on.")
    seed: int | None = None
    variant: str | None = Field(default=None, description="Appearance variant name, if any.")
    truth: GroundTruth | None = None
    # --- schema 2: recordings and clips unlike the prompt's -----------------------------------
    window: Window | None = Field(default=None, description="Part of the video to evaluate (frames or seconds).")
    release: float | None = Field(default=None, ge=0, description="Release time in seconds from the window's "
                                  "start, when the clip shows it (default: detected from the motion).")
    roi: Region | None = Field(default=None, description="Box [x0, y0, x1, y1] or polygon [[x, y], ...] the "
                               "objects stay in (pixels).")
    exclude: list[Region] = Field(default_factory=list, description="Boxes or polygons to ignore: people, hands, "
                                  "look-alikes.")
    camera: Literal["fixed", "moving", "auto"] = Field(default="auto", description="fixed: no camera "
                                                       "compensation; moving: always compensate; auto: decide.")
    rotation: Literal[0, 90, 180, 270] | None = Field(default=None, description="Clockwise rotation (degrees) "
                                                      "that shows the video upright; default: the file's own.")
    capture_fps: float | None = Field(default=None, gt=0, description="True capture rate (frames per second "
                                      "of real time, e.g. 120 for slow motion); then time = frame / capture_fps.")
    _dir: Path | None = PrivateAttr(default=None)  # folder of the case file it was loaded from

    @model_validator(mode="after")
    def _sound(self) -> "Case":
        _finite(self.known, "known")
        for o in self.objects:
            _finite(o.known, f"objects[{o.id}].known")
            if o.box is not None:
                _finite(list(o.box), f"objects[{o.id}].box")
        for name in ("duration", "fps", "release", "capture_fps"):
            _finite(getattr(self, name), name)
        if self.roi is not None:
            if is_box(self.roi):
                _finite(list(self.roi), "roi")
            _check_box(self.roi, "roi")
            x0, y0, x1, y1 = region_box(self.roi)
            if x1 <= 0 or y1 <= 0 or x0 >= self.width or y0 >= self.height:
                shown = list(self.roi) if is_box(self.roi) else [list(p) for p in self.roi]
                raise ValueError(f"roi {shown} lies outside the {self.width}x{self.height} frame")
        for i, b in enumerate(self.exclude):
            if is_box(b):
                _finite(list(b), f"exclude[{i}]")
            _check_box(b, f"exclude[{i}]")
        if self.window is not None:
            _finite([self.window.start, self.window.end], "window")
        ids = [o.id for o in self.objects]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"object id '{dup[0]}' appears twice")
        return self

    @field_validator("id")
    @classmethod
    def _safe_id(cls, v: str) -> str:
        if not v or any(c in v for c in "/\\") or v.startswith("."):
            raise ValueError("id must be a non-empty file-name-safe string")
        if "__" in v:
            raise ValueError("id must not contain '__' (it separates rollouts in video names)")
        return v

    def __eq__(self, other: object) -> bool:  # where a case was read from is not part of it
        return isinstance(other, Case) and self.model_dump() == other.model_dump()

    @property
    def n_frames(self) -> int:
        """Frames a generator is asked for: ``round(duration * fps)``."""
        return max(1, int(round(self.duration * self.fps)))

    def object(self, oid: str) -> ObjectSpec:
        for o in self.objects:
            if o.id == oid:
                return o
        raise KeyError(f"case {self.id} has no object '{oid}'")

    # --- files ---------------------------------------------------------------------------
    def save(self, directory: str | Path) -> Path:
        """Write ``<id>.json`` into ``directory`` and return its path."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.id}.json"
        path.write_text(self.model_dump_json(indent=2, exclude_none=True))
        return path

    def resolve(self, relative: str) -> Path:
        """A path the case file gives (a mask, say) as a real path: relative to the case file's
        folder when the case was read with :func:`load_case`, else to the working directory."""
        p = Path(relative)
        return self._dir / p if self._dir is not None and not p.is_absolute() else p

    def first_frame_path(self, case_file: str | Path) -> Path | None:
        if self.first_frame is None:
            return None
        return Path(case_file).parent / self.first_frame


def load_case(path: str | Path) -> Case:
    """Read a case file; any problem becomes one :class:`CaseError` line."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise CaseError(f"{path}: no such case file") from None
    except json.JSONDecodeError as e:
        raise CaseError(f"{path}: not valid JSON ({e.msg} at line {e.lineno})") from None
    except UnicodeDecodeError as e:
        raise CaseError(f"{path}: not UTF-8 text (byte {e.start}); save the case file as UTF-8") from None
    except OSError as e:
        raise CaseError(f"{path}: cannot read ({e.strerror or type(e).__name__})") from None
    try:
        case = Case.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "case"
        raise CaseError(f"{path}: {where}: {first['msg']}") from None
    case._dir = path.parent
    problem = _task_problem(case)
    if problem:
        raise CaseError(f"{path}: {problem}")
    return case


def _task_problem(case: Case) -> str:
    """What the case's task needs and the case lacks (objects, known values); '' if fine or the task is unknown
    (an unknown task is reported where the case is evaluated, with a did-you-mean)."""
    from lawful.suite_registry import get_suite

    try:
        task = get_suite(case.suite).task(case.task)
    except KeyError:
        return ""
    return task.case_problem(case)


def case_schema() -> dict:
    """JSON Schema of the case file, generated from the models."""
    return Case.model_json_schema()


def case_seed(seed: int, suite: str, task: str, index: int) -> int:
    """A stable per-case seed (independent of Python's hash randomisation)."""
    h = hashlib.sha256(f"{seed}/{suite}/{task}/{index}".encode()).digest()
    return int.from_bytes(h[:4], "little")
