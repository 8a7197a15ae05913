"""Fake hosted video APIs on 127.0.0.1 for the hosted-generator tests.

One threaded HTTP server speaks Veo (Gemini API), Replicate, fal's queue and a generic job API, with
the request and response shapes each documents (docs/hosted-apis.md). Each submission's first frame
picks the video it "generates" (``videos``: SHA-256 of the PNG bytes → MP4 bytes). Faults are injected
once each: ``fault(method, path_part, "429" | "500" | "timeout")``. ``hold`` (an Event) keeps every
job running while it is clear.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import re
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

KEYS = {"veo": ("x-goog-api-key", "veo-secret"), "replicate": ("Authorization", "Bearer rep-secret"),
        "fal": ("Authorization", "Key fal-secret"), "gen": ("X-Api-Key", "gen-secret")}
ENV = {"GEMINI_API_KEY": "veo-secret", "REPLICATE_API_TOKEN": "rep-secret", "FAL_KEY": "fal-secret",
       "GEN_VIDEO_KEY": "gen-secret"}


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


class FakeAPIs:
    def __init__(self, videos: dict[str, bytes], polls_before_done: int = 1, timeout_sleep: float = 2.0):
        self.videos = videos
        self.polls_before_done = polls_before_done
        self.timeout_sleep = timeout_sleep
        self.hold = threading.Event()
        self.hold.set()
        self.lock = threading.Lock()
        self.jobs: dict[str, dict] = {}  # id -> {api, image, polls, failed}
        self.submissions: Counter = Counter()  # (api, image sha) -> submissions
        self.log: list[tuple[float, str, str, int]] = []  # (time, method, path, status)
        self.faults: list[list] = []
        self.cancels: list[str] = []
        self.fail_all = False
        self.fal_result_error = False  # fal: the result answers 422 (the app rejected its input)
        self.uploads: dict[str, bytes] = {}
        self.active = self.max_active = 0  # jobs submitted and not yet downloaded
        self._ids = itertools.count(1)
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _any(self):
                fake.handle(self)

            do_GET = do_POST = do_PUT = _any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def fault(self, method: str, path_part: str, kind: str) -> None:
        self.faults.append([method, path_part, kind])

    def count(self, api: str) -> int:
        return sum(n for (a, _), n in self.submissions.items() if a == api)

    # --- plumbing -------------------------------------------------------------------------------
    def handle(self, h: BaseHTTPRequestHandler) -> None:
        path = h.path
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        api = self._which(path)
        with self.lock:
            hit = next((f for f in self.faults if f[0] == h.command and f[1] in path), None)
            if hit:
                self.faults.remove(hit)
        if hit and hit[2] == "timeout":
            time.sleep(self.timeout_sleep)
        elif hit:
            code = int(hit[2])
            self._log(h, path, code)
            return self._send(h, code, {"error": "injected"}, {"Retry-After": "1"} if code == 429 else {})
        header, value = KEYS[api]
        if h.headers.get(header) != value:
            self._log(h, path, 401)
            return self._send(h, 401, {"error": f"bad key {h.headers.get(header)}"})  # echoes it, as some APIs do
        try:
            code, out, ctype = getattr(self, f"_{api}")(h.command, path, body)
        except KeyError:
            code, out, ctype = 404, {"error": "not found"}, "json"
        self._log(h, path, code)
        self._send(h, code, out, ctype=ctype)

    def _log(self, h, path: str, code: int) -> None:
        with self.lock:
            self.log.append((time.monotonic(), h.command, path, code))

    @staticmethod
    def _send(h, code: int, out, headers: dict | None = None, ctype: str = "json") -> None:
        data = out if isinstance(out, bytes) else json.dumps(out).encode()
        try:
            h.send_response(code)
            h.send_header("Content-Type", "video/mp4" if ctype == "mp4" else "application/json")
            h.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (an injected timeout)

    @staticmethod
    def _which(path: str) -> str:
        if path.startswith("/v1beta/"):
            return "veo"
        if path.startswith("/v1/"):
            return "replicate"
        if path.startswith("/gen/"):
            return "gen"
        return "fal"

    def _new_job(self, api: str, image: bytes) -> str:
        if sha(image) not in self.videos:
            raise KeyError(api)
        with self.lock:
            jid = f"{api}{next(self._ids)}"
            self.jobs[jid] = {"api": api, "image": sha(image), "polls": 0}
            self.submissions[(api, sha(image))] += 1
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        return jid

    def _advance(self, jid: str) -> str:
        """'running', 'done' or 'failed' for this poll of job ``jid``."""
        job = self.jobs[jid]
        if not self.hold.is_set():
            return "running"
        job["polls"] += 1
        if job["polls"] <= self.polls_before_done:
            return "running"
        return "failed" if self.fail_all else "done"

    def _video(self, jid: str) -> bytes:
        with self.lock:
            if not self.jobs[jid].get("downloaded"):
                self.jobs[jid]["downloaded"] = True
                self.active -= 1
        return self.videos[self.jobs[jid]["image"]]

    # --- Veo: Gemini API long-running operations ----------------------------------------------------
    def _veo(self, method: str, path: str, body: bytes):
        if m := re.fullmatch(r"/v1beta/models/([^/:]+):predictLongRunning", path):
            req = json.loads(body)
            inst = req["instances"][0]
            assert inst["image"]["mimeType"] == "image/png" and "aspectRatio" in req["parameters"]
            jid = self._new_job("veo", base64.b64decode(inst["image"]["bytesBase64Encoded"]))
            return 200, {"name": f"models/{m.group(1)}/operations/{jid}"}, "json"
        if m := re.fullmatch(r"/v1beta/models/[^/]+/operations/(\w+)", path):
            jid = m.group(1)
            state = self._advance(jid)
            op = {"name": path[len("/v1beta/"):], "metadata": {}}
            if state == "done":
                op.update(done=True, response={
                    "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse",
                    "generateVideoResponse": {"generatedSamples": [
                        {"video": {"uri": f"{self.base}/v1beta/files/{jid}:download?alt=media"}}]}})
            elif state == "failed":
                op.update(done=True, error={"code": 3, "message": "the prompt was blocked"})
            return 200, op, "json"
        if m := re.fullmatch(r"/v1beta/files/(\w+):download\?alt=media", path):
            return 200, self._video(m.group(1)), "mp4"
        raise KeyError(path)

    # --- Replicate predictions -----------------------------------------------------------------
    def _prediction(self, jid: str, status: str) -> dict:
        p = {"id": jid, "model": "owner/model", "status": status, "input": {}, "logs": "", "error": None,
             "output": None, "urls": {"get": f"{self.base}/v1/predictions/{jid}",
                                      "cancel": f"{self.base}/v1/predictions/{jid}/cancel"}}
        if status == "succeeded":
            p["output"] = f"{self.base}/v1/files/{jid}.mp4"
        if status == "failed":
            p["error"] = "CUDA out of memory"
        return p

    def _replicate(self, method: str, path: str, body: bytes):
        if method == "POST" and (path == "/v1/predictions" or re.fullmatch(r"/v1/models/[^/]+/[^/]+/predictions", path)):
            req = json.loads(body)
            assert req["input"]["prompt"] and ("version" in req) == (path == "/v1/predictions")
            image = base64.b64decode(req["input"]["image"].partition(",")[2])
            return 201, self._prediction(self._new_job("replicate", image), "starting"), "json"
        if m := re.fullmatch(r"/v1/predictions/(\w+)/cancel", path):
            self.cancels.append(m.group(1))
            return 200, self._prediction(m.group(1), "canceled"), "json"
        if m := re.fullmatch(r"/v1/predictions/(\w+)", path):
            state = self._advance(m.group(1))
            status = {"running": "processing", "done": "succeeded", "failed": "failed"}[state]
            return 200, self._prediction(m.group(1), status), "json"
        if m := re.fullmatch(r"/v1/files/(\w+)\.mp4", path):
            return 200, self._video(m.group(1)), "mp4"
        raise KeyError(path)

    # --- fal queue ------------------------------------------------------------------------------
    def _fal(self, method: str, path: str, body: bytes):
        if m := re.fullmatch(r"/([^/]+/[^/]+)/requests/(\w+)/status", path):
            state = self._advance(m.group(2))
            if state == "running":
                return 200, {"status": "IN_PROGRESS", "logs": None}, "json"
            out = {"status": "COMPLETED", "response_url": f"{self.base}/{m.group(1)}/requests/{m.group(2)}"}
            if state == "failed":
                out["error"] = "runner crashed"
            return 200, out, "json"
        if m := re.fullmatch(r"/([^/]+/[^/]+)/requests/(\w+)/cancel", path):
            self.cancels.append(m.group(2))
            return 202, {"status": "CANCELLATION_REQUESTED"}, "json"
        if m := re.fullmatch(r"/([^/]+/[^/]+)/requests/(\w+)", path):
            if self.fal_result_error:
                return 422, {"detail": [{"loc": ["body", "image_url"], "msg": "image too small"}]}, "json"
            return 200, {"video": {"url": f"{self.base}/files/{m.group(2)}.mp4", "content_type": "video/mp4"},
                         "seed": 1}, "json"
        if m := re.fullmatch(r"/files/(\w+)\.mp4", path):
            return 200, self._video(m.group(1)), "mp4"
        if method == "POST":
            req = json.loads(body)
            jid = self._new_job("fal", base64.b64decode(req["image_url"].partition(",")[2]))
            app = "/".join(path.strip("/").split("/")[:2])
            r = f"{self.base}/{app}/requests/{jid}"
            return 200, {"request_id": jid, "response_url": r, "status_url": r + "/status",
                         "cancel_url": r + "/cancel", "queue_position": 0}, "json"
        raise KeyError(path)

    # --- a generic job API (GENERIC_YAML describes it) ----------------------------------------------
    def _gen(self, method: str, path: str, body: bytes):
        if path == "/gen/uploads" and method == "POST":
            data = body.split(b"\r\n\r\n", 1)[1].rsplit(b"\r\n--", 1)[0]  # one multipart file part
            with self.lock:
                fid = f"f{next(self._ids)}"
                self.uploads[fid] = data
            return 200, {"file": {"url": f"upload://{fid}"}}, "json"
        if path == "/gen/jobs" and method == "POST":
            req = json.loads(body)
            assert req["fps"] > 0 and req["frames"] > 0 and req["size"] == [req["size"][0], req["size"][1]]
            image = self.uploads[req["image"].removeprefix("upload://")]
            return 200, {"job": {"id": self._new_job("gen", image)}}, "json"
        if m := re.fullmatch(r"/gen/jobs/(\w+)/cancel", path):
            self.cancels.append(m.group(1))
            return 200, {}, "json"
        if m := re.fullmatch(r"/gen/jobs/(\w+)", path):
            state = self._advance(m.group(1))
            out = {"state": {"running": "queued", "done": "ok", "failed": "error"}[state]}
            if state == "done":
                out["result"] = {"files": [{"url": f"/gen/files/{m.group(1)}.mp4"}]}
            if state == "failed":
                out["message"] = "no capacity"
            return 200, out, "json"
        if m := re.fullmatch(r"/gen/files/(\w+)\.mp4", path):
            return 200, self._video(m.group(1)), "mp4"
        raise KeyError(path)


GENERIC_YAML = """\
name: genvideo
base_url: {base}/gen
key_env: GEN_VIDEO_KEY
auth: {{header: X-Api-Key, prefix: ""}}
poll_s: 0.05
http_timeout_s: 1.5
upload:
  path: /uploads
  field: file
  url: file.url
