"""Load on the study app: ``--annotators`` concurrent simulated annotators against uvicorn on 127.0.0.1.

Builds a small study (a demo run of ``--cases`` prompts × 2 models; ``--per-video`` annotators per
clip), serves it with ``lawful study serve`` in its own process, and lets every annotator work through
all their clips at once (httpx, async; at most one request in flight per annotator, so the load is
bounded by the number of annotators). Per clip an annotator: fetches the task, sends a play/pause event
batch (and resends it), saves a half-answered draft, saves it again with every answer, submits, and
submits again (the resend a flaky network makes). With ``--restart-at F`` the server is killed and
started again once a share F of the clips is in; clients retry on connection errors.

Afterwards the database is checked: every clip submitted once, every answer stored exactly once with
the value the client last sent, every distinct event stored once. Prints p50 / p90 / p99 / max latency
per request, throughput, and the load average (the machine may be shared).

Run: ``python benchmarks/study_load.py`` (``--annotators 200 --per-video 40 --cases 10``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc), 0 elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def start_server(study: Path, port: int) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "lawful.cli", "study", "serve", "--study", str(study), "--port", str(port)]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


async def wait_up(base: str, timeout: float = 60.0) -> None:
    import httpx

    t0 = time.time()
    async with httpx.AsyncClient() as c:
        while time.time() - t0 < timeout:
            try:
                await c.get(base + "/static/style.css")
                return
            except httpx.TransportError:
                await asyncio.sleep(0.2)
    raise RuntimeError("the study server did not start")


class Annotator:
    def __init__(self, name: str, token: str, base: str, client, lat: list, rng: random.Random, think: float):
        self.name, self.base, self.c, self.lat, self.rng, self.think = name, base, client, lat, rng, think
        self.h = {"Authorization": f"Bearer {token}"}
        self.sent: dict[int, dict[str, str]] = {}
        self.events: dict[int, set[int]] = {}
        self.retries = 0

    async def call(self, method: str, path: str, json=None):
        import httpx

        if self.think:
            await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.think)
        for attempt in range(60):
            t = time.perf_counter()
            try:
                r = await self.c.request(method, self.base + path, json=json, headers=self.h)
            except httpx.TransportError:
                self.retries += 1
                await asyncio.sleep(0.25)
                continue
            if r.status_code >= 500:
                self.retries += 1
                await asyncio.sleep(0.25)
                continue
            self.lat.append(time.perf_counter() - t)
            r.raise_for_status()
            return r.json()
        raise RuntimeError(f"{self.name}: {method} {path} kept failing")

    async def work(self, progress: Counter) -> None:
        seq = 0
        while True:
            task = await self.call("GET", "/api/task")
            a = task["assignment"]
            if a is None:
                return
            aid = a["id"]
            keys = [q["key"] for q in a["questions"]] + (["_attention"] if a.get("attention") else [])
            seq += 2
            batch = {"events": [{"seq": seq - 1, "kind": "play", "t": 0.0}, {"seq": seq, "kind": "pause", "t": 1.0}]}
            self.events.setdefault(aid, set()).update({seq - 1, seq})
            await self.call("POST", f"/api/assignments/{aid}/events", batch)
            await self.call("POST", f"/api/assignments/{aid}/events", batch)  # a resend: must not duplicate
            answers = {k: str(self.rng.randint(1, 5)) for k in keys}
            if a.get("attention"):
                answers["_attention"] = str(a["attention"])
            half = dict(list(answers.items())[: len(answers) // 2])
            await self.call("PUT", f"/api/assignments/{aid}/answers", {"answers": half, "watch_s": 0.5})
            await self.call("PUT", f"/api/assignments/{aid}/answers", {"answers": answers, "watch_s": 1.0})
            self.sent[aid] = answers
            await self.call("POST", f"/api/assignments/{aid}/submit", {"answers": answers, "watch_s": 1.0})
            await self.call("POST", f"/api/assignments/{aid}/submit", {"answers": answers, "watch_s": 1.0})
            progress["done"] += 1


def verify(study: Path, annotators: list[Annotator]) -> dict:
    from sqlalchemy import func, select

    from lawful.study.db import Answer, Assignment, Event, StudyDB, default_url

    db = StudyDB(default_url(study))
    sent = {aid: ans for a in annotators for aid, ans in a.sent.items()}
    events = {aid: s for a in annotators for aid, s in a.events.items()}
    with db.read() as s:
        assignments = s.scalar(select(func.count(Assignment.id)))
        submitted = s.scalar(select(func.count(Assignment.id)).where(Assignment.submitted_at.is_not(None)))
        stored: dict[int, dict[str, str]] = {}
        dup_answers = 0
        for aid, q, v in s.execute(select(Answer.assignment_id, Answer.question, Answer.value)):
            dup_answers += q in stored.setdefault(aid, {})
            stored[aid][q] = v
        ev = Counter((aid, seq) for aid, seq in s.execute(select(Event.assignment_id, Event.seq)))
    db.close()
    lost = sum(1 for aid, ans in sent.items() for q, v in ans.items() if stored.get(aid, {}).get(q) != v)
    extra = sum(1 for aid, ans in stored.items() for q in ans if q not in sent.get(aid, {}))
    ev_lost = sum(1 for aid, seqs in events.items() for q in seqs if ev[(aid, q)] == 0)
    return {"assignments": assignments, "submitted": submitted, "answers_sent": sum(map(len, sent.values())),
            "answers_stored": sum(map(len, stored.values())), "answers_lost_or_wrong": lost,
            "answers_duplicated": dup_answers + extra, "events_sent": sum(map(len, events.values())),
            "events_stored": sum(ev.values()), "events_lost": ev_lost,
            "events_duplicated": sum(n - 1 for n in ev.values() if n > 1)}


async def main_async(args) -> int:
    import httpx

    from lawful.study.assign import create_study
    from lawful.study.simulate import demo_run

    root = Path(args.workdir or tempfile.mkdtemp(prefix="study-load-"))
    run = demo_run(root / "run", models=("reference", "counterfactual"), n_cases=args.cases, frames=4)
    info = create_study(run, root / "study", annotators=args.annotators, per_video=args.per_video,
                        attention_every=5, seed=1)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(root / "study", port)
    await wait_up(base)
    lat: list[float] = []
    progress: Counter = Counter()
    limits = httpx.Limits(max_connections=args.annotators, max_keepalive_connections=args.annotators)
    total = info["items"] * args.per_video
    load_before = os.getloadavg()
    restarted = False
    async with httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(60.0)) as client:
        anns = [Annotator(n, t, base, client, lat, random.Random(i), args.think)
                for i, (n, t) in enumerate(info["tokens"].items())]
        t0, cpu0, server_cpu = time.perf_counter(), time.process_time(), -cpu_seconds(server.pid)
        jobs = asyncio.gather(*(a.work(progress) for a in anns))
        while not jobs.done():
            await asyncio.sleep(0.05)
            if args.restart_at and not restarted and progress["done"] >= args.restart_at * total:
                server_cpu += cpu_seconds(server.pid)
                server.kill()
                server.wait()
                server = start_server(root / "study", port)
                server_cpu -= cpu_seconds(server.pid)
                restarted = True
                print(f"server killed and restarted after {progress['done']} of {total} clips")
        await jobs
        wall, client_cpu = time.perf_counter() - t0, time.process_time() - cpu0
        server_cpu += cpu_seconds(server.pid)
    load_after = os.getloadavg()
    server.terminate()
    server.wait(timeout=30)
    check = verify(root / "study", anns)
    lat_ms = sorted(x * 1000 for x in lat)

    def pct(p):
        return lat_ms[min(len(lat_ms) - 1, int(p / 100 * len(lat_ms)))]

    print(f"{args.annotators} concurrent annotators, {total} clips, {len(lat_ms)} requests in {wall:.1f} s "
          f"({len(lat_ms) / wall:.0f} req/s); retries after connection errors: {sum(a.retries for a in anns)}")
    print(f"CPU per request: server {1000 * server_cpu / len(lat_ms):.2f} ms, load client {1000 * client_cpu / len(lat_ms):.2f} ms"
          f" (server process busy {100 * server_cpu / wall:.0f} % of one core); think time {args.think} s")
    print(f"latency ms: p50 {pct(50):.1f}  p90 {pct(90):.1f}  p99 {pct(99):.1f}  max {lat_ms[-1]:.1f}")
    print("load average (1, 5, 15 min) before: " + ", ".join(f"{x:.2f}" for x in load_before)
          + "; after: " + ", ".join(f"{x:.2f}" for x in load_after) + f"; CPUs: {os.cpu_count()}")
    print("database: " + ", ".join(f"{k} {v}" for k, v in check.items()))
    ok = (check["submitted"] == check["assignments"] == total and check["answers_lost_or_wrong"] == 0
          and check["answers_duplicated"] == 0 and check["events_lost"] == 0 and check["events_duplicated"] == 0)
    print("OK: 0 lost, 0 duplicated" if ok else "FAILED: answers or events lost or duplicated")
    return 0 if ok else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--annotators", type=int, default=200)
    ap.add_argument("--per-video", type=int, default=40)
    ap.add_argument("--cases", type=int, default=10)
    ap.add_argument("--think", type=float, default=0.0, help="mean pause (s) before each request (0: back to back)")
    ap.add_argument("--restart-at", type=float, default=0.0, help="kill and restart the server at this share")
    ap.add_argument("--workdir", default=None)
    return asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
