"""Measurements and scores: what a task extracts from tracks and what the formulas make of it.

Status is data, not an exception:

- ``scored``        every quantity the formula needs was measured;
- ``unmeasurable``  the video is readable but does not show what the law needs
                    (object lost, event never happens); ``reason`` says which;
- ``invalid``       the input itself is broken (unreadable, empty, too short).
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, Field

Status = Literal["scored", "unmeasurable", "invalid"]


def finite_float(v: Any) -> float | None:
    """``v`` as a finite float, else None (None, booleans, non-numbers, NaN and inf all give None)."""
    if v is None or isinstance(v, bool):
        return None
    try:
        f = float(v.strip() if isinstance(v, str) else v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


class Event(BaseModel):
    """A detected event of one object: its name, frame index (fractional when interpolated) and time."""

    object: str
    name: str
    frame: float
    t: float
    value: float | None = None
    confidence: float = 1.0


class Measurement(BaseModel):
    """Quantities measured on one video, with the events they came from.

    A quantity that could not be measured is ``None`` and ``missing`` holds the reason.
    """

    quantities: dict[str, float | None] = Field(default_factory=dict)
    events: list[Event] = Field(default_factory=list)
    missing: dict[str, str] = Field(default_factory=dict)
    notes: dict[str, Any] = Field(default_factory=dict)

    def set(self, name: str, value: float | None, reason: str = "") -> None:
        """Record a quantity; a None/NaN/inf value is stored as missing with ``reason``."""
        if value is None or not math.isfinite(float(value)):
            self.quantities[name] = None
            self.missing[name] = reason or "not measured"
        else:
            self.quantities[name] = float(value)
            self.missing.pop(name, None)

    def get(self, name: str) -> float | None:
        return self.quantities.get(name)


class Score(BaseModel):
    """The score of one video: per-metric values in [0, 1], the composite, the status and evidence.

    ``metrics`` holds each metric's value; ``residuals`` the error each came from;
    ``value`` the composite on the suite's scale (``None`` unless ``status == 'scored'``).
    """

    status: Status
    value: float | None = None
    reason: str = ""
    metrics: dict[str, float | None] = Field(default_factory=dict)
    residuals: dict[str, float | None] = Field(default_factory=dict)
    sides: dict[str, float | None] = Field(default_factory=dict, description="The invariant's two sides, F1 and F2.")
    measurement: Measurement | None = None
    extra: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def invalid(cls, reason: str) -> "Score":
        return cls(status="invalid", reason=reason)

    @classmethod
    def unmeasurable(cls, reason: str, measurement: Measurement | None = None, **kw: Any) -> "Score":
        return cls(status="unmeasurable", reason=reason, measurement=measurement, **kw)
