"""Choose MuJoCo's offscreen GL backend before mujoco is first imported."""

import os


def pick_gl() -> None:
    """EGL where its library loads, else OSMesa (``MUJOCO_GL`` set by the user wins)."""
    if "MUJOCO_GL" in os.environ:
        return
    import ctypes

    try:
        ctypes.CDLL("libEGL.so.1")
        os.environ["MUJOCO_GL"] = "egl"
    except OSError:
        os.environ["MUJOCO_GL"] = "osmesa"
