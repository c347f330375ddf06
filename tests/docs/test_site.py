"""The documentation site builds with `mkdocs build --strict`: every page in the nav, every link and anchor resolving,
nothing loaded from a network. And the strict build does fail on a broken link or anchor."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT


def build(docs: Path, tmp: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    """`make docs` (the Makefile's own recipe, with this environment's executables) in a copy of mkdocs.yml and the
    docs folder `docs` under `tmp`; the result and the built site."""
    shutil.copy(ROOT / "mkdocs.yml", tmp / "mkdocs.yml")
    shutil.copytree(docs, tmp / "docs")
    stamp = ".venv/.installed"  # the install step: taken as done (-o), the copy has no .venv of its own
    done = subprocess.run(
        [
            "make",
            "-f",
            str(ROOT / "Makefile"),
            "-C",
            str(tmp),
            "-o",
            stamp,
            "docs",
            f"BIN={Path(sys.executable).parent}",
        ],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("MAKE")},
        timeout=300,
    )
    return done, tmp / "site"


def nav_pages(nav: list) -> list[str]:
    """Every Markdown file the nav lists."""
    pages = []
    for entry in nav:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            pages += nav_pages(value) if isinstance(value, list) else [value]
    return pages


def _config() -> dict:
    # mkdocs.yml holds a python tag (the toc's slugify), which safe_load refuses; read the nav only
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    return yaml.safe_load(text[text.index("\nnav:") :])


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    done, site = build(ROOT / "docs", tmp_path_factory.mktemp("docs"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "--strict" in done.stdout  # the recipe make ran
    return site


def test_every_page_of_the_nav_is_built(built):
    pages = nav_pages(_config()["nav"])
    assert "index.md" in pages and "performance.md" in pages
    for page in pages:
        assert (ROOT / "docs" / page).exists(), page
        assert (built / page.replace(".md", ".html")).exists(), page
    listed = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert listed == set(pages), "every page under docs/ is in the nav of mkdocs.yml"


def test_the_site_loads_nothing_from_a_network(built):
    """No script, stylesheet, font or image from another host: the site works offline, opened from disk."""
    loads = re.compile(r"<(?:script|img|link|iframe)\b[^>]*\b(?:src|href)=\"(https?:)?//[^\"]*\"")
    for page in built.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        found = [m.group(0) for m in loads.finditer(text) if 'rel="canonical"' not in m.group(0)]
        assert found == [], f"{page.relative_to(built)} loads {found}"


def test_the_architecture_picture_is_in_the_site(built):
    page = (built / "architecture.html").read_text(encoding="utf-8")
    assert 'src="images/packages.svg"' in page
    assert (built / "images" / "packages.svg").read_text(encoding="utf-8").startswith("<svg")


@pytest.mark.parametrize(
    ("link", "complaint"),
    [
        ("[the models](models.md#no-such-heading)", "does not contain an anchor '#no-such-heading'"),
        ("[gone](no-such-page.md)", "no-such-page.md"),
        ("[here](#nowhere)", "'#nowhere'"),
    ],
)
def test_a_broken_link_fails_the_build(tmp_path, link, complaint):
    """`make docs` of the docs with one broken link added: it fails and names the link."""
    docs = tmp_path / "source"
    shutil.copytree(ROOT / "docs", docs)
    page = docs / "evaluate.md"
    page.write_text(page.read_text(encoding="utf-8") + f"\nSee {link}.\n", encoding="utf-8")
    build_dir = tmp_path / "build"
    build_dir.mkdir()
    done, _ = build(docs, build_dir)
    assert done.returncode != 0
    assert complaint in done.stdout + done.stderr
    assert "Aborted with 1 warnings in strict mode" in done.stdout + done.stderr
