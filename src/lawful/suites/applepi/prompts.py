"""Prompts for the five subtracks in both protocols (lawful's own wording).

Video protocol: the model gets the annotated first frame and returns a clip whose frames work
through the task step by step (chain of frames); for the four non-Deduction subtracks the last
frame is the answer. Image protocol: the model returns the final artifact as one image, and for
Deduction one keyframe per requested timestamp.
"""

from __future__ import annotations

PROMPT_VERSION = "lawful-1"

_INTRO = ("The image is a physics diagram: a scene with labelled quantities written beside the objects, "
          "coordinate axes, and arrows for the initial velocities.")


def prompt(subtrack: str, protocol: str, case) -> str:
    """The instruction for one case (``case``: a :class:`~lawful.suites.applepi.dataset.GTCase`)."""
    video = protocol == "video"
    end = ("Make a short video that does this step by step; its final frame is your answer."
           if video else "Return the result as a single image.")
    if subtrack == "perception_text":
        body = ("Keep every annotation exactly where it is — the axes, all text labels and the velocity arrows — "
                "and remove everything else: the objects, the floor, the background. The result shows only the "
                "annotations on a plain pure-white background.")
    elif subtrack == "perception_graphic":
        body = ("Keep only the physical objects, unchanged in shape, size, colour and position, and remove "
                "everything else: the axes, text labels, arrows, floor and background. The result shows only "
                "the objects on a plain pure-white background.")
    elif subtrack == "formulation_text":
        info = case.formula_info
        opts = "; ".join(f"{k}) {v}" for k, v in sorted(info.get("choices", {}).items()))
        body = ("Which law governs what happens next in this scene? Options: " + opts + ". Answer on a plain "
                "pure-white background with exactly three lines of text: first the letter of the right option, "
                "then its formula, then the same formula with every labelled quantity replaced by its value "
                "from the diagram (leave unlabelled symbols and constants as they are).")
    elif subtrack == "formulation_graphic":
        t = case.target_time
        body = (f"Show the scene as it is at t = {t:.2f} s after the start. Remove all annotations, place every "
                "object where the physics puts it at that moment, and draw for each moving object a borderless "
                "orange arrow starting at its centre and pointing along its velocity. Beside each object write "
                "its speed as 'v = number' (no unit; 'v = 0' for an object at rest).")
    elif subtrack == "deduction":
        d = case.physics_duration
        if video:
            body = (f"Remove all annotations and continue the scene for {d:.2f} s of physical time, following the "
                    "physical laws implied by the labelled quantities. Keep the camera still and the objects "
                    "unchanged in number, shape and colour.")
            end = f"The frames after the first one must cover exactly {d:.2f} s of physical time."
        else:
            ts = ", ".join(f"{t:.2f} s" for t in case.deduction_timestamps)
            body = ("Remove all annotations and show the scene, following the physical laws implied by the "
                    f"labelled quantities, at these times after the start: {ts}.")
            end = ("Return one image per time, named frame_000_t0.500s.png, frame_001_t1.000s.png, … in the order "
                   "given.")
    else:
        raise KeyError(f"unknown subtrack '{subtrack}'")
    return f"{_INTRO} {body} {end}"


def expected_outputs(subtrack: str, protocol: str, case, num_rollouts: int) -> list[str]:
    if protocol == "video":
        return [f"rollout_{r:02d}.mp4" for r in range(num_rollouts)]
    if subtrack == "deduction":
        return [f"rollout_{r:02d}/frame_{i:03d}_t{t:.3f}s.png" for r in range(num_rollouts)
                for i, t in enumerate(case.deduction_timestamps)]
    return [f"rollout_{r:02d}.png" for r in range(num_rollouts)]
