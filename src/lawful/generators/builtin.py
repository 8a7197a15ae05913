"""Built-in models: the law-correct render, its anti-physics twin, and the do-nothing baseline."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from lawful.case import Case
from lawful.generators.base import Generator, register_generator
from lawful.video import write_video

# x264's fastest preset: about a third less CPU to encode and to decode than veryfast (no CABAC, no deblocking), as
# close to the render, Constrained Baseline H.264 that browsers play. At a constant quantizer: on lawful's own clean
# renders QP 14 is as close to the render as the writer's CRF 18 (mean error 9.84 vs 9.63 grey levels summed over
# 7 WMLE clips) for a quarter less CPU on moving clips and half on the static model's (benchmarks/builtin_writers.py)
PRESET, QP = "ultrafast", 14


def _task(case: Case):
    from lawful.suites.base import get_suite

    return get_suite(case.suite).task(case.task)


class Render(Generator):
    """Renders the case with the task's own renderer: ``law='true'`` or ``'anti'``."""

    deterministic = True

    def __init__(self, name: str, law: str):
        self.name, self.law = name, law

    def generate(self, case: Case, first_frame: Path | None, out: Path, rollout: int = 0,
                 seed: int | None = None) -> Path:
        return write_video(out, _task(case).render(case, self.law), case.fps, preset=PRESET, qp=QP)


class Static(Generator):
    """Repeats the first frame for the requested number of frames (one array object repeated: the writer
    converts it to YUV once, and H.264 codes each repeat as a skipped frame)."""

    name = "static"
    deterministic = True

    def generate(self, case: Case, first_frame: Path | None, out: Path, rollout: int = 0,
                 seed: int | None = None) -> Path:
        if first_frame is not None and first_frame.exists():
            from PIL import Image

            frame = np.asarray(Image.open(first_frame).convert("RGB"))
        else:
            frame = next(iter(_task(case).render(case, "true")))
        return write_video(out, itertools.repeat(frame, case.n_frames), case.fps, preset=PRESET, qp=QP)


register_generator("reference")(lambda arg="": Render("reference", "true"))
register_generator("counterfactual")(lambda arg="": Render("counterfactual", "anti"))
register_generator("static")(lambda arg="": Static())
