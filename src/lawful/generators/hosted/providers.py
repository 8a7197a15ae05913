"""Veo (Gemini API), Replicate and fal: the request and response shapes each API documents
(see docs/hosted-apis.md for the sources)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from lawful.generators.base import GenerationError
from lawful.generators.hosted.base import HTTPStatusError, Poll, Provider, json_path, render


def _inputs(defaults: dict[str, Any], extra: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """Default input templates overridden by the spec's options; an option with an empty value drops the field."""
    merged = {**defaults, **extra}
    out = render({k: v for k, v in merged.items() if v != ""}, fields)
    return {k: v for k, v in out.items() if v not in ("", None)}  # no first frame: no image field


def first_url(output: Any) -> str:
    """The first http(s) URL in a model's output: a string, a list of them, or an object holding one."""
    if isinstance(output, str):
        return output if output.startswith(("http://", "https://", "data:")) else ""
    if isinstance(output, list):
        for x in output:
            if u := first_url(x):
                return u
    if isinstance(output, dict):
        for k in ("video", "url", "output", "videos"):
            if k in output and (u := first_url(output[k])):
                return u
        for x in output.values():
            if u := first_url(x):
                return u
    return ""


class Veo(Provider):
    """Gemini API long-running operation: ``POST models/{model}:predictLongRunning`` → operation name;
    ``GET {name}`` until ``done``; the video is ``response.generateVideoResponse.generatedSamples[0].video.uri``."""

    key_env = "GEMINI_API_KEY"
    DEFAULT_BASE = "https://generativelanguage.googleapis.com/v1beta"

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"x-goog-api-key": key}

    async def submit(self, http, fields: dict[str, Any]) -> str:
        instance: dict[str, Any] = {"prompt": fields["prompt"]}
        if fields["image_b64"]:
            instance["image"] = {"bytesBase64Encoded": fields["image_b64"], "mimeType": fields["image_mime"]}
        params = _inputs({"aspectRatio": "{aspect_ratio}"}, self.settings.inputs, fields)
        data = await http.json("POST", f"{self.base}/models/{self.model}:predictLongRunning",
                               json={"instances": [instance], "parameters": params})
        name = data.get("name") if isinstance(data, dict) else None
        if not name:
            raise GenerationError(f"veo: the answer to predictLongRunning has no operation name: {str(data)[:120]}")
        return name

    async def poll(self, http, job_id: str) -> Poll:
        op = await http.json("GET", f"{self.base}/{job_id}")
        if not op.get("done"):
            return Poll("running")
        if op.get("error"):
            err = op["error"]
            return Poll("failed", error=f"veo: {err.get('message', err)} (code {err.get('code', '?')})")
        resp = (op.get("response") or {}).get("generateVideoResponse") or {}
        uri = json_path(resp, "generatedSamples.0.video.uri")
        if not uri:
            why = resp.get("raiMediaFilteredReasons") or "no video in the finished operation"
            return Poll("failed", error=f"veo: {why if isinstance(why, str) else '; '.join(map(str, why))}")
        return Poll("done", url=uri)

    def download_auth(self, url: str) -> bool:
        return super().download_auth(url) or "generativelanguage.googleapis.com" in url


class Replicate(Provider):
    """Replicate predictions: ``POST /predictions`` (``owner/model:version``) or
    ``POST /models/{owner}/{name}/predictions`` (official models), then ``GET /predictions/{id}``."""

    key_env = "REPLICATE_API_TOKEN"
    DEFAULT_BASE = "https://api.replicate.com/v1"
    DEFAULT_INPUTS = {"prompt": "{prompt}", "image": "{image_data_uri}"}

    async def submit(self, http, fields: dict[str, Any]) -> str:
        model, _, version = self.model.partition(":")
        body: dict[str, Any] = {"input": _inputs(self.DEFAULT_INPUTS, self.settings.inputs, fields)}
        if version:
            body["version"] = version
            url = f"{self.base}/predictions"
        else:
            url = f"{self.base}/models/{model}/predictions"
        data = await http.json("POST", url, json=body)
        if not isinstance(data, dict) or not data.get("id"):
            raise GenerationError(f"replicate: the new prediction has no id: {str(data)[:120]}")
        return data["id"]

    async def poll(self, http, job_id: str) -> Poll:
        p = await http.json("GET", f"{self.base}/predictions/{quote(job_id)}")
        status = p.get("status")
        if status == "succeeded":
            url = first_url(p.get("output"))
            return Poll("done", url=url) if url else Poll("failed", error="replicate: no video URL in the output")
        if status in ("failed", "canceled", "aborted"):
            return Poll("failed", error=f"replicate: prediction {status}: {str(p.get('error') or '')[:200]}")
        return Poll("running")

    async def cancel(self, http, job_id: str) -> None:
        await http.request("POST", f"{self.base}/predictions/{quote(job_id)}/cancel")


class Fal(Provider):
    """fal queue: ``POST {app_id}`` → ``request_id``; ``GET {owner}/{app}/requests/{id}/status`` until
    ``COMPLETED``; ``GET {owner}/{app}/requests/{id}`` is the result; ``PUT .../cancel`` cancels."""

    key_env = "FAL_KEY"
    DEFAULT_BASE = "https://queue.fal.run"
    DEFAULT_INPUTS = {"prompt": "{prompt}", "image_url": "{image_data_uri}"}

    def auth_headers(self, key: str) -> dict[str, str]:
        return {"Authorization": f"Key {key}"}

    @property
    def app(self) -> str:
        """``owner/app`` without the endpoint's sub-path: what the status, result and cancel URLs use."""
        return "/".join(self.model.split("/")[:2])

    async def submit(self, http, fields: dict[str, Any]) -> str:
        data = await http.json("POST", f"{self.base}/{self.model}",
                               json=_inputs(self.DEFAULT_INPUTS, self.settings.inputs, fields))
        if not isinstance(data, dict) or not data.get("request_id"):
            raise GenerationError(f"fal: the queue's answer has no request_id: {str(data)[:120]}")
        return data["request_id"]

    async def poll(self, http, job_id: str) -> Poll:
        req = f"{self.base}/{self.app}/requests/{quote(job_id)}"
        st = await http.json("GET", f"{req}/status")
        status = st.get("status")
        if status in ("IN_QUEUE", "IN_PROGRESS"):
            return Poll("running")
        if status != "COMPLETED":
            return Poll("failed", error=f"fal: unexpected status {status!r}")
        if st.get("error"):
            return Poll("failed", error=f"fal: {str(st['error'])[:200]}")
        try:
            result = await http.json("GET", req)
        except HTTPStatusError as e:
            if e.status in (400, 422):  # the app rejected its input or failed on it: the job is over
                return Poll("failed", error=f"fal: {e}")
            raise
        url = first_url(result.get("video") if isinstance(result, dict) and "video" in result else result)
        return Poll("done", url=url) if url else Poll("failed", error="fal: no video URL in the result")

    async def cancel(self, http, job_id: str) -> None:
        await http.request("PUT", f"{self.base}/{self.app}/requests/{quote(job_id)}/cancel")
