"""The HTML report of a small run folder: run page, case index, per-video pages, navigation, formulas with their
numbers, reasons of unmeasurable and invalid videos, key frames reused, ``lawful show``."""

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from lawful.report.leaderboard import write_reports
from lawful.result import Event, Score
from lawful.store import Store, VideoKey, fingerprint
from lawful.tracks import Tracks
from lawful.video import write_video

UNMEAS = "ball_1 never starts to fall: no release found"
BROKEN = "drop-000__0.mp4: cannot decode (InvalidDataError)"
T = 24


def _video(path: Path, w=320, h=180) -> Path:
    """A white disc crossing a dark frame, 8 px (case pixels) per frame; the case is twice the size."""
    import cv2

    frames = []
    for i in range(T):
        f = np.full((h, w, 3), 30, np.uint8)
        cv2.circle(f, (int(20 + 4 * i), 60), 8, (255, 255, 255), -1)
        frames.append(f)
    return write_video(path, frames, 24.0)


def _evidence(video: Path) -> dict:
    t = np.arange(T) / 24.0
    tr = Tracks.from_positions(t, {"ball_1": (40 + 8 * np.arange(T), np.full(T, 120.0))}, radius=16)
    return {"video": {"path": str(video), "fps": 24.0, "n_frames": T, "width": 320, "height": 180},
            "tracks": tr.to_dict(), "events": [Event(object="ball_1", name="impact", frame=10.0, t=10 / 24).model_dump()],
            "quantities": {"restitution_F1": 0.76, "restitution_F2": 0.74, "drop_height_ball_2": None},
            "missing": {"drop_height_ball_2": "ball_2 left the frame"}, "tracks_meta": {"camera": {"used": False}}}


def _wmle_score(C: float, P: float) -> Score:
    S = 0.15 * C + 0.85 * P
    return Score(status="scored", value=S, metrics={"C": C, "P": P, "M1": 0.7, "M2": 0.9},
                 residuals={"M1": 0.04, "M2": 0.01},
                 extra={"S": S, "gated": False, "C_source": "measured", "C_checks": {"found": 1.0, "persistence": 0.9},
                        "metric_status": {"M1": "measured", "M2": "measured"}, "metric_reasons": {},
                        "label": "P21", "family": "Hydrostatics and buoyancy", "level": "E"})


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    from lawful.runner.run import build_cases
    from lawful.suites.base import get_suite
    from lawful.suites.phyground.report import phyground_section, write_cases
    from lawful.suites.phyground.scoring import GENERAL_RUBRIC, LAW_RUBRIC

    out = tmp_path_factory.mktemp("rep") / "run"
    build_cases(get_suite("principia"), out / "cases" / "principia", 1, tasks=["drop"], progress=False)
    build_cases(get_suite("wmle"), out / "cases" / "wmle", 1, tasks=["communicating_vessels"], progress=False)
    pg = write_cases(out / "cases" / "phyground", 1)[0].stem
    vid = _video(out / "videos" / "reference" / "drop-000__0.mp4")
    ev = _evidence(vid)
    bad = out / "videos" / "broken" / "drop-000__0.mp4"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"not a video")
    with Store(out / "results.sqlite") as st:
        sc = Score(status="scored", value=1 - 0.02 / 1.5, metrics={"dcs": 0.97, "S": 1 - 0.02 / 1.5},
                   sides={"F1": 0.76, "F2": 0.74})
        st.put(VideoKey("principia", "drop-000", "reference", 0), "drop", "scored", {"restitution": sc},
               path=str(vid), evidence=ev, fingerprint=fingerprint(vid))
        st.put(VideoKey("principia", "drop-000", "static", 0), "drop", "unmeasurable",
               {"restitution": Score.unmeasurable(UNMEAS)}, UNMEAS, str(vid), ev, fingerprint(vid))
        st.put(VideoKey("principia", "drop-000", "broken", 0), "drop", "invalid",
               {"restitution": Score.invalid(BROKEN)}, BROKEN, str(bad))
        wev = dict(ev, tracks={**ev["tracks"], "regions": {"arm_left": {
            "kind": "level", "ok": [True] * T, "sigma": [0.3] * T, "values": {"row": [150.0] * T}}}})
        st.put(VideoKey("wmle", "communicating_vessels-000", "reference", 0), "communicating_vessels", "scored",
               {"P21": _wmle_score(90.0, 80.0)}, path=str(vid), evidence=wev, fingerprint=fingerprint(vid))
        _video(out / "videos" / "reference" / f"{pg}__0.mp4")
        for rubric, crit, v in ((GENERAL_RUBRIC, "semantic_alignment", 4.0), (LAW_RUBRIC, "gravity", 2.0)):
            st.put_judgement(VideoKey("phyground", pg, "reference", 0), rubric, crit, v, "scored",
                             raw=json.dumps({"score": v}), judge="judge-vl@local")
        st.put_judgement(VideoKey("principia", "drop-000", "reference", 0), "principia-detect", "restitution", 1.0,
                         "scored", raw='{"verdict": "PASS"}', judge="judge-vl@local")
        board = write_reports(st, out, ["principia", "wmle"], {"phyground": phyground_section(st)})
    return out, board, pg


