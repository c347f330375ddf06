"""The judge audit's page (reports/html/judges.html): reports/judges.md as HTML, its sections, paragraphs and every
table of it, whatever tables the audit holds (`steps.reports.judges`), so that page and Markdown never differ."""

from __future__ import annotations

from html import escape

from steps.reports.html.pages import inline_markdown

MISSING = "<p>No judge audit yet: stage <code>judges_report</code> writes reports/judges.md.</p>"


def _row(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _table(lines: list[str]) -> str:
    """A Markdown pipe table (header, rule, rows) as a results table; the first column left-aligned (CSS)."""
    head = "".join(f"<th>{inline_markdown(c)}</th>" for c in _row(lines[0]))
    body = "".join(
        "<tr>" + "".join(f"<td>{inline_markdown(c)}</td>" for c in _row(line)) + "</tr>" for line in lines[2:]
    )
    return f'<table class="results"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def markdown_body(text: str) -> str:
    """The audit's Markdown as HTML: `## ` headings, paragraphs (consecutive lines) and pipe tables; the `# ` title is
    left out (the page has its own)."""
    out: list[str] = []
    block: list[str] = []

    def flush() -> None:
        if not block:
            return
        if block[0].startswith("|") and len(block) >= 2:
            out.append(_table(block))
        else:
            out.append(f"<p>{inline_markdown(' '.join(block))}</p>")
        block.clear()

    for line in text.splitlines():
        if not line.strip() or line.startswith("# "):
            flush()
        elif line.startswith("## "):
            flush()
            out.append(f"<h2>{escape(line[3:].strip())}</h2>")
        elif block and block[0].startswith("|") != line.startswith("|"):
            flush()
            block.append(line)
        else:
            block.append(line)
    flush()
    return "".join(out)


def judges_page(markdown: str | None) -> str:
    """reports/html/judges.html from the text of reports/judges.md (None: not written yet)."""
    from steps.reports.html.pages import page

    body = MISSING if markdown is None else markdown_body(markdown)
    note = "Built from <code>reports/judges.md</code> (the tables' CSV twins: <code>reports/judges.csv</code>, "
    note += "<code>reports/judge_probes.csv</code>)."
    return page("judges", body, note)
