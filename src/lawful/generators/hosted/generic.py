"""``api:CONFIG.yaml``: any "POST a job, poll it, download the video" API, described by a small YAML
file (format and example: docs/hosted-apis.md). JSON is accepted too (it is YAML)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote, urljoin

from lawful.generators.base import GenerationError
from lawful.generators.hosted.base import CONTROL, Poll, Provider, Settings, check_template, json_path, render



def load_config(path: str) -> dict[str, Any]:
    """The parsed, checked config; KeyError (one line) naming what is wrong."""
    p = Path(path)
    if not p.is_file():
        raise KeyError(f"api:{path}: no such config file")
    text = p.read_text()
    try:
        import yaml
    except ImportError:  # JSON is YAML: read it without PyYAML
        import json

        try:
            cfg = json.loads(text)
        except ValueError:
            raise KeyError(f"api:{path}: reading YAML needs PyYAML (pip install pyyaml), or write the config "
                           f"as JSON") from None
    else:
        try:
            cfg = yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise KeyError(f"api:{path}: not valid YAML: {str(e).splitlines()[0]}") from None
    if not isinstance(cfg, dict):
        raise KeyError(f"api:{path}: the config must be a mapping")
    need = {"base_url": cfg, "key_env": cfg, "submit": cfg, "poll": cfg}
    need.update({"submit.path": cfg.get("submit") or {}, "submit.job_id": cfg.get("submit") or {},
                 "poll.path": cfg.get("poll") or {}, "poll.status": cfg.get("poll") or {},
                 "poll.done": cfg.get("poll") or {}, "poll.video_url": cfg.get("poll") or {}})
    for dotted, holder in need.items():
        if not isinstance(holder, dict) or not holder.get(dotted.rpartition(".")[2]):
            raise KeyError(f"api:{path}: missing '{dotted}' (see docs/hosted-apis.md)")
    for section in ("upload", "submit", "poll", "cancel"):
        if section in cfg:
            check_template(cfg[section], f"api:{path} {section}")
    return cfg


class GenericAPI(Provider):
    """The provider a config describes: upload (optional), submit, poll, download, cancel (optional)."""

    def __init__(self, model: str, settings: Settings, cfg: dict[str, Any]):
        super().__init__(model, settings)
        self.cfg = cfg
        auth = cfg.get("auth") or {}
        self.auth_header = auth.get("header", "Authorization")
        self.auth_prefix = auth.get("prefix", "Bearer ")
        self.key_env = cfg["key_env"]
        self.label = str(cfg.get("name") or f"api:{Path(model).stem}")  # the model's name in messages

    def auth_headers(self, key: str) -> dict[str, str]:
        return {self.auth_header: f"{self.auth_prefix}{key}"}

    def url(self, path: str, job_id: str = "") -> str:
        path = path.replace("{job_id}", quote(job_id, safe=""))
        return path if path.startswith(("http://", "https://")) else self.base + "/" + path.lstrip("/")

    def download_auth(self, url: str) -> bool:
        flag = (self.cfg.get("download") or {}).get("auth")
        return super().download_auth(url) if flag is None else bool(flag)

    async def prepare(self, http, fields: dict[str, Any]) -> dict[str, Any]:
        up = self.cfg.get("upload")
        if not up or not fields["image_b64"]:
            return fields
        import base64

        data = base64.b64decode(fields["image_b64"])
        name = f"{fields['case_id']}.{'jpg' if fields['image_mime'] == 'image/jpeg' else 'png'}"
        if up.get("field"):
            kw = {"files": {up["field"]: (name, data, fields["image_mime"])}}
        else:
            kw = {"content": data, "headers": {"Content-Type": fields["image_mime"]}}
        answer = await http.json(up.get("method", "POST"), self.url(up["path"]), **kw)
        ref = json_path(answer, up.get("url", "url"))
        if not isinstance(ref, str) or not ref:
            raise GenerationError(f"{self.label}: the upload's answer has no '{up.get('url', 'url')}'")
        return {**fields, "image_url": ref}

    async def submit(self, http, fields: dict[str, Any]) -> str:
        sub = self.cfg["submit"]
        body = render(sub.get("json", {}), fields)
        if isinstance(body, dict):
            body.update(render(self.settings.inputs, fields))
        answer = await http.json(sub.get("method", "POST"), self.url(sub["path"]), json=body)
        job_id = json_path(answer, sub["job_id"])
        if job_id in (None, ""):
            raise GenerationError(f"{self.label}: the submission's answer has no '{sub['job_id']}': "
                                  f"{str(answer)[:120]}")
        return str(job_id)

    async def poll(self, http, job_id: str) -> Poll:
        pc = self.cfg["poll"]
        answer = await http.json(pc.get("method", "GET"), self.url(pc["path"], job_id))
        status = json_path(answer, pc["status"])
        norm = str(status).lower() if status is not None else ""
        if norm in {str(x).lower() for x in _as_list(pc["done"])}:
            url = json_path(answer, pc["video_url"])
            if not isinstance(url, str) or not url:
                return Poll("failed", error=f"{self.label}: finished job has no '{pc['video_url']}'")
            return Poll("done", url=urljoin(self.base + "/", url))
        if norm in {str(x).lower() for x in _as_list(pc.get("failed", []))}:
            err = json_path(answer, pc["error"]) if pc.get("error") else None
            return Poll("failed", error=f"{self.label}: job {status}" + (f": {str(err)[:200]}" if err else ""))
        return Poll("running")

    async def cancel(self, http, job_id: str) -> None:
        c = self.cfg.get("cancel")
        if c:
            await http.request(c.get("method", "POST"), self.url(c["path"], job_id))


def _as_list(x: Any) -> list:
    return x if isinstance(x, list) else [x]


def settings_from(cfg: dict[str, Any]) -> Settings:
    """Client settings from the config's top level (the spec's ``?option=`` values override them)."""
    s = Settings()
    for k, kind in CONTROL.items():
        if k in cfg:
            try:
                setattr(s, k, kind(cfg[k]))
            except (TypeError, ValueError):
                raise KeyError(f"api: '{k}: {cfg[k]}' is not a {kind.__name__}") from None
    return s
