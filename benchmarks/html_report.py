"""How fast and small the HTML report is: (1) the whole report of the current run (reports/*.csv and data/) is
built as the `html_report` stage builds it, timed, and weighed; (2) a J1 page with 500 synthetic dialogues is
built and opened in headless Chromium (Debian's chromium + chromium-driver), timing the page load, the first
opening of the transcript viewer (parsing the embedded JSON, listing every dialogue) and a filter change.

    .venv/bin/python benchmarks/html_report.py [--dialogues 500] [--repeat 3]

Prints measurements; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from flows.html_report import BENCHMARKS, load_dialogues, read_long  # noqa: E402
from flows.kit.config import load_params  # noqa: E402
from steps.reports.html import dialogues  # noqa: E402
from steps.reports.html.pages import benchmark_page, index_page  # noqa: E402
from tests.browser import headless_chromium  # noqa: E402
from tests.html_data import j1_frames  # noqa: E402


def whole_report(out: Path) -> None:
    params = load_params(ROOT / "params.yaml")
    start, counts = time.perf_counter(), {}
    for bench in BENCHMARKS:
        df = read_long(ROOT / "reports" / f"{bench}.csv")
        records = None if bench == "lawbench" else load_dialogues(bench, params, ROOT / "data")
        (out / f"{bench}.html").write_text(benchmark_page(bench, df, records, list(params.agents)), encoding="utf-8")
        counts[bench] = (len(df), len(records or []))
    (out / "index.html").write_text(index_page(counts), encoding="utf-8")
    took = time.perf_counter() - start
    size = sum(p.stat().st_size for p in out.glob("*.html"))
    n = sum(d for _, d in counts.values())
    print(f"whole report (current run): {took:.1f} s to build, {size / 1e6:.1f} MB, {n:,} dialogues")


def big_page(out: Path, n: int, repeat: int) -> None:
    records = []
    for agent in ("oracle", "null"):
        records += dialogues.j1(*j1_frames(n // 2, agent=agent))
    start = time.perf_counter()
    page = benchmark_page("j1", read_long(ROOT / "reports" / "j1.csv"), records, ["oracle", "null"])
    built = time.perf_counter() - start
    path = out / "j1_big.html"
    path.write_text(page, encoding="utf-8")
    print(f"{len(records)}-dialogue J1 page: built in {built:.2f} s, {len(page.encode()) / 1e6:.1f} MB")
    loads, opens, filters = [], [], []
    with headless_chromium() as driver:
        for _ in range(repeat):
            driver.get(path.as_uri())
            loads.append(
                driver.execute_script("var t = performance.timing; return t.loadEventEnd - t.navigationStart;") / 1000
            )
            opens.append(
                driver.execute_script(
                    "var t0 = performance.now(); location.hash = 'view'; window.dispatchEvent(new HashChangeEvent("
                    "'hashchange')); return performance.now() - t0;"
                )
                / 1000
            )
            filters.append(
                driver.execute_script(
                    "var s = document.getElementById('f-score'), t0 = performance.now(); s.value = '100';"
                    "s.dispatchEvent(new Event('change')); var n = document.querySelectorAll('#dlist li').length;"
                    "return [performance.now() - t0, n];"
                )[0]
                / 1000
            )
            assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    med = statistics.median
    print(
        f"  in headless Chromium (median of {repeat}): load {med(loads):.2f} s, open viewer {med(opens):.3f} s, "
        f"filter {med(filters):.3f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dialogues", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jurisflow-html-") as tmp:
        if (ROOT / "data" / "j1" / "runs").is_dir():
            whole_report(Path(tmp))
        big_page(Path(tmp), args.dialogues, args.repeat)


if __name__ == "__main__":
    main()
