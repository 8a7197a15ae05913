"""Submit, poll and download hosted jobs: concurrently, within a budget, resumably.

Each model's video folder holds ``hosted_jobs.sqlite``: one row per video file with the provider's
job id (written the moment the API accepts the job, before any polling), its state, the estimated
price paid so far and the last failure. An interrupted run finds the job id and polls it instead of
paying for it again. A job the API reports as failed, or that timed out (it is then cancelled), is
submitted again by the next run, like any failed generation.

Budget (per run folder, from the environment): ``LAWFUL_HOSTED_BUDGET_USD`` (estimated dollars,
from each model's ``usd_per_video`` / ``usd_per_s``), ``LAWFUL_HOSTED_BUDGET_JOBS`` (submissions) and
``LAWFUL_HOSTED_BUDGET_S`` (seconds since this process started hosted work). Past any of them
nothing more is submitted; those videos are recorded as failed with the reason "budget exhausted".
"""

from __future__ import annotations

import asyncio
import base64
import os
import sqlite3
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from lawful.case import Case, load_case
from lawful.generators.base import GenerationError, Generator
from lawful.generators.hosted.base import Provider, case_fields

class HostedGenerator(Generator):
    """A model behind an HTTP API; ``generate`` submits (or resumes), polls and downloads one video."""

    deterministic = False

    def __init__(self, name: str, provider: Provider):
        self.name, self.provider, self.settings = name, provider, provider.settings

    @property
    def key_env(self) -> str:
        return self.settings.key_env or self.provider.key_env

    def key(self) -> str:
        key = os.environ.get(self.key_env, "")
        if not key:
            raise GenerationError(f"{self.name}: environment variable {self.key_env} is not set")
        return key

    def generate(self, case: Case, first_frame: Path | None, out: Path, rollout: int = 0,
                 seed: int | None = None) -> Path:
        return generate_one(self, case, first_frame, Path(out), rollout if seed is None else seed)


DB_NAME = "hosted_jobs.sqlite"
PASS_KEY = "last_pass"  # meta key: the latest pre-pass; failures it recorded carry its id
BUDGET_ENV = {"usd": "LAWFUL_HOSTED_BUDGET_USD", "jobs": "LAWFUL_HOSTED_BUDGET_JOBS", "s": "LAWFUL_HOSTED_BUDGET_S"}
_T0: list[float] = []  # when this process started hosted work (the time budget counts from it)

_SCHEMA = """CREATE TABLE IF NOT EXISTS jobs (
  file TEXT PRIMARY KEY, model TEXT, job_id TEXT DEFAULT '', state TEXT, reason TEXT DEFAULT '',
  spent REAL DEFAULT 0, submissions INTEGER DEFAULT 0, submitted REAL, session TEXT DEFAULT '', updated REAL);
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT)"""


@dataclass
class Row:
    file: str
    model: str
    job_id: str
    state: str  # submitted | done | failed
    reason: str
    spent: float
    submissions: int
    submitted: float | None
    session: str


class JobDB:
    """The job table of one video folder (autocommit: a job id is on disk as soon as it is known)."""

    def __init__(self, folder: Path):
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / DB_NAME
        self.con = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        self.con.executescript(_SCHEMA)

    def get(self, file: str) -> Row | None:
        r = self.con.execute("SELECT file, model, job_id, state, reason, spent, submissions, submitted, session "
                             "FROM jobs WHERE file = ?", (file,)).fetchone()
        return Row(*r) if r else None

    def _upsert(self, file: str, model: str, **kw) -> None:
        self.con.execute("INSERT OR IGNORE INTO jobs (file, model, state) VALUES (?, ?, 'new')", (file, model))
        sets = ", ".join(f"{k} = ?" for k in kw)
        self.con.execute(f"UPDATE jobs SET {sets}, updated = ? WHERE file = ?", (*kw.values(), time.time(), file))

    def submitted(self, file: str, model: str, job_id: str, cost: float) -> None:
        old = self.get(file)
        self._upsert(file, model, job_id=job_id, state="submitted", reason="", submitted=time.time(),
                     spent=(old.spent if old else 0.0) + cost, submissions=(old.submissions if old else 0) + 1)

    def done(self, file: str, model: str) -> None:
        self._upsert(file, model, state="done", reason="")

    def failed(self, file: str, model: str, reason: str, session: str, keep_job: bool) -> None:
        """Record a failure (one line); ``keep_job``: the job may still be running (next run polls it, never resubmits)."""
        reason = " ".join(reason.split())[:400]
        kw = {} if keep_job else {"job_id": ""}
        self._upsert(file, model, state="failed", reason=reason, session=session, **kw)

    def get_meta(self, k: str) -> str:
        r = self.con.execute("SELECT v FROM meta WHERE k = ?", (k,)).fetchone()
        return r[0] if r else ""

    def set_meta(self, k: str, v: str) -> None:
        self.con.execute("INSERT OR REPLACE INTO meta (k, v) VALUES (?, ?)", (k, v))

    def totals(self) -> tuple[float, int]:
        r = self.con.execute("SELECT COALESCE(SUM(spent), 0), COALESCE(SUM(submissions), 0) FROM jobs").fetchone()
        return float(r[0]), int(r[1])

    def close(self) -> None:
        self.con.close()