def _html(p: Path) -> str:
    return p.read_text()


def test_leaderboard_cells_lead_to_the_cases_behind_them(run):
    out, board, _ = run
    html = _html(out / "report.html")
    assert "<table" in html and "data:image/png;base64" in html
    links = set(re.findall(r"href='(report/[^'#]+)#c-([^']+)'", html))
    assert ("report/principia/index.html", "restitution") in links and ("report/wmle/index.html", "P21") in links
    assert ("report/phyground/index.html", "gravity") in links
    for href, anchor in links:
        index = out / href
        text = _html(index)
        assert f"id='c-{anchor}'" in text
        section = text.split(f"id='c-{anchor}'")[1].split("<h2")[0]
        pages = re.findall(r"href='([^']+\.html)'", section)
        assert pages and all((index.parent / p).exists() for p in pages)
    # the spread and the counts are on the run page; the run's details too
    assert "scored" in html and "unmeasurable" in html and "judge-vl@local" in html and "lawful" in html


def test_case_pages_say_why_a_video_is_unmeasurable_or_invalid(run):
    out = run[0]
    static = _html(out / "report" / "principia" / "static" / "drop-000__0.html")
    broken = _html(out / "report" / "principia" / "broken" / "drop-000__0.html")
    assert "badge unmeasurable" in static and UNMEAS in static
    assert "badge invalid" in broken and "cannot decode (InvalidDataError)" in broken
    assert "<h2>first frame</h2>" in broken  # nothing was tracked: the case's first frame instead of key frames


def test_formulas_carry_their_numbers(run):
    out = run[0]
    ref = _html(out / "report" / "principia" / "reference" / "drop-000__0.html")
    s = 1 - abs(0.76 - 0.74) / (0.76 + 0.74)
    assert f"= 1 − |0.76 − 0.74| / (0.76 + 0.74) = {s:.4g}" in ref and "DCS = 0.97 ≥ 0.8" in ref
    assert "ball_2 left the frame" in ref  # a missing quantity with its reason
    w = _html(out / "report" / "wmle" / "reference" / "communicating_vessels-000__0.html")
    assert "P = 100 × mean(M1, M2) = 100 × mean(0.7, 0.9) = 80" in w
    assert "S = 0.15·C + 0.85·P̃ = 0.15·90 + 0.85·80 = 81.5" in w and "C = 100 × found × persistence" in w
    pg = _html(out / "report" / "phyground" / "reference" / f"{run[2]}__0.html")
    assert "gravity" in pg and "judge-vl@local" in pg


def test_key_frames_are_small_jpegs_and_the_video_stays_in_place(run):
    import cv2

    out = run[0]
    here = out / "report" / "principia" / "reference"
    text = _html(here / "drop-000__0.html")
    src = re.search(r"<video[^>]* src='([^']+)'", text).group(1)
    assert (here / src).resolve() == (out / "videos" / "reference" / "drop-000__0.mp4").resolve()
    jpgs = sorted(here.glob("img/*.jpg"))
    assert len(jpgs) >= 3  # overview, first, impact, last
    for p in jpgs:
        im = cv2.imread(str(p))
        assert im is not None and im.shape[1] <= 640 and p.stat().st_size < 60_000
    assert not list((out / "report").rglob("*.mp4"))


