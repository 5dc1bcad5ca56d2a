"""The docs site as a reader sees it: the TUI pictures are a real run, and tables fit the page.

docs/gen_screenshots.py compiles examples/matmul/05_wgmma_tma.cu and writes what Textual's own
screenshot makes of the app; a change to the TUI or the compiler that changes the picture
fails here until the script (or `pytest --update-goldens`) writes it again. The tables are
measured in headless Chromium on the built site (skipped where there is no Chromium).
"""

from __future__ import annotations

import html
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.goldens import Goldens

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "docs" / "gen_screenshots.py"


def _script() -> object:
    spec = importlib.util.spec_from_file_location("gen_screenshots", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_tui_page_shows_each_screenshot() -> None:
    page = (ROOT / "docs" / "tui.md").read_text(encoding="utf-8")
    for name, *_ in _script().SHOTS:  # type: ignore[attr-defined]
        assert f"img/{name}" in page


@pytest.mark.compile
def test_the_screenshots_are_what_the_app_draws_now(golden: Goldens) -> None:
    made = _script().screenshots()  # type: ignore[attr-defined]
    for name, svg in made.items():
        assert "05_wgmma_tma.cu" in svg and "matmul_wgmma_tma" in svg
        golden.check(ROOT / "docs" / "img" / name, svg)


# Appended to a built page: each table's width against its column's, printed into the page.
MEASURE = """<script>(function(){const out=[];
document.querySelectorAll('.md-content table:not([class])').forEach((t)=>{
  const page=t.closest('[data-page]').dataset.page;
  const head=t.rows[0].innerText.replace(/\\s+/g,' ');
  out.push(page+' '+t.scrollWidth+' '+t.parentElement.clientWidth+' '+head);});
const pre=document.createElement('pre');pre.id='measure';pre.textContent=out.join('\\n');
document.body.prepend(pre);})();</script>"""

ARTICLE = re.compile(r'(<article class="md-content__inner md-typeset">)(.*?)(</article>)', re.S)


def _all_in_one(pages: list[Path]) -> Path:
    """The first page with every page's article in its text column, each marked by its name:
    the column is the theme's, the same on every gallery page, so one Chromium run per width
    measures them all (a run per page and width took ~58 s of a busy machine, these two ~20 s;
    the widths measured are the same, except that a page this long has a scrollbar, which
    makes the column 15 px narrower than a short page's: stricter, never looser)."""
    bodies = [ARTICLE.search(p.read_text(encoding="utf-8")) for p in pages]
    inner = "".join(
        f'<div data-page="{p.name}">{found.group(2)}</div>'
        for p, found in zip(pages, bodies, strict=True)
        if found is not None
    )
    assert inner.count("data-page") == len(pages), "a page has no article"
    first = pages[0].read_text(encoding="utf-8")
    merged = ARTICLE.sub(lambda m: m.group(1) + inner + m.group(3), first)
    out = pages[0].with_name("all-measured.html")
    out.write_text(merged.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    return out


def _chromium() -> str | None:
    return next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p),
        None,
    )


def _table_widths(browser: str, page: Path, width: int) -> list[tuple[str, int, int, str]]:
    dom = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", f"--window-size={width},1000",
         "--virtual-time-budget=2000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    found = re.search(r'<pre id="measure">(.*?)</pre>', dom, re.S)
    assert found is not None, "the measuring script did not run"
    rows = [line.split(" ", 3) for line in html.unescape(found.group(1)).splitlines()]
    return [(name, int(a), int(b), head) for name, a, b, head in rows]


@pytest.mark.compile
def test_the_gallery_tables_fit_the_page(tmp_path: Path) -> None:
    browser = _chromium()
    if browser is None or importlib.util.find_spec("mkdocs") is None:
        pytest.skip("needs Chromium and mkdocs")
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site)],
        cwd=ROOT, check=True, timeout=600,
    )  # fmt: skip
    pages = sorted((site / "gallery").glob("*.html"))
    assert len(pages) >= 6
    merged = _all_in_one(pages)
    for width in (1280, 800):  # a laptop, and a half-screen window
        measured = _table_widths(browser, merged, width)
        assert len(measured) == merged.read_text(encoding="utf-8").count("<table>")  # all
        for name, table, column, head in measured:
            assert table <= column, f"{name} at {width} px: {head!r} is {table} px wide"
