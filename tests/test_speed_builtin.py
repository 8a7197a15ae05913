"""The built-in models' clips: x264's cheapest preset, still H.264 every browser plays, close to the render,
and the same bytes for the same frames."""

import hashlib

import av
import numpy as np

from lawful.generators import builtin
from lawful.video import read_frames


def _frames(n=12, h=72, w=128):
    y, x = np.mgrid[:h, :w]
    bg = np.stack([60 + x, 80 + y, 150 + 0 * x], -1).astype(np.uint8)  # a smooth backdrop, as rendered
    out = []
    for k in range(n):
        f = bg.copy()
        f[20:40, 10 + 6 * k:30 + 6 * k] = (220, 40, 40)  # a moving block
        out.append(f)
    return out


def test_builtin_clips_are_baseline_h264_close_to_the_render(tmp_path, monkeypatch):
    frames = _frames()
    monkeypatch.setattr(builtin, "_task", lambda case: type("T", (), {"render": lambda self, c, law: iter(frames)})())
    case = type("C", (), {"fps": 24.0, "n_frames": len(frames)})()
    a = builtin.Render("reference", "true").generate(case, None, tmp_path / "a.mp4")
    b = builtin.Render("reference", "true").generate(case, None, tmp_path / "b.mp4")
    assert hashlib.sha256(a.read_bytes()).digest() == hashlib.sha256(b.read_bytes()).digest()
    with av.open(str(a)) as c:
        cc = c.streams.video[0].codec_context
        assert (cc.profile, cc.pix_fmt) == ("Constrained Baseline", "yuv420p")
    err = np.abs(read_frames(a).astype(int) - np.stack(frames))
    assert err.mean() < 2.5  # 4:2:0 chroma and CRF 18: the render's colours within a few levels
