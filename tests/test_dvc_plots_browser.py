"""`dvc plots show` offline: the page it writes (.dvc/config `plots.html_template`, .dvc/plots/offline.html) draws
every plot of dvc.yaml in headless Chromium with no network at all (every host name resolves to nothing), where
DVC's own page, which loads Vega from a CDN, stays blank."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from flows.dvc_yaml import plots_text
from steps.benchmarks import benchmarks
from tests.browser import chromium_paths, headless_chromium
from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(chromium_paths() is None, reason="needs chromium and chromium-driver (.ci/run)")

NO_NETWORK = "--host-resolver-rules=MAP * ~NOTFOUND"


@pytest.fixture(scope="module")
def plots_page(tmp_path_factory) -> Path:
    """`dvc plots show` run in a small copy: the project's .dvc/ (config, templates), the plots section of dvc.yaml
    as `jurisflow stages write` gives it, and the committed plot data; the page it wrote."""
    root = tmp_path_factory.mktemp("dvc-plots")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    shutil.copytree(ROOT / ".dvc", root / ".dvc", ignore=shutil.ignore_patterns("tmp", "cache", "config.local"))
    (root / "dvc.yaml").write_text(plots_text() + "\n", encoding="utf-8")
    shutil.copytree(ROOT / "reports" / "plots", root / "reports" / "plots")
    dvc = Path(sys.executable).parent / "dvc"
    args = [str(dvc), "plots", "show", "-o", "out"]
    done = subprocess.run(args, cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    page = root / "out" / "index.html"
    assert page.is_file()
    return page


def test_the_page_loads_nothing_from_the_network(plots_page):
    text = plots_page.read_text(encoding="utf-8")
    assert "<script src" not in text and "cdn." not in text
    assert text.count("vegaEmbed('#") == sum(len(b.plots) for b in benchmarks().values())


def test_dvc_plots_show_draws_every_plot_offline(plots_page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    names = [p.name for b in benchmarks().values() for p in b.plots]
    with headless_chromium(NO_NETWORK) as driver:
        driver.set_window_size(800, 1000)
        driver.get(plots_page.as_uri())
        charts = WebDriverWait(driver, 20).until(
            lambda d: (
                len(d.find_elements(By.CSS_SELECTOR, "svg.dvc-chart")) == len(names)
                and d.find_elements(By.CSS_SELECTOR, "svg.dvc-chart")
            )
        )
        for name, chart in zip(names, charts, strict=True):
            data = pd.read_csv(ROOT / "reports" / "plots" / f"{name}.csv", keep_default_na=False, na_values=[""])
            marks = chart.find_elements(By.CSS_SELECTOR, "rect.mark")
            assert len(marks) == len(data), name  # one bar per row: label × agent
            assert any(float(m.get_attribute("width")) > 0 for m in marks) or (data.iloc[:, 2] == 0).all(), name
            assert chart.get_attribute("aria-label") == name
            assert 0 < chart.size["width"] <= 800  # fits the window
        assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0
        assert [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []


def test_dvc_own_page_needs_the_network(plots_page, tmp_path):
    """The control: without the template, DVC's page asks a CDN for its scripts, and offline draws nothing."""
    from selenium.webdriver.common.by import By

    root = plots_page.parents[1]
    dvc = Path(sys.executable).parent / "dvc"
    empty = tmp_path / "dvc_default.html"
    empty.write_text("<!DOCTYPE html><html><head>{scripts}</head><body>{plot_divs}</body></html>", encoding="utf-8")
    args = [str(dvc), "plots", "show", "-o", "default", "--html-template", str(empty)]
    done = subprocess.run(args, cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    page = root / "default" / "index.html"
    assert '<script src="https://' in page.read_text(encoding="utf-8")
    with headless_chromium(NO_NETWORK) as driver:
        driver.get(page.as_uri())
        assert driver.find_elements(By.CSS_SELECTOR, "svg, canvas") == []