def run_totals(video: Path) -> tuple[float, int]:
    """Dollars and submissions spent so far by every hosted model of the run folder ``video`` belongs to."""
    folder = video.parent
    dbs = list(folder.parent.glob(f"*/{DB_NAME}")) if folder.parent.name == "videos" else [folder / DB_NAME]
    usd, n = 0.0, 0
    for p in dbs:
        if p.exists():
            con = sqlite3.connect(p, timeout=60)
            try:
                a, b = con.execute("SELECT COALESCE(SUM(spent), 0), COALESCE(SUM(submissions), 0) FROM jobs").fetchone()
                usd, n = usd + a, n + b
            except sqlite3.OperationalError:
                pass
            finally:
                con.close()
    return usd, n


class Budget:
    """What may still be submitted in this run; ``reserve`` is atomic within the event loop (no await in it)."""

    def __init__(self, usd: float | None, jobs: int | None, seconds: float | None, spent_usd: float = 0.0,
                 spent_jobs: int = 0, source: dict[str, str] | None = None):
        self.usd, self.jobs, self.seconds = usd, jobs, seconds
        self.spent_usd, self.spent_jobs = spent_usd, spent_jobs
        self.source = source or BUDGET_ENV  # what set each limit (named in the reason)

    @classmethod
    def from_env(cls, spent: tuple[float, int] = (0.0, 0)) -> "Budget":
        def num(name: str, t):
            v = os.environ.get(BUDGET_ENV[name], "").strip()
            if not v:
                return None
            try:
                return t(v)
            except ValueError:
                raise GenerationError(f"{BUDGET_ENV[name]}={v!r} is not a number") from None

        return cls(num("usd", float), num("jobs", int), num("s", float), *spent)

    def reserve(self, cost: float) -> str | None:
        """Count one submission of ``cost``; the reason it may not be submitted, or None."""
        elapsed = time.monotonic() - (_T0[0] if _T0 else time.monotonic())
        if self.seconds is not None and elapsed > self.seconds:
            return f"budget exhausted: {elapsed:.0f} s of {self.seconds:g} s ({self.source['s']})"
        if self.jobs is not None and self.spent_jobs + 1 > self.jobs:
            return f"budget exhausted: {self.spent_jobs} of {self.jobs} jobs submitted ({self.source['jobs']})"
        if self.usd is not None and self.spent_usd + cost > self.usd + 1e-9:
            return (f"budget exhausted: ${self.spent_usd:.2f} of ${self.usd:.2f} spent, the next video costs "
                    f"${cost:.2f} ({self.source['usd']})")
        self.spent_usd += cost
        self.spent_jobs += 1
        return None

    def refund(self, cost: float) -> None:
        self.spent_usd -= cost
        self.spent_jobs -= 1


@dataclass
class Item:
    """One video to make: the case, its first frame, the file to write and the seed."""

    case: Case
    first_frame: Path | None
    out: Path
    seed: int


def _started() -> None:
    if not _T0:
        _T0.append(time.monotonic())


