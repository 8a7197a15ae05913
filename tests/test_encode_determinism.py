"""The same frames encode to the same bytes whatever the process did before: cached validation clips, resumed runs
and the built-in models' videos must not depend on what was last freed on the heap.

x264's macroblock tree reads memory it has not written; with it, these 24 frames gave 6 different files in 6
writes, each after different garbage was freed (and rendered studio clips decoded up to 30 grey levels apart)."""

import hashlib

import numpy as np

from lawful.encode import write_video


def _frames(h: int = 96, w: int = 160, n: int = 24) -> list[np.ndarray]:
    """A drifting textured backdrop with sensor noise and a bright ball crossing it."""
    rng = np.random.default_rng(1)
    yy, xx = np.mgrid[0:h, 0:w]
    out = []
    for i in range(n):
        img = 120 + 60 * np.sin((xx + 3 * i) / 9.0) * np.cos(yy / 13.0) + rng.normal(0, 4, (h, w))
        img[(xx - 20 - 4 * i) ** 2 + (yy - h / 2) ** 2 < 64] = 230
        out.append(np.repeat(np.clip(img, 0, 255).astype(np.uint8)[..., None], 3, 2))
    return out


def _dirty_heap(seed: int) -> None:
    """Allocate and free a few hundred buffers of random bytes (what the encoder may later be handed)."""
    rng = np.random.default_rng(seed)
    held = [bytearray(rng.bytes(int(s))) for s in rng.integers(1_000, 120_000, 400)]
    del held


def test_the_same_frames_give_the_same_bytes_after_any_heap(tmp_path):
    frames, digests = _frames(), set()
    for k in range(5):
        _dirty_heap(k)
        digests.add(hashlib.sha256(write_video(tmp_path / f"{k}.mp4", frames, fps=24.0).read_bytes()).hexdigest())
    assert len(digests) == 1
