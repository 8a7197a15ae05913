"""A real chat-completions HTTP server on 127.0.0.1 for the judge tests, answering from a script.

``ChatServer(script)`` starts ``http.server`` in a thread on an ephemeral port. ``script(req)``
gets the parsed request body and returns a :class:`Reply` (status, text content, delay,
headers); every request's body and headers are kept in ``server.requests``.

Failure modes a reply can script: ``status`` (HTTP errors), ``delay`` (a hang past the client's
timeout), ``raw_body`` (a malformed 200 body), ``reset`` (the connection is reset, no reply),
``truncate`` (the body is cut short of its Content-Length, then the connection closes).
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    text: str = ""
    status: int = 200
    delay: float = 0.0
    headers: dict = field(default_factory=dict)
    raw_body: bytes | None = None
    reset: bool = False
    truncate: bool = False


def user_text(req: dict) -> str:
    """All text parts of the user message, joined."""
    parts = req["messages"][-1]["content"]
    return "\n".join(p["text"] for p in parts if p.get("type") == "text")


def n_images(req: dict) -> int:
    return sum(1 for p in req["messages"][-1]["content"] if p.get("type") == "image_url")


class ChatServer:
    def __init__(self, script):
        self.script = script
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # keep test output quiet
                pass

            def do_POST(self):
                n = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(n))
                with outer._lock:
                    outer.requests.append(body)
                    outer.headers.append(dict(self.headers))
                    i = len(outer.requests) - 1
                r = outer.script(body, i)
                if r.delay:
                    time.sleep(r.delay)
                if r.reset:  # RST instead of a reply: SO_LINGER with a zero timeout, then close
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
                    self.close_connection = True
                    return
                if r.status == 200 and r.raw_body is None:
                    payload = json.dumps({
                        "id": f"x{i}", "object": "chat.completion", "model": body.get("model"),
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": r.text},
                                     "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 100 + 10 * n_images(body), "completion_tokens": 7},
                    }).encode()
                else:
                    payload = r.raw_body if r.raw_body is not None else json.dumps(
                        {"error": {"message": r.text or "scripted error"}}).encode()
                try:
                    self.send_response(r.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for k, v in r.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload[: len(payload) // 2] if r.truncate else payload)
                    if r.truncate:
                        self.wfile.flush()
                        self.close_connection = True
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.block_on_close = False
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def __enter__(self) -> "ChatServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def test_fake_server_speaks_chat_completions():
    with ChatServer(lambda req, i: Reply('{"ok": 1}')) as srv:
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]})
        req = urllib.request.Request(srv.url + "/chat/completions", data=body.encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=5) as r:
            data = json.loads(r.read())
    assert data["choices"][0]["message"]["content"] == '{"ok": 1}'
    assert srv.requests[0]["model"] == "m"
