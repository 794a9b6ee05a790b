"""The HTML outputs in a real browser (headless Chromium through Selenium): they render, and log no errors.

Checked: a campaign report (FCFS vs EASY on 3 one-day windows of KTH-SP2, with a baseline) and a zoomable
Gantt page. Tables have rows, every image decoded (``naturalWidth > 0``), the plotly figure drew its SVG,
and the console holds no SEVERE entry. Chromium and chromedriver come from Debian
(``scripts/install-browser.sh``, run by ``make test``); without them this module skips and says why.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from schedlab.campaign import load_campaign, run_campaign
from schedlab.campaign.report import write_report
from schedlab.engine import simulate
from schedlab.output import write_jobs_csv
from schedlab.registry import make_policy
from schedlab.report.gantt_html import gantt_html
from schedlab.runner import load_instance
from schedlab.schedule import Instance
from schedlab.workload.windows import cut

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")


def _browser_paths() -> tuple[str, str] | None:
    chromium = CHROMIUM if CHROMIUM.is_file() else shutil.which("chromium") or shutil.which("chromium-browser")
    driver = CHROMEDRIVER if CHROMEDRIVER.is_file() else shutil.which("chromedriver")
    return (str(chromium), str(driver)) if chromium and driver else None


@pytest.fixture(scope="module")
def browser():
    paths = _browser_paths()
    if paths is None:
        pytest.skip(
            "no chromium/chromedriver: run `bash scripts/install-browser.sh` as root (apt-get install chromium chromium-driver)"
        )
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = paths[0]
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=paths[1]), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def open_page(driver, path: Path) -> None:
    """Load ``path``, wait for every image, and drop the log of earlier pages."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get_log("browser")
    driver.get(path.resolve().as_uri())
    WebDriverWait(driver, 30).until(
        lambda d: d.execute_script(
            "return document.readyState === 'complete' && [...document.images].every(i => i.complete)"
        )
    )


def severe(driver) -> list[dict]:
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def test_campaign_report_renders(browser, traces_dir, tmp_path):
    spec = tmp_path / "kth.toml"
    spec.write_text(
        textwrap.dedent(f"""
            seed = 3
            metrics = ["bsld_mean", "wait_mean", "utilization"]

            [[workloads]]
            name = "KTH-SP2"
            trace = "{traces_dir / "KTH-SP2-1996-2.1-cln.swf.gz"}"
            status = 1
            windows = {{ sample = "random", count = 3, length = "1d" }}

            [[policies]]
            name = "fcfs"

            [[policies]]
            name = "easy"
        """),
        encoding="utf-8",
    )
    campaign = load_campaign(spec)
    assert not run_campaign(campaign, jobs=1).failed
    write_report(campaign, tmp_path / "report", baseline="fcfs")
    open_page(browser, tmp_path / "report" / "index.html")
    rows = browser.execute_script(
        "return [...document.querySelectorAll('table')].map(t => t.querySelectorAll('tr td').length)"
    )
    assert len(rows) == 6 and all(cells > 0 for cells in rows)  # 3 metrics x (summary, relative to fcfs)
    images = browser.execute_script("return [...document.images].map(i => [i.naturalWidth, i.naturalHeight])")
    assert len(images) == 3 and all(w > 0 and h > 0 for w, h in images)
    assert severe(browser) == []


def test_gantt_page_renders(browser, traces_dir, tmp_path):
    instance, _ = load_instance(traces_dir / "KTH-SP2-1996-2.1-cln.swf.gz", status=1)
    first = float(instance.jobs.submit[0])
    day = Instance(cut(instance.jobs, (first, first + 2 * 86400.0)), instance.platform)
    write_jobs_csv(tmp_path / "jobs.csv", day, simulate(day, make_policy("easy")))
    for name, limit, kind in (("rect.html", 20_000, "scatter"), ("heat.html", 1, "heatmap")):
        drawn = gantt_html(tmp_path / "jobs.csv", tmp_path / name, max_rectangles=limit)
        assert drawn["jobs"] > 10
        open_page(browser, tmp_path / name)
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(browser, 30).until(
            lambda d: d.execute_script("return document.querySelectorAll('#gantt .main-svg').length > 0")
        )
        traces = browser.execute_script("return document.getElementById('gantt')._fullData.map(t => t.type)")
        # aggregated: the queue is a band (least, then largest per bin), one more trace
        assert traces == [kind, "scatter", "scatter"] + (["scatter"] if kind == "heatmap" else [])
        drawn_marks = browser.execute_script(
            "const g = document.getElementById('gantt');"
            "return g.querySelectorAll('.scatterlayer path.js-fill, .scatterlayer path.js-line').length"
            " + g.querySelectorAll('.heatmaplayer image').length"
        )
        assert drawn_marks >= 3
        assert severe(browser) == []


def test_torus_view_renders(browser, tmp_path):
    """The 3-D torus picture (Krevat 2003 runs): one mesh per job and one for the free nodes, drawn by WebGL."""
    from schedlab.platform.torus import Box, Torus
    from schedlab.report.torus_view import torus_html

    torus = Torus((4, 4, 8))
    owners = {
        v: job
        for job, box in ((1, Box((0, 0, 0), (4, 4, 2))), (7, Box((3, 3, 6), (2, 2, 3))))
        for v in torus.box_nodes(box)
    }
    torus_html(torus, owners, tmp_path / "torus.html", title="two jobs")
    open_page(browser, tmp_path / "torus.html")
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 30).until(
        lambda d: d.execute_script("return document.getElementById('torus')._fullData !== undefined")
    )
    traces = browser.execute_script("return document.getElementById('torus')._fullData.map(t => [t.type, t.name])")
    assert traces == [["mesh3d", "free"], ["mesh3d", "job 1"], ["mesh3d", "job 7"]]
    assert browser.execute_script("return document.querySelectorAll('#torus canvas').length") >= 1
    assert severe(browser) == []
