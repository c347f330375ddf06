"""Headless Chromium (Debian's `chromium` and `chromium-driver`) driven by Selenium, for the HTML report's
browser test and benchmark. No browser is downloaded: Selenium Manager is bypassed by naming the driver."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
)


def chromium_paths() -> tuple[str, str] | None:
    """(browser, driver) when both are installed, else None."""
    browser, driver = shutil.which("chromium"), shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


@contextmanager
def headless_chromium(*extra: str) -> Iterator:
    """A Chrome WebDriver on headless Chromium with a fresh profile, its console log readable; `extra` flags are
    added to FLAGS."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    paths = chromium_paths()
    if paths is None:
        raise RuntimeError("chromium and chromedriver not found: apt-get install -y chromium chromium-driver")
    with tempfile.TemporaryDirectory(prefix="jurisflow-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = paths[0]
        for flag in (*FLAGS, *extra, f"--user-data-dir={profile}"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(options=options, service=Service(executable_path=paths[1]))
        try:
            yield driver
        finally:
            driver.quit()
