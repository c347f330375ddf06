"""The report's pages: one per benchmark (its result tables in CSV order, ours above the paper's rows, and bar
charts), a transcript viewer on the dialogue benchmarks' pages, and an index. Everything is inlined.

The pages are the registrations' (steps/<benchmark>/benchmark.py: `title`, `dialogues`), and so is their optional
presentation (`page`: table titles and order, charts, the paper models drawn in charts, cell links): a benchmark
without it gets its CSV tables in order under their own names, and no charts."""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape
from importlib import resources
from urllib.parse import quote

import pandas as pd

from steps.benchmarks import benchmark, benchmarks
from steps.registry import resolve
from steps.reports.html.dialogues import Record, to_json
from steps.reports.html.svg import bar_chart
from steps.reports.html.tables import Link, html_table, intervals, series
from steps.reports.labels import twin_labels

PAGES = {"index": "Overview", **{name: b.title for name, b in benchmarks().items()}, "judges": "Judges"}
WIDE = 8  # a table with more scopes than this is split into one table per metric


def asset(name: str) -> str:
    return resources.files("steps.reports.html").joinpath("assets", name).read_text(encoding="utf-8")


def _labels(df: pd.DataFrame, table: str) -> dict[str, str]:
    """agent -> its label in `table` of the twin (`twin_labels`: as every other output labels it)."""
    return {a: text for (t, a), text in twin_labels(df).items() if t == table}


def _tables(df: pd.DataFrame, bench: str, link: Link | None) -> str:
    out = []
    presented = benchmark(bench).page
    order, titles = list(presented.table_order), dict(presented.titles)
    groups = sorted(df.groupby("table", sort=False), key=lambda g: order.index(g[0]) if g[0] in order else len(order))
    for table, rows in groups:
        title = titles.get(table, f"{table}")
        labels = _labels(df, str(table))
        scopes = list(dict.fromkeys(rows.scope.fillna("")))
        out.append(f'<h2 id="t-{escape(str(table))}">{escape(title)}</h2>')
        if len(scopes) > WIDE:
            metrics = list(dict.fromkeys(rows.metric.fillna("")))
            primary = presented.primary
            metrics.sort(key=lambda m: m != primary)
            for i, metric in enumerate(metrics):
                body = html_table(rows[rows.metric == metric], link=link, caption=metric, labels=labels)
                body = f'<div class="scroll">{body}</div>'
                out.append(body if i == 0 else f"<details><summary>{escape(metric)}</summary>{body}</details>")
        else:
            out.append(f'<div class="scroll">{html_table(rows, link=link, labels=labels)}</div>')
    return "".join(out)


def _chart(
    df: pd.DataFrame,
    bench: str,
    title: str,
    table: str,
    categories: list[str],
    key: Callable[[object], str],
    **filters: str,
) -> str:
    rows = df[df.table == table]
    for column, value in filters.items():
        rows = rows[rows[column] == value]
    paper = [a for a in benchmark(bench).page.paper_in_plots if a in set(rows[rows.source == "paper"].agent)]
    labels = _labels(df, table)
    data = series(rows, categories, key, paper_agents=paper, labels=labels)
    if not data or not categories:
        return ""
    errors = intervals(rows, categories, key, labels=labels)
    return bar_chart(title, categories, data, paper=frozenset(f"{a} (paper)" for a in paper), errors=errors)


def charts(bench: str, df: pd.DataFrame) -> str:
    """The page's plots, drawn from the same long table as its result tables (its registration's `page.charts`)."""
    hook = benchmark(bench).page.charts

    def chart(title: str, table: str, categories: list[str], key: Callable[[object], str], **filters: str) -> str:
        return _chart(df, bench, title, table, categories, key, **filters)

    out: list[str] = resolve(hook)(df, chart) if hook else []
    return f'<div class="charts">{"".join(c for c in out if c)}</div>'


def link_for(bench: str, records: list[Record]) -> Link | None:
    """Table cells of ours link to the dialogues behind them (the viewer, filtered by agent and environment)."""
    if not records:
        return None
    agents = {r["agent"] for r in records}
    envs = {r["env"] for r in records}

    def href(agent: str, env: str = "") -> str:
        return "#view?agent=" + quote(agent) + (f"&env={quote(env)}" if env else "")

    hook = benchmark(bench).page.link
    cell = resolve(hook) if hook else None

    def link(agent: str, scope: str, metric: str) -> str | None:
        if agent not in agents:
            return None
        if cell is not None:
            return cell(href, envs, agent, scope, metric)
        return href(agent, scope) if scope in envs else None

    return link