submit:
  path: /jobs
  json: {{prompt: "{{prompt}}", image: "{{image_url}}", fps: "{{fps}}", frames: "{{frames}}",
         size: ["{{width}}", "{{height}}"], seed: "{{seed}}"}}
  job_id: job.id
poll:
  path: /jobs/{{job_id}}
  status: state
  done: [ok]
  failed: [error]
  error: message
  video_url: result.files[0].url
cancel:
  path: /jobs/{{job_id}}/cancel
"""


def build_principia(out, n: int = 1):
    """``n`` Principia drop cases under ``out/cases/principia`` (as a run builds them) and their
    law-correct videos keyed by the SHA-256 of each first frame."""
    from pathlib import Path

    from lawful.case import load_case
    from lawful.generators.base import get_generator
    from lawful.runner.run import build_cases
    from lawful.suites.base import get_suite

    paths = build_cases(get_suite("principia"), Path(out) / "cases" / "principia", n, 0, ["drop"], progress=False)
    ref = get_generator("reference")
    videos = {}
    for p in paths:
        case = load_case(p)
        mp4 = ref.generate(case, None, Path(out) / "_ref" / f"{case.id}.mp4")
        videos[sha(case.first_frame_path(p).read_bytes())] = Path(mp4).read_bytes()
    return paths, videos


def specs(base: str, yaml_path, fast: str = "poll_s=0.05&http_timeout_s=1.5", version: str = "") -> dict[str, str]:
    """One model spec per adapter, pointed at the fake server."""
    return {"veo": f"veo:veo-3.0-generate-001?base_url={base}/v1beta&{fast}",
            "replicate": f"replicate:owner/model{version}?base_url={base}/v1&{fast}",
            "fal": f"fal:fal-ai/wan-i2v/image-to-video?base_url={base}&{fast}",
            "gen": f"api:{yaml_path}"}
