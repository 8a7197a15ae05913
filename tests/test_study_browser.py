"""End to end in a real browser: Debian's headless Chromium driven by Selenium against uvicorn on
127.0.0.1. An annotator signs in with their link, plays each clip, answers, refreshes mid-task (the
answers stay), finishes; the admin runs QC and the report. Screenshots are checked (not blank, the
expected elements drawn) and the browser console must hold no errors."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from pathlib import Path

import numpy as np
import pytest

CHROMIUM, DRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
if not (CHROMIUM.exists() and DRIVER.exists()):
    pytest.skip("Debian's chromium and chromium-driver are not installed", allow_module_level=True)
pytest.importorskip("selenium")
pytest.importorskip("uvicorn")
from PIL import Image  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from sqlalchemy import select  # noqa: E402

from lawful.study.app import create_app  # noqa: E402
from lawful.study.assign import create_study  # noqa: E402
from lawful.study.db import Assignment, Event, StudyDB, default_url  # noqa: E402
from lawful.study.simulate import demo_run  # noqa: E402

HEADER_RGB = (0x22, 0x32, 0x4A)  # the page header's colour (style.css)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    import uvicorn

    root = tmp_path_factory.mktemp("browser")
    run = demo_run(root / "run", models=("reference",), n_cases=3, size=(96, 64), frames=12, fps=12.0)
    info = create_study(run, root / "study", annotators=1, per_video=1, attention_every=2, min_watch_s=0.5)
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(create_app(root / "study"), host="127.0.0.1", port=port, log_level="warning"))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", info, root
    srv.should_exit = True
    th.join(timeout=10)


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,1100",
              "--autoplay-policy=no-user-gesture-required", "--mute-audio", "--no-first-run",
              f"--user-data-dir={tmp_path_factory.mktemp('chrome')}"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(str(DRIVER)), options=opts)
    d.set_page_load_timeout(30)
    yield d
    d.quit()


def check_shot(path: Path, min_std: float = 10.0) -> np.ndarray:
    img = np.asarray(Image.open(path).convert("RGB")).astype(int)
    assert img.shape[0] > 200 and img.shape[1] > 200
    assert img.std() > min_std, f"{path.name} looks blank"
    header = np.all(np.abs(img[:40] - np.array(HEADER_RGB)) <= 3, axis=-1)
    assert header.mean() > 0.5, f"{path.name}: the page header is not drawn"
    return img


def answer_row(d, key: str, value: str) -> None:
    d.find_element(By.ID, f"q-{key}-{value}").click()


def play_clip(d, wait) -> None:
    d.execute_script("const v = document.getElementById('video-0'); v.currentTime = 0; return v.play();")
    wait.until(lambda drv: drv.execute_script("return document.getElementById('video-0').ended"))


def test_annotate_refresh_finish_then_admin(server, driver, tmp_path):
    base, info, root = server
    d, wait = driver, WebDriverWait(driver, 20)
    shots = tmp_path / "shots"
    shots.mkdir()
    # 1. sign in with the personal link: redirected to the task page
    d.get(f"{base}/a/{info['tokens']['annotator-001']}")
    wait.until(EC.visibility_of_element_located((By.ID, "task")))
    assert d.current_url == f"{base}/" and d.find_element(By.ID, "progress").text == "0 of 3 done"
    assert d.find_element(By.ID, "prompt").text.strip()
    for item in range(3):
        keys = [e.get_attribute("data-key") for e in d.find_elements(By.CSS_SELECTOR, "tr.question")]
        assert keys[:3] != [] and "semantic_alignment" in keys
        # 2. watch: the clip plays to its end (the page counts the seconds)
        play_clip(d, wait)
        # 3. answer half the rows (each click is saved)
        scores = {k: str(1 + (i + item) % 5) for i, k in enumerate(keys)}
        if "_attention" in keys:
            text = d.find_element(By.CSS_SELECTOR, "tr[data-key='_attention'] th").text
            scores["_attention"] = text.split("choose ")[1][0]
        half = keys[: len(keys) // 2]
        for k in half:
            answer_row(d, k, scores[k])
        wait.until(lambda drv: drv.find_element(By.ID, "status").text == "saved")
        if item == 0:
            d.save_screenshot(str(shots / "1-answering.png"))
            # 4. refresh mid-task: the same clip comes back with the saved answers ticked
            prompt, src = d.find_element(By.ID, "prompt").text, d.find_element(By.ID, "video-0").get_attribute("src")
            d.refresh()
            wait.until(EC.visibility_of_element_located((By.ID, "task")))
            assert d.find_element(By.ID, "prompt").text == prompt
            assert d.find_element(By.ID, "video-0").get_attribute("src") == src
            for k in half:
                assert d.find_element(By.ID, f"q-{k}-{scores[k]}").is_selected(), k
            assert not d.find_element(By.ID, "submit").is_enabled()  # rows still unanswered
        for k in keys[len(keys) // 2:]:
            answer_row(d, k, scores[k])
        wait.until(lambda drv: drv.find_element(By.ID, "submit").is_enabled())
        d.find_element(By.ID, "submit").click()
        if item < 2:
            wait.until(lambda drv: drv.find_element(By.ID, "progress").text == f"{item + 1} of 3 done")
    # 5. finished
    wait.until(EC.visibility_of_element_located((By.ID, "finished")))
    d.save_screenshot(str(shots / "2-finished.png"))
    # 6. the admin signs in, runs QC and the report
    d.get(f"{base}/admin/login/{info['admin_token']}")
    wait.until(lambda drv: "3 of 3" in drv.find_element(By.ID, "progress-summary").text)
    d.find_element(By.ID, "run-qc").click()
    wait.until(lambda drv: len(drv.find_elements(By.CSS_SELECTOR, "#qc-table tr")) == 2)
    assert "3 submissions" in d.find_element(By.ID, "qc-summary").text
    d.find_element(By.ID, "run-report").click()
    wait.until(lambda drv: len(drv.find_elements(By.CSS_SELECTOR, "#scores-table tr")) == 2)
    assert "reference" in d.find_element(By.ID, "scores-table").text
    d.save_screenshot(str(shots / "3-admin.png"))
    # screenshots: drawn, with the header; the answering page shows the clip and the radio table
    a = check_shot(shots / "1-answering.png")
    check_shot(shots / "2-finished.png")
    check_shot(shots / "3-admin.png")
    assert (np.abs(a - np.array((235, 235, 235))).sum(-1) == 0).sum() > 500  # the clip's light background
    # the console holds no errors
    severe = [e for e in d.get_log("browser") if e["level"] == "SEVERE"]
    assert not severe, severe
    # the database: every clip submitted, played, and watched
    db = StudyDB(default_url(root / "study"))
    with db.read() as s:
        rows = list(s.scalars(select(Assignment)))
        plays = s.scalars(select(Event.assignment_id).where(Event.kind == "play")).all()
    db.close()
    assert all(r.submitted_at for r in rows) and set(plays) == {r.id for r in rows}
    assert all(r.watch_s >= 0.5 for r in rows)
    if os.environ.get("LAWFUL_KEEP_SCREENSHOTS"):  # a folder to keep them in, for a person to look at
        shutil.copytree(shots, os.environ["LAWFUL_KEEP_SCREENSHOTS"], dirs_exist_ok=True)