def viewer(records: list[Record]) -> str:
    return (
        f'<h2 id="transcripts">Transcripts ({len(records)} dialogues)</h2>'
        '<p class="note">Open a dialogue from the list, or from a linked table cell. Each turn shows speaker → '
        "addressee, the stage and the model; the scores with the judge's reasons or evidence are above the turns.</p>"
        '<p><a href="#view" id="open-viewer">Open the transcript viewer</a></p>'
        '<section id="viewer" hidden><div id="filters">'
        '<label>agent <select id="f-agent"><option value="">all</option></select></label>'
        '<label>environment <select id="f-env"><option value="">all</option></select></label>'
        '<label>score <select id="f-score"><option value="">all</option><option value="0">0</option>'
        '<option value="0-50">0–50</option><option value="50-100">50–100</option><option value="100">100</option>'
        '<option value="none">unscored</option></select></label>'
        '<label>ended by <select id="f-end"><option value="">all</option></select></label>'
        '<label>id <input id="f-text" type="search" size="18"></label> <span id="dcount"></span></div>'
        '<ul id="dlist"></ul><div id="dview"><p class="note">Choose a dialogue.</p></div></section>'
        f'<script type="application/json" id="dialogue-data">{to_json(records)}</script>'
    )


def page(name: str, body: str, note: str = "", *, scripts: bool = False) -> str:
    nav = "".join(
        f'<a href="{key}.html"{" class=current" if key == name else ""}>{escape(title)}</a>'
        for key, title in PAGES.items()
    )
    script = f"<script>{asset('viewer.js')}</script>" if scripts else ""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>jurisflow · {escape(PAGES[name])}</title><style>{asset('report.css')}</style>{script}</head>"
        f"<body><header><nav>{nav}</nav></header><main><h1>{escape(PAGES[name])}</h1>"
        f'<p class="note">{note}</p>{body}</main></body></html>\n'
    )


NOTE = (
    "Built from <code>reports/{bench}.csv</code> (the Markdown twin is <code>reports/{md}</code>). Rows "
    "marked ↳ … (paper) are the paper's numbers, under ours. [scripted] after an agent: a scripted stand-in (the "
    "agent, or the environment, judge or reference model those numbers use) touched its numbers in that table, "
    "a bound check of the pipeline, not a measurement; [limit N]: its run had only the first N items; then "
    "[paper protocol] or how the run differs from the paper's setting (roles, settings, data size). † marks a "
    "number of ours from scripted models or the proxy judge. Hover a cell for its n."
)


def ordered(df: pd.DataFrame, bench: str, agents: list[str]) -> pd.DataFrame:
    """Our agents in params.yaml order (then any others), the paper's rows after them; the scopes in the order the
    registration's `page.scope_order` gives (J1's environments in the paper's order: KQ, LC, CD, DD, CI, CR,
    overall). Stable: otherwise the CSV order."""
    rank = {a: i for i, a in enumerate(agents)}
    hook = benchmark(bench).page.scope_order
    env = {e: i for i, e in enumerate(resolve(hook)())} if hook else None
    keys = pd.DataFrame(
        {
            "source": (df.source != "ours").astype(int),
            "agent": [rank.get(a, len(rank)) if s == "ours" else 0 for a, s in zip(df.agent, df.source, strict=True)],
            "scope": [env.get(s, len(env)) if env is not None else 0 for s in df.scope],
        },
        index=df.index,
    )
    return df.loc[keys.sort_values(["source", "agent", "scope"], kind="stable").index]


PERCENT = " The {tables} tables are × 100 here (the CSV holds fractions), as in the Markdown twin and the paper."


def percent(df: pd.DataFrame, bench: str) -> pd.DataFrame:
    """The rows of the registration's `page.percent` tables × 100 (fractions shown as the paper shows them)."""
    tables = benchmark(bench).page.percent
    if not tables:
        return df
    scaled = df.table.isin(tables)
    out = df.assign(value=df.value.where(~scaled, df.value * 100))
    for column in ("ci_low", "ci_high"):  # the intervals on the same scale
        if column in out:
            values = pd.to_numeric(out[column], errors="coerce")
            out[column] = values.where(~scaled, values * 100)
    return out


_STRONG, _CODE = re.compile(r"\*\*(.+?)\*\*"), re.compile(r"`([^`]+)`")


def inline_markdown(text: str) -> str:
    """One Markdown paragraph as HTML: escaped, with its **bold** and `code` spans."""
    return _CODE.sub(r"<code>\1</code>", _STRONG.sub(r"<strong>\1</strong>", escape(text)))


