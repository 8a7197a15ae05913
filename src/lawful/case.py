"""The case contract: one concrete test, serialised as JSON beside its first frame.

A case says what to show a model (first frame, prompt, duration, fps), which
objects to watch (:class:`ObjectSpec`), what is known about the scene (heights,
lengths, masses, the image-space geometry of lines the law refers to) and, for
synthetic cases, the ground truth the reference render obeys.

Coordinates are image pixels of the first frame, origin top-left, ``y`` down.
Times are physical seconds: the whole decoded clip spans ``duration``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

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

    schema_version: int = 1
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
    _dir: Path | None = PrivateAttr(default=None)  # folder of the case file it was loaded from

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
    return case


def case_schema() -> dict:
    """JSON Schema of the case file, generated from the models."""
    return Case.model_json_schema()