def test_writing_again_reuses_key_frames_and_embed_copies_videos(run):
    out = run[0]
    before = {p: p.stat().st_mtime_ns for p in (out / "report").rglob("*.jpg")}
    from typer.testing import CliRunner

    from lawful.cli import app

    r = CliRunner().invoke(app, ["report", "--run", str(out), "--embed"])
    assert r.exit_code == 0, r.output
    assert {p: p.stat().st_mtime_ns for p in (out / "report").rglob("*.jpg")} == before
    here = out / "report" / "principia" / "reference"
    src = re.search(r"<video[^>]* src='([^']+)'", _html(here / "drop-000__0.html")).group(1)
    assert src.startswith("media/") and (here / src).stat().st_size == (out / "videos" / "reference" /
                                                                      "drop-000__0.mp4").stat().st_size


def test_show_writes_an_overlay_video(run):
    from typer.testing import CliRunner

    from lawful.cli import app
    from lawful.video import probe

    out = run[0]
    r = CliRunner().invoke(app, ["show", str(out), "drop-000"])
    assert r.exit_code == 2 and "give --model" in r.output
    r = CliRunner().invoke(app, ["show", str(out), "drop-000", "--model", "broken"])
    assert r.exit_code == 2 and "no tracks stored" in r.output and "invalid" in r.output
    dest = out / "ov.mp4"
    r = CliRunner().invoke(app, ["show", str(out), "drop-000", "-m", "reference", "--out", str(dest)])
    assert r.exit_code == 0, r.output
    info = probe(dest, count=True)
    assert info.n_frames == T and (info.width, info.height) == (320, 180)


def test_run_page_sections(run):
    out, board, _ = run
    html = _html(out / "report.html")
    assert "S = 0.15·C + 0.85·P̃" in html and "per family" in html  # WMLE's C, P, S and the gate
    assert "dimension / law" in html  # PhyGround per law
    side = html.split("measurement and judge side by side")[1].split("</table>")[0]
    assert re.search(r"reference</th><td class='l'>principia-detect</td><td class='l'>restitution</td>"
                     rf"<td>{1 - 0.02 / 1.5:.3f}</td><td>1.000</td><td>1</td><td>0</td>", side)
    m = board["principia"]["models"]
    assert m["static"]["unmeasurable"] == 1 and m["broken"]["invalid"] == 1
    assert math.isclose(m["reference"]["tasks"]["restitution"], 1 - 0.02 / 1.5)


CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
WIDTH = 1400


@pytest.fixture(scope="module")
def browser():
    """Headless Debian chromium at 1400 px (skipped when it or selenium is absent)."""
    if not (Path(CHROMIUM).exists() and Path(DRIVER).exists()):
        pytest.skip("no /usr/bin/chromium and /usr/bin/chromedriver")
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              f"--window-size={WIDTH},900", "--mute-audio"):
        opts.add_argument(a)
    opts.binary_location = CHROMIUM
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(DRIVER), options=opts)
    yield d
    d.quit()


def test_every_page_loads_cleanly_in_chromium_at_1400px(run, browser):
    out = run[0]
    pages = [out / "report.html", *sorted((out / "report").rglob("*.html"))]
    assert len(pages) == 1 + 3 + 5  # run page, three suite indexes, five videos
    images = 0
    for p in pages:
        browser.get(p.resolve().as_uri())
        errors = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
        assert not errors, (p.name, errors)
        bad = browser.execute_script(
            "return Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
        assert not bad, (p.name, bad)
        images += browser.execute_script("return document.images.length")
        width = browser.execute_script("return document.documentElement.scrollWidth")
        assert width <= WIDTH, (p.name, width)
    assert images >= 3 + 2 * 4  # the run page's charts, each tracked video's overview and key frames
