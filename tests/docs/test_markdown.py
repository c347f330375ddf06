"""The Markdown a reader opens is well-formed: every code fence closed, every internal link resolving."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _tracked_markdown() -> list[Path]:
    """Every Markdown file git tracks or would track (new files too, ignored ones not)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.md"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return [ROOT / p for p in listed.stdout.split() if (ROOT / p).exists()]


def fence_problems(text: str) -> list[str]:
    """Fences opened and never closed (a closing fence repeats the opening character and has no info string),
    and fences with a language inside an open block: the sign of a missing close that swallows what follows."""
    problems, opened = [], None
    for number, line in enumerate(text.split("\n"), start=1):
        match = FENCE.match(line)
        if not match:
            continue
        marker, info = match.groups()
        if opened is None:
            opened = (number, marker)
        elif marker[0] == opened[1][0] and len(marker) >= len(opened[1]) and not info.strip():
            opened = None
        elif info.strip():
            problems.append(f"fence opened at line {opened[0]} holds an opening fence at line {number}")
    if opened is not None:
        problems.append(f"fence opened at line {opened[0]} is never closed")
    return problems


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\*", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _outside_code(text: str) -> str:
    """The text with fenced code blocks removed."""
    kept, opened = [], None
    for line in text.split("\n"):
        match = FENCE.match(line)
        if match:
            opened = None if opened and match.group(1)[0] == opened else (opened or match.group(1)[0])
            continue
        if opened is None:
            kept.append(line)
    return "\n".join(kept)


def link_problems(path: Path) -> list[str]:
    text = _outside_code(path.read_text(encoding="utf-8"))
    anchors = {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.*)$", text, flags=re.M)}
    problems = []
    for target in LINK.findall(re.sub(r"`[^`\n]*`", "", text)):
        if re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        if file_part:
            resolved = (path.parent / file_part).resolve()
            if not resolved.exists():
                problems.append(f"{target}: no such file")
            elif anchor and resolved.suffix == ".md":
                body = _outside_code(resolved.read_text(encoding="utf-8"))
                if anchor not in {slug(h) for h in re.findall(r"^#{1,6}\s+(.*)$", body, flags=re.M)}:
                    problems.append(f"{target}: no such heading")
        elif anchor not in anchors:
            problems.append(f"#{anchor}: no such heading")
    return problems


@pytest.mark.parametrize("path", _tracked_markdown(), ids=lambda p: str(p.relative_to(ROOT)))
def test_fences_are_closed_and_links_resolve(path):
    text = path.read_text(encoding="utf-8")
    assert fence_problems(text) + link_problems(path) == []


def test_the_readme_is_a_manual():
    """README.md stays a user's manual: at most 250 lines, no dated measurements, no commit hashes (those live in
    docs/performance.md and CHANGELOG.md), and it leads to the documentation."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    assert (
        re.findall(r"(?<![-\w])20\d\d-\d\d-\d\d\b", text) == []
    )  # a model id's date (gpt-4o-2024-11-20) is no measurement
    assert re.findall(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b", text) == []
    for page in ("docs/evaluate.md", "docs/models.md", "docs/results.md", "docs/sharing.md", "docs/architecture.md"):
        assert f"]({page})" in text, page


def test_the_checks_catch_what_they_are_for(tmp_path):
    assert fence_problems("```bash\nx\n\n## Next\n") == ["fence opened at line 1 is never closed"]
    assert fence_problems("````\n```\n````\n") == []
    swallowed = "```bash\nx\n## Next\n```yaml\na: 1\n```\n"
    assert fence_problems(swallowed) == ["fence opened at line 1 holds an opening fence at line 4"]
    doc = tmp_path / "a.md"
    doc.write_text(
        "# Hello, world!\n[ok](#hello-world) [bad](#nope) [f](missing.md) [x](https://x.org)\n", encoding="utf-8"
    )
    assert link_problems(doc) == ["#nope: no such heading", "missing.md: no such file"]
    assert slug("J1-EVAL: the ten metrics, the judges and the paper's tables") == (
        "j1-eval-the-ten-metrics-the-judges-and-the-papers-tables"
    )
    assert slug("MILE / MASER: interactive complaint drafting") == "mile--maser-interactive-complaint-drafting"
