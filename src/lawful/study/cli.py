"""``lawful study``: create, serve, quality-control and analyse a human study (see docs/study.md)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import typer

study_app = typer.Typer(no_args_is_help=True, help="Human annotation study: create, serve, qc, report.")

STUDY_OPT = typer.Option(Path("study"), "--study", "-s", help="Study folder (media, links, SQLite database).")
MAX_LISTED = 20
DB_OPT = typer.Option(None, "--db", help="SQLAlchemy URL (default: SQLite in the study folder).")


def _fail(msg: str) -> None:
    from lawful.cli_common import fail

    fail(msg)


def _need(*modules: str) -> None:
    import importlib.util

    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        _fail(f"the study app needs {', '.join(missing)}: pip install 'lawful[study]'")


def _db(study: Path, url: str | None):
    _need("sqlalchemy")
    from lawful.study.db import DB_FILE, StudyDB

    if url is None and not (study / DB_FILE).exists():
        _fail(f"no study in {study}: create one with `lawful study create --run RUN --out {study}`")
    return StudyDB(url or f"sqlite:///{(study / DB_FILE).resolve()}")


@study_app.command("create")
def create(run: Path = typer.Option(..., "--run", help="Run folder with cases/ and videos/<model>/."),
           out: Path = typer.Option(None, "--out", "-o", help="Study folder (default: RUN/study)."),
           annotators: int = typer.Option(..., "--annotators", "-n", help="Number of annotators (links)."),
           per_video: int = typer.Option(..., "--per-video", "-k", help="Annotators per video (or pair)."),
           mode: str = typer.Option("rate", help="rate (1-5 questions), pair (which clip is more physical) or both."),
           models: str = typer.Option("", help="Comma-separated models to include (default: all)."),
           attention_every: int = typer.Option(10, help="One attention check per this many rated videos (0: none)."),
           min_watch: float = typer.Option(None, "--min-watch", help="Seconds of playing before submit is allowed "
                                           "(also a QC flag); default: none."),
           sub_questions: bool = typer.Option(False, help="Show the judge's checklist too (the seed hides it)."),
           base_url: str = typer.Option("http://127.0.0.1:8000", help="Where the app will be served (for links)."),
           db: str = DB_OPT, seed: int = typer.Option(0, help="Seed of the random assignment.")):
    """Create a study from a run folder: copy its videos, assign them, write sign-in links."""
    _need("sqlalchemy")
    from lawful.study.assign import StudyError, create_study

    try:
        info = create_study(run, out or run / "study", annotators, per_video, mode=mode, url=db,
                            models=[m for m in models.split(",") if m] or None, attention_every=attention_every,
                            min_watch_s=min_watch, sub_questions=sub_questions, seed=seed, base_url=base_url)
    except StudyError as e:
        _fail(str(e))
    print(f"study {info['study']}: {info['videos']} videos, {info['items']} items over {info['cases']} prompts; "
          f"{info['annotators']} annotators × {info['load_min']}-{info['load_max']} items each")
    print(f"annotator links: {info['links']}\nadmin token: {info['admin_token_file']}")


@study_app.command("serve")
def serve(study: Path = STUDY_OPT, db: str = DB_OPT, host: str = typer.Option("127.0.0.1"),
          port: int = typer.Option(8000)):
    """Serve the study (annotators open their link; the admin page is /admin/login/<admin token>)."""
    _need("fastapi", "uvicorn", "sqlalchemy")
    import uvicorn

    from lawful.study.app import create_app

    _db(study, db).close()
    app = create_app(study, db)
    print(f"serving {study} at http://{host}:{port}/ — annotators: their link in {study / 'links.csv'}; "
          f"admin: http://{host}:{port}/admin/login/<token in {study / 'admin_token'}>", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")


@study_app.command("qc")
def qc(study: Path = STUDY_OPT, db: str = DB_OPT,
       min_videos: int = typer.Option(3, help="Fewer submissions than this removes an annotator."),
       as_json: bool = typer.Option(False, "--json", help="Print the full result as JSON.")):
    """Quality control (two rounds): flag and remove annotators; the report then leaves them out."""
    from lawful.study.qc import apply_qc

    d = _db(study, db)
    res = apply_qc(d, min_videos=min_videos)
    d.close()
    if as_json:
        from lawful.study.report import json_safe

        print(json.dumps(json_safe(res), indent=2))
        return
    print(f"{res['submissions']} submissions from {res['annotators']} annotators: kept {res['kept']}, "
          f"removed {len(res['removed'])} (round 1: {len(res['removed_round_1'])}, round 2: {len(res['removed_round_2'])})")
    for a in res["removed"][:MAX_LISTED]:
        q = res["details"][a]
        print(f"  {a}: {'; '.join(q['reasons'])}  [flags: {', '.join(q['flags'])}]")
    if len(res["removed"]) > MAX_LISTED:
        print(f"  … and {len(res['removed']) - MAX_LISTED} more (--json lists all)")
    low = sum("low_volume" in res["details"][a]["flags"] for a in res["removed"])
    if res["annotators"] and low * 2 > res["annotators"]:
        print(f"warning: {low} of {res['annotators']} annotators have fewer than --min-videos {min_videos} submissions; "
              "lower it if the study gives each annotator only a few items")


def _f(v, nd=3) -> str:
    return "—" if v is None or (isinstance(v, float) and not math.isfinite(v)) else f"{v:.{nd}f}"


def print_report(r: dict) -> None:
    from lawful.suites.phyground.taxonomy import LAWS

    print(f"annotators {r['annotators']} (QC {'applied' if r['qc_applied'] else 'NOT applied'}; "
          f"removed {len(r['removed_annotators'])}), submissions {r['submissions']}, labels {r['labels']}")
    models = r["human"]["models"]
    laws = [law.key for law in LAWS if any(law.key in m["laws"] for m in models.values())]
    print("\nhuman scores (1-5)\n" + "model".ljust(16) + "".join(c[:9].rjust(10) for c in
                                                              ["general", "physics", "overall", *laws]))
    for name, m in models.items():
        print(name[:15].ljust(16) + "".join(_f(m[c], 2).rjust(10) for c in ("general", "physics", "overall"))
              + "".join(_f(m["laws"].get(k), 2).rjust(10) for k in laws))
    print("\nsplit-half reliability (model ranking; mean [2.5%, 97.5%])")
    for view, rel in r["reliability"].items():
        sp, iv = rel["spearman"], rel["spearman"]["interval"] or [None, None]
        print(f"  {view:8s} Spearman {_f(sp['mean'])} [{_f(iv[0])}, {_f(iv[1])}]  Kendall τ-b "
              f"{_f(rel['kendall_tau_b']['mean'])}  Pearson {_f(rel['pearson']['mean'])}  ({rel['splits']} splits)"
              + (f"  — {rel['reason']}" if rel.get("reason") else ""))
    a = r["agreement"]
    print(f"\ninter-annotator agreement: Krippendorff α (interval) all {_f(a['alpha_all'])}, general "
          f"{_f(a['alpha_general'])}, physics {_f(a['alpha_physics'])} over {a['units']} units; pairwise "
          f"percent agreement {_f(a['pairwise_percent_agreement'])}")
    for p in r["preferences"]:
        lo, hi = p["prefer_a_ci95"]
        print(f"  pairs {p['model_a']} vs {p['model_b']}: {p['votes']} votes, {p['model_a']} preferred "
              f"{_f(p['prefer_a'])} [{_f(lo)}, {_f(hi)}], tie {_f(p['tie'])}")
    if not r["judges"]:
        print("\njudge vs human: no judge answers stored in the run")
    for j, s in r["judges"].items():
        pm = s["per_model"]
        print(f"\njudge {j}\n  per model: " + ", ".join(
            f"{v} r={_f(pm[v]['pearson'])} ρ={_f(pm[v]['spearman'])} (n={pm[v]['models']})" for v in pm))
        pi = s["per_item"]
        print(f"  per item: r={_f(pi['pearson'])} ρ={_f(pi['spearman'])} (n={pi['items']})")
        rb = s["relative_bias"]
        print(f"  relative bias: aggregate {_f(rb['aggregate'])}; " + ", ".join(
            f"{d} {_f(v['signed'])}" for d, v in rb["per_dimension"].items()))
        ra, pa = s["rank_accuracy"], s["pairwise_accuracy"]
        print(f"  rank accuracy {_f(ra['A_rank'])} over {ra['pairs']} pairs; pairwise accuracy "
              f"{_f(pa.get('A_pair_conf'))}" + (f" over {pa['pairs']} pairs" if "pairs" in pa else f" ({pa.get('reason')})"))


@study_app.command("report")
def report(study: Path = STUDY_OPT, db: str = DB_OPT, splits: int = typer.Option(100, help="Split-half partitions."),
           out: Path = typer.Option(None, "--out", "-o", help="Also write the report as JSON here."),
           include_removed: bool = typer.Option(False, help="Keep annotators QC removed.")):
    """Human scores, split-half reliability, agreement and judge-vs-human statistics in one command."""
    from lawful.study.report import build_report, json_safe

    d = _db(study, db)
    r = json_safe(build_report(d, n_splits=splits, include_removed=include_removed))
    d.close()
    print_report(r)
    path = out or study / "report.json"
    path.write_text(json.dumps(r, indent=2))
    print(f"\nreport: {path}")


@study_app.command("simulate", hidden=True)
def simulate(study: Path = STUDY_OPT, db: str = DB_OPT, sigma: float = typer.Option(0.5),
             p: float = typer.Option(0.8, help="Chance a good annotator prefers the law-correct clip."),
             bad: str = typer.Option("", help="Profiles for the last annotators, e.g. constant,copy,rusher."),
             judge: list[str] = typer.Option([], help="NAME:BIAS — also store a simulated judge (truth + BIAS) "
                                             "in the run (demo only).")):
    """Answer every assignment with simulated annotators of known truth (a demo of qc and report)."""
    from sqlalchemy import select

    from lawful.study.db import Annotator
    from lawful.study.simulate import simulate_judge, simulate_study

    d = _db(study, db)
    with d.read() as s:
        names = sorted(a.name for a in s.scalars(select(Annotator)))
    profiles = dict(zip(reversed(names), [b for b in bad.split(",") if b]))
    n = simulate_study(d, profiles, sigma=sigma, p=p)
    for spec in judge:
        name, _, bias = spec.rpartition(":")
        if not name:
            _fail(f"--judge {spec!r}: use NAME:BIAS, e.g. sim-judge:0.5")
        m = simulate_judge(d, (d.meta("settings") or {})["run"], name, float(bias))
        print(f"simulated judge {name} (truth {float(bias):+g}): {m} answers stored in the run")
    d.close()
    print(f"{n} simulated submissions; non-good annotators: {profiles or 'none'}")


def register(app: typer.Typer) -> None:
    app.add_typer(study_app, name="study")