async def _work(gen: HostedGenerator, http, budgets: list[Budget], db: JobDB, it: Item) -> None:
    """Submit (or resume), poll until done, download to ``it.out``. Raises GenerationError."""
    prov, s, name = gen.provider, gen.settings, it.out.name
    row = db.get(name)
    if row and row.job_id:
        job_id, t0 = row.job_id, row.submitted or time.time()
    else:
        cost = s.cost(it.case)
        reserved: list[Budget] = []
        try:
            for b in budgets:  # the run's budget, then the model's own
                why = b.reserve(cost)
                if why:
                    raise GenerationError(why)
                reserved.append(b)
            fields = await prov.prepare(http, case_fields(it.case, it.first_frame, it.seed))
            job_id = await prov.submit(http, fields)
        except BaseException:
            for b in reserved:
                b.refund(cost)
            raise
        db.submitted(name, gen.name, job_id, cost)
        t0 = time.time()
    while True:
        try:
            p = await prov.poll(http, job_id)
        except GenerationError as e:
            if getattr(e, "status", None) in (404, 410):  # the API does not know the job (any more)
                raise GenerationError(f"{gen.name}: job {job_id}: {e}") from None
            raise _Kept(str(e)) from None  # the job may still be running: keep its id
        if p.state == "done":
            break
        if p.state == "failed":
            raise GenerationError(p.error)
        if time.time() - t0 > s.timeout_s:
            try:
                await prov.cancel(http, job_id)
            except GenerationError:
                pass
            raise GenerationError(f"{gen.name}: job {job_id} not finished after {s.timeout_s:g} s (cancelled)")
        await asyncio.sleep(s.poll_s)
    try:
        await _download(prov, http, p.url, it.out)
    except GenerationError as e:
        raise _Kept(str(e)) from None


class _Kept(GenerationError):
    """A failure after which the job id is kept: the job itself may be fine (the next run polls it again)."""


