"""How fast and small the HTML report is: (1) the whole report of the current run (reports/*.csv and data/) is
built as the `html_report` stage builds it, timed, and weighed; (2) a J1 page with synthetic dialogues (500 by
default) is built. Each J1 page is opened in headless Chromium (Debian's chromium + chromium-driver), timing the
page load, the first opening of the transcript viewer (parsing the embedded JSON, listing every dialogue) and a
filter change; then the same page with its dialogues moved to a side script that the viewer loads on first
opening (`<script src>`, the one way a page opened from file:// can load a local file; fetch is refused), the
alternative the report does not take, for comparison.

    .venv/bin/python perf/html_report.py [--dialogues 500] [--repeat 3]

Prints measurements; asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from flows.kit.config import load_params  # noqa: E402
from flows.kit.paths import DIALOGUES, Paths  # noqa: E402
from steps.benchmarks import benchmark, names  # noqa: E402
from steps.j1.page import dialogue_records as j1_records  # noqa: E402
from steps.reports.html.pages import benchmark_page, index_page  # noqa: E402
from steps.reports.stages import load_dialogues, read_long  # noqa: E402
from tests.browser import headless_chromium  # noqa: E402
from tests.html_data import j1_frames  # noqa: E402

DATA = re.compile(r'(<script type="application/json" id="dialogue-data">)(.*?)(</script>)', re.S)
LOAD = "var t = performance.timing; return (t.loadEventEnd - t.navigationStart) / 1000;"
OPEN = "location.hash = 'view'; window.dispatchEvent(new HashChangeEvent('hashchange'));"
OPEN_EMBEDDED = f"var t0 = performance.now(); {OPEN} return (performance.now() - t0) / 1000;"
OPEN_SIDE = (  # load the side script, then open the viewer (its JSON.parse reads the script's global instead)
    "var done = arguments[arguments.length - 1], t0 = performance.now(), s = document.createElement('script');"
    f"s.src = 'side.js'; s.onload = function () {{ {OPEN} done((performance.now() - t0) / 1000); }};"
    "document.head.appendChild(s);"
)
FIGURES: list[tuple[str, str]] = []  # what --record appends: (figure, value)
FILTER = (
    "var s = document.getElementById('f-score'), t0 = performance.now(); s.value = '100';"
    "s.dispatchEvent(new Event('change')); return (performance.now() - t0) / 1000;"
)


def whole_report(out: Path) -> Path:
    params = load_params(ROOT / "params.yaml")
    start, counts = time.perf_counter(), {}
    for bench in names():
        df = read_long(ROOT / "reports" / f"{bench}.csv")
        records = (
            load_dialogues(bench, params.agents, Paths(data=ROOT / "data")) if benchmark(bench).dialogues else None
        )
        (out / f"{bench}.html").write_text(benchmark_page(bench, df, records, list(params.agents)), encoding="utf-8")
        counts[bench] = (len(df), len(records or []))
    (out / "index.html").write_text(index_page(counts), encoding="utf-8")
    took = time.perf_counter() - start
    size = sum(p.stat().st_size for p in out.glob("*.html"))
    n = sum(d for _, d in counts.values())
    print(f"whole report (current run): {took:.1f} s to build, {size / 1e6:.1f} MB, {n:,} dialogues")
    FIGURES.append(
        ("the whole report of the current run", f"built in {took:.1f} s; {size / 1e6:.1f} MB, {n:,} dialogues")
    )
    return out / "j1.html"


def big_page(out: Path, n: int) -> Path:
    records = []
    for agent in ("oracle", "null"):
        records += j1_records(*j1_frames(n // 2, agent=agent))
    start = time.perf_counter()
    page = benchmark_page("j1", read_long(ROOT / "reports" / "j1.csv"), records, ["oracle", "null"])
    built = time.perf_counter() - start
    path = out / "j1_big.html"
    path.write_text(page, encoding="utf-8")
    print(f"{len(records)}-dialogue J1 page: built in {built:.2f} s, {len(page.encode()) / 1e6:.1f} MB")
    FIGURES.append((f"a J1 page of {len(records):,} synthetic dialogues", f"built in {built:.2f} s"))
    return path


def side_variant(path: Path) -> Path:
    """The page with an empty data element and its dialogues in side.js beside it, read on first opening."""
    page = path.read_text(encoding="utf-8")
    data = DATA.search(page)
    assert data, f"{path}: no dialogue data"
    (path.parent / "side.js").write_text(f"window.SIDE_DATA = {data.group(2)};", encoding="utf-8")
    page = DATA.sub(r"\1\3", page).replace('JSON.parse(el("dialogue-data").textContent)', "window.SIDE_DATA")
    variant = path.with_name(f"{path.stem}_side.html")
    variant.write_text(page, encoding="utf-8")
    return variant


def in_browser(path: Path, repeat: int) -> str:
    """Load, open the viewer, filter (medians), as built and with a side script; the same as one line."""
    med = statistics.median
    side = side_variant(path)
    summary = []
    with headless_chromium() as driver:
        driver.set_script_timeout(120)
        for label, page, opener in (("embedded", path, OPEN_EMBEDDED), ("side script", side, OPEN_SIDE)):
            loads, opens, filters = [], [], []
            for _ in range(repeat):
                driver.get(page.as_uri())
                loads.append(driver.execute_script(LOAD))
                run = driver.execute_script if opener is OPEN_EMBEDDED else driver.execute_async_script
                opens.append(run(opener))
                filters.append(driver.execute_script(FILTER))
                assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
            print(
                f"  {label:<12} ({page.stat().st_size / 1e6:.2f} MB page, median of {repeat}): load "
                f"{med(loads):.2f} s, open viewer {med(opens):.3f} s, filter {med(filters):.3f} s"
            )
            summary.append(
                f"{label} ({page.stat().st_size / 1e6:.2f} MB): loads in {med(loads):.2f} s, "
                f"viewer {med(opens):.3f} s, filter {med(filters):.3f} s"
            )
    return "; ".join(summary)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dialogues", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3)
    from record import add_flag, record

    add_flag(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jurisflow-html-") as tmp:
        if any(Paths(data=ROOT / "data").runs("j1").glob(f"*/{DIALOGUES}")):  # the current run's J1 page has dialogues
            whole = Path(tmp) / "whole"
            whole.mkdir()
            FIGURES.append(("the current run's J1 page in Chromium", in_browser(whole_report(whole), args.repeat)))
        big = Path(tmp) / "big"
        big.mkdir()
        page = big_page(big, args.dialogues)
        FIGURES.append((f"{FIGURES[-1][0]} in Chromium", in_browser(page, args.repeat)))
    if args.record:
        record("HTML report", FIGURES)


if __name__ == "__main__":
    main()
