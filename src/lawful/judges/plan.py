"""What judging would send, before sending it: calls, images and approximate tokens.

Image tokens follow the common ViT-patch rule of open VLMs (one token per 28 x 28 px after the
2 x 2 merge of 14 px patches, as Qwen-VL does), plus 2 marker tokens per image; hosted APIs count
differently, so treat the figure as an order of magnitude. Text tokens are ``chars / 4``.
Output tokens: about 12 per criterion plus ``answer_extra`` fields at 40 each.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from lawful.case import Case
from lawful.judges.frames import sample_indices
from lawful.judges.rubric import Rubric

PATCH_PX = 28
TEXT_CHARS_PER_TOKEN = 4
OUT_TOKENS_PER_CRITERION = 12
OUT_TOKENS_PER_EXTRA = 40


@dataclass
class Estimate:
    calls: int = 0
    images: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    by_rubric: dict = field(default_factory=dict)

    def add(self, rubric: str, calls: int, images: int, prompt: int, completion: int) -> None:
        self.calls += calls
        self.images += images
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        r = self.by_rubric.setdefault(rubric, {"calls": 0, "images": 0, "prompt_tokens": 0, "completion_tokens": 0})
        for k, v in (("calls", calls), ("images", images), ("prompt_tokens", prompt), ("completion_tokens", completion)):
            r[k] += v


def image_tokens(width: int, height: int, max_side: int | None) -> int:
    s = min(1.0, max_side / max(width, height)) if max_side else 1.0
    w, h = max(1, round(width * s)), max(1, round(height * s))
    return math.ceil(w / PATCH_PX) * math.ceil(h / PATCH_PX) + 2


def images_per_call(rubric: Rubric, case: Case) -> int:
    """Images in one call for a video of this case (references + sampled frames [+ a GT keyframe])."""
    spec = rubric.frames
    refs = len(spec.references)
    if spec.mode == "video":
        return refs + len(sample_indices(case.n_frames, case.duration, spec.fps, spec.max_frames))
    if spec.mode == "last_frame":
        return refs + 1
    return refs + 2  # keyframes: the GT frame and the model's frame


def estimate_case(est: Estimate, rubric: Rubric, case: Case, videos: int = 1) -> None:
    """Add what judging ``videos`` videos of ``case`` with ``rubric`` would send."""
    if not rubric.applies(case):
        return
    calls = rubric.calls_for(case)
    per_video_calls = len(calls) * (len(case.known.get("deduction_timestamps") or [1])
                                    if rubric.frames.mode == "keyframes" else 1)
    n_img = images_per_call(rubric, case)
    tok_img = n_img * image_tokens(case.width, case.height, rubric.frames.max_side)
    prompt = completion = 0
    for call in calls:
        try:
            text = rubric.render(case, call)
        except KeyError:
            text = rubric.template
        prompt += (len(rubric.system) + len(text)) // TEXT_CHARS_PER_TOKEN + tok_img
        completion += OUT_TOKENS_PER_CRITERION * len(call) + OUT_TOKENS_PER_EXTRA * len(rubric.answer_extra)
    rep = per_video_calls // max(1, len(calls))
    est.add(rubric.name, per_video_calls * videos, n_img * per_video_calls * videos, prompt * rep * videos,
            completion * rep * videos)