async def _download(prov, http, url: str, out: Path) -> None:
    """Write the video at ``url`` (or a ``data:`` URI) to ``out`` atomically (never a partial file)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    part = out.with_name(out.name + ".part")
    if url.startswith("data:"):
        part.write_bytes(base64.b64decode(url.partition(",")[2]))
    else:
        await http.request("GET", url, auth=prov.download_auth(url), stream_to=part)
    if not part.exists() or part.stat().st_size == 0:
        part.unlink(missing_ok=True)
        raise GenerationError(f"the downloaded video is empty ({url[:80]})")
    os.replace(part, out)


async def _one(gen: HostedGenerator, http, sem: asyncio.Semaphore, budgets: list[Budget], db: JobDB, it: Item,
               session: str, advance) -> None:
    async with sem:
        try:
            await _work(gen, http, budgets, db, it)
            db.done(it.out.name, gen.name)
        except GenerationError as e:
            db.failed(it.out.name, gen.name, http.scrub(str(e)), session, keep_job=isinstance(e, _Kept))
        except Exception as e:  # a bug or an unexpected answer: recorded, never a crash of the run
            row = db.get(it.out.name)
            db.failed(it.out.name, gen.name, http.scrub(f"{gen.name}: {type(e).__name__}: {e}"), session,
                      keep_job=bool(row and row.job_id))
        finally:
            advance()


async def _run(groups: list[tuple[HostedGenerator, list[Item]]], budget: Budget, session: str, advance) -> None:
    from lawful.generators.hosted.http import HostedHTTP
    from lawful.http_retry import RetryPolicy

    clients, tasks, dbs = [], [], {}
    try:
        for gen, items in groups:
            try:
                key = gen.key()
            except GenerationError as e:  # no key: nothing of this model is submitted
                for it in items:
                    db = dbs.setdefault(it.out.parent, JobDB(it.out.parent))
                    db.failed(it.out.name, gen.name, str(e), session, keep_job=True)
                    advance()
                continue
            s = gen.settings
            http = HostedHTTP(key, gen.provider.auth_headers(key), s.http_timeout_s,
                              RetryPolicy(max_retries=s.retries, backoff_s=min(1.0, s.poll_s)))
            clients.append(http)
            sem = asyncio.Semaphore(s.concurrency)
            budgets = [budget]
            if s.budget_usd is not None:  # the model's own cap counts what its video folders have spent
                spent = 0.0
                for folder in {it.out.parent for it in items}:
                    spent += dbs.setdefault(folder, JobDB(folder)).totals()[0]
                budgets.append(Budget(s.budget_usd, None, None, spent,
                                      source={"usd": f"option budget_usd of {gen.name}"}))
            for it in items:
                db = dbs.setdefault(it.out.parent, JobDB(it.out.parent))
                tasks.append(_one(gen, http, sem, budgets, db, it, session, advance))
        await asyncio.gather(*tasks)
    finally:
        for c in clients:
            await c.aclose()
        for db in dbs.values():
            db.close()


def _resumed_first(items: list[Item]) -> list[Item]:
    """Jobs already submitted go first: they hold the concurrency slots they already use at the provider."""
    def has_job(it: Item) -> bool:
        p = it.out.parent / DB_NAME
        if not p.exists():
            return False
        db = JobDB(it.out.parent)
        try:
            row = db.get(it.out.name)
            return bool(row and row.job_id)
        finally:
            db.close()

    return sorted(items, key=lambda it: not has_job(it))


def generate_one(gen: HostedGenerator, case: Case, first_frame: Path | None, out: Path, seed: int) -> Path:
    """One video, standalone (a worker without the pre-pass). A failure the latest pre-pass of this folder
    recorded is raised as it is, so a worker never submits what the pre-pass already gave up on."""
    _started()
    db = JobDB(out.parent)
    try:
        row, last_pass = db.get(out.name), db.get_meta(PASS_KEY)
    finally:
        db.close()
    if row and row.state == "failed" and last_pass and row.session == last_pass:
        raise GenerationError(row.reason)
    budget = Budget.from_env(run_totals(out))
    asyncio.run(_run([(gen, [Item(case, first_frame, out, seed)])], budget, "", lambda: None))
    if out.exists():
        return out
    db = JobDB(out.parent)
    try:
        row = db.get(out.name)
    finally:
        db.close()
    raise GenerationError(row.reason if row and row.reason else f"{gen.name}: no video for case {case.id}")


def pregenerate(jobs, out: Path, progress: bool = True) -> dict[str, int]:
    """Make every missing video of a hosted model among ``jobs`` (the runner's jobs, or any objects with
    ``model``, ``case_path``, ``video`` and ``seed``) before they are scored: all models' jobs concurrently (each model capped at its ``concurrency``). No-op
    (returns zeros) when no job needs a hosted model. Failures are recorded for the workers to report."""
    from lawful.generators.base import get_generator
    from lawful.progress import console, progress_bar

    gens: dict[str, object] = {}
    groups: dict[str, list[Item]] = {}
    for job in jobs:
        if Path(job.video).exists():
            continue
        if job.model not in gens:
            try:
                gens[job.model] = get_generator(job.model)
            except Exception:  # an unusable spec is reported by the worker that runs the job
                gens[job.model] = None
        gen = gens[job.model]
        if not isinstance(gen, HostedGenerator):
            continue
        try:
            case = load_case(job.case_path)
        except Exception:  # a broken case: its worker records why
            continue
        groups.setdefault(job.model, []).append(
            Item(case, case.first_frame_path(job.case_path), Path(job.video), job.seed))
    n = sum(len(v) for v in groups.values())
    if not n:
        return {"videos": 0, "downloaded": 0, "failed": 0}
    _started()
    session = uuid.uuid4().hex  # this pass: the failures it records are final for this run's workers
    for folder in {it.out.parent for items in groups.values() for it in items}:
        db = JobDB(folder)
        db.set_meta(PASS_KEY, session)
        db.close()
    budget = Budget.from_env(run_totals(next(iter(groups.values()))[0].out))
    for m, items in groups.items():
        g = gens[m]
        if budget.usd is not None and not (g.settings.usd_per_video or g.settings.usd_per_s) and progress:
            console.print(f"hosted: {g.name} has no price (usd_per_video / usd_per_s): its videos count $0 "
                          f"against {BUDGET_ENV['usd']}")
    with progress_bar(progress) as bar:
        tid = bar.add_task("hosted", total=n)
        asyncio.run(_run([(gens[m], _resumed_first(items)) for m, items in groups.items()], budget, session,
                         lambda: bar.advance(tid)))
    done = sum(it.out.exists() for items in groups.values() for it in items)
    if progress:
        usd, subs = run_totals(next(iter(groups.values()))[0].out)
        failed = f", {n - done} failed (their videos are invalid, with the reason)" if n > done else ""
        console.print(f"hosted: {done} of {n} videos downloaded{failed}; this run folder has submitted {subs} "
                      f"job{'s' if subs != 1 else ''}, estimated ${usd:.2f}")
    return {"videos": n, "downloaded": done, "failed": n - done}
