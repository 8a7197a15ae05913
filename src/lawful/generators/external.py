"""Videos made elsewhere: a folder of files, or any shell command that writes one."""

from __future__ import annotations

import hashlib
import shlex
import subprocess
from pathlib import Path

from lawful.case import Case
from lawful.generators.base import GenerationError, Generator, register_generator

VIDEO_SUFFIXES = (".mp4", ".mov", ".mkv", ".webm", ".avi")


def find_videos(folder: Path, case_id: str) -> dict[int, Path]:
    """Rollout index → file for ``<case_id>.<ext>`` (rollout 0) and ``<case_id>__<k>.<ext>``."""
    found: dict[int, Path] = {}
    for p in sorted(folder.glob(f"{case_id}*")):
        if p.suffix.lower() not in VIDEO_SUFFIXES:
            continue
        stem = p.stem
        if stem == case_id:
            found.setdefault(0, p)
        elif stem.startswith(case_id + "__") and stem[len(case_id) + 2:].isdigit():
            found[int(stem[len(case_id) + 2:])] = p
    return found


class Folder(Generator):
    """Pre-generated videos in ``folder`` (not copied: the runner scores them in place)."""

    def __init__(self, folder: str):
        if not folder:
            raise KeyError("model 'folder' needs a path: folder:/path/to/videos")
        self.folder = Path(folder)
        self.name = f"folder:{self.folder.name}"

    def rollouts(self, case_id: str) -> dict[int, Path]:
        return find_videos(self.folder, case_id)

    def generate(self, case: Case, first_frame: Path | None, out: Path, rollout: int = 0,
                 seed: int | None = None) -> Path:
        vids = self.rollouts(case.id)
        if rollout not in vids:
            raise GenerationError(f"no video for case {case.id} rollout {rollout} in {self.folder}")
        return vids[rollout]


class Command(Generator):
    """Runs a shell command per case. Placeholders: {first_frame} {prompt} {out} {fps} {frames} {duration}
    {width} {height} {seed} {case_id}. The command must write the video to {out}."""

    def __init__(self, template: str, timeout: float = 3600):
        if not template:
            raise KeyError("model 'command' needs a template: command:'gen --image {first_frame} --out {out}'")
        self.template, self.timeout = template, timeout
        # one template, one model: two templates never share stored results (NAME=command:... names it)
        self.name = "command-" + hashlib.sha256(template.encode()).hexdigest()[:10]

    def generate(self, case: Case, first_frame: Path | None, out: Path, rollout: int = 0,
                 seed: int | None = None) -> Path:
        out.parent.mkdir(parents=True, exist_ok=True)
        fields = dict(first_frame=shlex.quote(str(first_frame or "")), prompt=shlex.quote(case.prompt),
                      out=shlex.quote(str(out)), fps=case.fps, frames=case.n_frames, duration=case.duration,
                      width=case.width, height=case.height, seed=rollout if seed is None else seed,
                      case_id=case.id)
        cmd = self.template.format(**fields)
        try:
            r = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            raise GenerationError(f"command timed out after {self.timeout:.0f} s for case {case.id}") from None
        if r.returncode != 0 or not out.exists():
            last = (r.stderr or r.stdout or "").strip().splitlines()[-1:] or ["no output file"]
            raise GenerationError(f"command failed for case {case.id} (exit {r.returncode}): {last[0][:200]}")
        return out


register_generator("folder")(Folder)
register_generator("command")(Command)
