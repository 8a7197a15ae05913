"""On-disk cache of judge replies, so re-running a judged run sends no requests.

Key: SHA-256 of (endpoint URL without credentials or query, judge model, rubric
id ``name@version``, system + user prompt text, the SHA-256 of every image in
order): the same model name served elsewhere is another judge. Nothing secret is
part of the key or the record. One JSON file per reply under ``<dir>/<k[:2]>/<k>.json``,
written atomically. Only usable replies are stored: transport failures and
replies the parser rejects are never cached, so a re-run asks again.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def cache_key(endpoint: str, model: str, rubric_id: str, prompt: str, image_hashes: list[str]) -> str:
    payload = json.dumps({"endpoint": endpoint, "model": model, "rubric": rubric_id, "prompt": prompt,
                          "images": image_hashes},
                         sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


class JudgeCache:
    """Thread-safe (atomic file replace) reply cache rooted at ``directory``."""

    def __init__(self, directory: str | Path):
        self.dir = Path(directory)

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        p = self._path(key)
        try:
            return json.loads(p.read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return None

    def put(self, key: str, record: dict[str, Any]) -> None:
        p = self._path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(record, f)
        os.replace(tmp, p)

    def __len__(self) -> int:
        return sum(1 for _ in self.dir.glob("*/*.json")) if self.dir.exists() else 0