def markdown_name(bench: str) -> str:
    """The benchmark's Markdown twin under reports/ (its page's `markdown`, else <benchmark>.md)."""
    return benchmark(bench).page.markdown or f"{bench}.md"


def preface(bench: str, markdown: str | None) -> str:
    """The page's preface paragraph (its registration's `page.preface`, from the Markdown twin's text), as HTML."""
    hook = benchmark(bench).page.preface
    paragraph = resolve(hook)(markdown) if hook and markdown is not None else None
    return f'<p class="preface">{inline_markdown(paragraph)}</p>' if paragraph else ""


def benchmark_page(
    bench: str,
    df: pd.DataFrame,
    records: list[Record] | None = None,
    agents: list[str] | None = None,
    markdown: str | None = None,
) -> str:
    """The benchmark's page; `markdown`: its Markdown twin's text, for a registration with a `page.preface`."""
    df = percent(ordered(df, bench, agents or []), bench)
    presented = benchmark(bench).page
    md = markdown_name(bench)
    body = preface(bench, markdown) + charts(bench, df) + _tables(df, bench, link_for(bench, records or []))
    if records is not None:
        body += viewer(records)
    note = NOTE.format(bench=bench, md=md)
    if presented.percent:
        note += PERCENT.format(tables=", ".join(f"<code>{escape(t)}</code>" for t in presented.percent))
    return page(bench, body, note, scripts=records is not None)


def leaderboard_table(board: pd.DataFrame) -> str:
    """The overview's leaderboard (`steps.results.leaderboard`'s text cells: agent, source, a column per headline
    number): our agents first, each cell its number ± half the 95 % interval with its rank (`#1`), then the papers'
    models, greyed (named `<model> (paper)`)."""
    columns = [c for c in board.columns if c not in ("agent", "source")]
    head = "".join(f"<th>{escape(str(c))}</th>" for c in columns)
    out = [f'<table class="results leaderboard"><thead><tr><th>agent</th>{head}</tr></thead><tbody>']
    for row in board.itertuples(index=False):
        record = dict(zip(board.columns, row, strict=True))
        paper = record["source"] == "paper"
        name = escape(str(record["agent"]))  # the papers' rows are already named `<model> (paper)`
        cells = "".join(f"<td>{escape(str(record[c]))}</td>" for c in columns)
        cls = ' class="paper"' if paper else ""
        out.append(f"<tr{cls}><th>{name}</th>{cells}</tr>")
    out.append("</tbody></table>")
    return "".join(out)


PROTOCOL_NOTE = "Protocol (paper protocol, or how each run differs from the paper's):"
LEADERBOARD_NOTE = (
    "Each benchmark's headline numbers on 0–100: ours with ± half the 95 % interval (docs/statistics.md) and the "
    "items it averages (n), the papers' models below as their papers printed them (no interval unless the paper "
    "printed one). {ranks}"
)


def index_page(
    counts: dict[str, tuple[int, int]],
    board: pd.DataFrame | None = None,
    notes: list[str] | None = None,
    ranks_note: str = "",
) -> str:
    """The overview: the leaderboard (`board`, `leaderboard_table`; `notes`: the protocol of each benchmark's
    numbers; `ranks_note`: how the ranks were made), then each benchmark page with its result rows and dialogues."""
    rows = "".join(
        f'<tr><th><a href="{b}.html">{escape(PAGES[b])}</a></th><td>{n}</td><td>{d}</td></tr>'
        for b, (n, d) in counts.items()
    )
    body = ""
    if board is not None and not board.empty:
        body += '<h2 id="leaderboard">Leaderboard</h2>'
        body += f'<p class="preface">{escape(LEADERBOARD_NOTE.format(ranks=ranks_note))}</p>'
        body += f'<div class="scroll">{leaderboard_table(board)}</div>'
        if notes:
            items = "".join(f"<li>{escape(line)}</li>" for line in notes)
            body += f'<p>{escape(PROTOCOL_NOTE)}</p><ul class="protocol">{items}</ul>'
        body += '<h2 id="pages">Pages</h2>'
    body += (
        '<table class="results"><thead><tr><th>benchmark</th><th>result rows</th><th>dialogues</th></tr>'
        f"</thead><tbody>{rows}</tbody></table>"
    )
    return page(
        "index",
        body,
        "The results of the last <code>dvc repro</code>, one page per benchmark. "
        "Opens from disk: no server, no network.",
    )
