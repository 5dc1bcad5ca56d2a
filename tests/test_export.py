"""`sassview export`: golden files per format, the JSON schema, atomic and contained writes,
escaping, and the HTML page's hover highlighting in headless Chromium.

Goldens are made from a recorded corpus cubin with the source, PTX and ptxas log recorded next
to it, so no compiler runs. Rewrite them with `pytest tests/test_export.py --update-goldens`
(tests/helpers/goldens.py: that run fails, listing what it wrote) and read the diff.
"""

from __future__ import annotations

import dataclasses
import html
import json
import os
import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from conftest import CORPUS, corpus_dirs, corpus_id
from helpers.goldens import Goldens

import sassview
from sassview.export import FORMATS, ExportError, export, file_stem, render
from sassview.export.model import build_view
from sassview.export.writer import safe_part, unique_names
from sassview.inspection import Inspection
from sassview.ir import Artifacts

GOLDEN = Path(__file__).parent / "data" / "export"
EXAMPLE = Path(__file__).parents[1] / "examples" / "vecadd.cu"


@cache
def tiled() -> Inspection:
    """tiled_sum on sm_90a as a compile would have left it: cubin, PTX, source, ptxas log."""
    d = CORPUS / "tiled" / "sm_90a"
    meta = json.loads((d / "meta.json").read_text())
    cubin = (d / "kernel.cubin").read_bytes()
    bare = sassview.load(d / "kernel.cubin")[0]
    # The path the line table recorded (on the machine that made the corpus).
    recorded = next(iter(bare.kernels[0].correspondence.sass_source.values())).file
    artifacts = Artifacts(
        kind="cuda",
        arch=meta["arch"],
        source_path=recorded,
        source_text=(CORPUS / meta["source"]).read_text(),
        ptx=(d / "kernel.ptx").read_text(),
        cubin=cubin,
        compile_log=(d / "compile.log").read_text(),
        options=tuple(meta["options"]),
        toolchain=meta["tools"],
    )
    (insp,) = sassview.analyze(sassview.from_artifacts(artifacts))
    return insp


@cache
def flagged_kernel() -> Inspection:
    """A kernel with notes and warnings to annotate (tiled_sum has none since its coalesced
    32-bit accesses no longer get a narrow-access note): the naive GEMM of the coalescing
    tests, uncoalesced loads in a loop and a store, from its recorded cubin, PTX and source."""
    from analyses_data import rec

    (insp,) = sassview.analyze(rec.recorded_program("coalescing", "sm_90a"), "naive_gemm")
    return insp


@cache
def nested() -> Inspection:
    """A kernel with a loop inside a loop (for the graph drawings' clusters)."""
    prog = sassview.load(Path(__file__).parent / "data" / "graph" / "loops.sm_90a.cubin")[0]
    (insp,) = sassview.analyze(prog, "nested")
    return insp


# ---- goldens ----


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_golden(fmt: str, golden: Goldens) -> None:
    text = render(tiled(), fmt, read_files=False)
    golden.check(GOLDEN / f"{file_stem(tiled())}.{FORMATS[fmt]}", text)


@pytest.mark.parametrize("fmt", ["dot", "mermaid"])
def test_golden_nested_loops_draw_as_nested_clusters(fmt: str, golden: Goldens) -> None:
    text = render(nested(), fmt, read_files=False)
    golden.check(GOLDEN / f"nested.{FORMATS[fmt]}", text)
    if fmt == "dot":
        inner = text.index("subgraph cluster_loop1")
        assert text.index("subgraph cluster_loop0") < inner < text.rindex("}")
    else:
        assert re.search(r"subgraph L0\[.*\n(?:.*\n)*?\s+subgraph L1\[", text)
        assert "==>|back|" in text


def test_goldens_hold_no_path_of_this_machine() -> None:
    here = str(Path(__file__).resolve().parents[1])
    for path in GOLDEN.iterdir():
        text = path.read_text(encoding="utf-8")
        assert here not in text, path
        assert "/work/" not in text and "/home/" not in text and "/tmp/" not in text, path


def test_golden_markdown_annotates_findings_and_highlights_flagged_instructions() -> None:
    from pygments.token import Comment, Error

    from sassview.lexers import NvPtxLexer, NvSassLexer

    view = build_view(flagged_kernel(), read_files=False)
    text = render(flagged_kernel(), "md", read_files=False)
    m = re.search(
        r'^``` \{ \.nvsass \.annotate hl_lines="([^"]*)" \}\n(.*?)\n```$', text, re.M | re.S
    )
    assert m, "no annotated SASS block"
    lines = m.group(2).split("\n")
    flagged = {f"/*{a:04x}*/" for a in view.flagged_addresses}
    numbers = [  # "15 75-76": hl_lines writes consecutive lines as a range
        n
        for x in m.group(1).split()
        for n in range(int(x.split("-")[0]), int(x.split("-")[-1]) + 1)
    ]
    assert {lines[n - 1].split()[0] for n in numbers} == flagged
    # Each finding with addresses has its marker, and Material finds markers only in the
    # comment tokens it scans (.c1); our interleaved source lines are Comment.Special (.cs).
    tokens = list(NvSassLexer().get_tokens(m.group(2)))
    markers = [v for t, v in tokens if re.search(r"\(\d+\)", v) and t is Comment.Single]
    want = sorted(f.number for f in view.findings if f.addresses)
    assert sorted(int(n) for v in markers for n in re.findall(r"\((\d+)\)", v)) == want
    assert all(t is Comment.Special for t, v in tokens if v.startswith("//##"))
    assert not [v for t, v in tokens if t in Error], "the SASS block must lex cleanly"
    ptx = re.search(r"^``` \{ \.nvptx[^\n]*\}\n(.*?)\n```$", text, re.M | re.S)
    assert ptx and not [v for t, v in NvPtxLexer().get_tokens(ptx.group(1)) if t in Error]
    # Material needs the numbered list right after the block: item N is annotation (N).
    after = text[m.end() :].lstrip("\n").split("\n")[: len(view.findings)]
    assert [line.split(".  ", 1)[0] for line in after] == [str(f.number) for f in view.findings]


# ---- JSON ----


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from sassview.export.json_graph import schema

    jsonschema.Draft202012Validator.check_schema(schema())
    assert schema()["$schema"].endswith("/draft/2020-12/schema")


@pytest.mark.parametrize("case", corpus_dirs(), ids=corpus_id)
def test_json_of_every_corpus_kernel_validates(case: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from sassview.export.json_graph import GRAPH_SCHEMA_VERSION, schema

    validator = jsonschema.Draft202012Validator(schema())
    for insp in sassview.analyze(sassview.load(case / "kernel.cubin")[0]):
        doc = json.loads(render(insp, "json", read_files=False))
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        assert not errors, f"{list(errors[0].path)}: {errors[0].message}"
        assert doc["schema_version"] == GRAPH_SCHEMA_VERSION
        assert len(doc["instructions"]) == len(insp.kernel.instructions)


def test_json_golden_validates_and_is_sorted() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from sassview.export.json_graph import schema

    text = render(tiled(), "json", read_files=False)
    doc = json.loads(text)
    jsonschema.validate(doc, schema())
    assert text == json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
    assert doc["kernel"]["resources"]["registers"] == tiled().kernel.resources.registers
    assert doc["source"]["file"] == "tiled.cu" and doc["ptx"]["text_kept"]


# ---- files: names, determinism, atomicity ----


def test_export_twice_gives_identical_bytes(tmp_path: Path) -> None:
    first = export([tiled(), nested()], tmp_path / "a", list(FORMATS), read_files=False)
    second = export([tiled(), nested()], tmp_path / "b", list(FORMATS), read_files=False)
    again = export([tiled(), nested()], tmp_path / "a", list(FORMATS), read_files=False)
    assert [p.name for p in first] == [p.name for p in second] == [p.name for p in again]
    assert len(first) == 2 * len(FORMATS)
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == sorted(p.name for p in first)


def test_names_are_label_arch_kernel(tmp_path: Path) -> None:
    assert file_stem(tiled()) == "tiled-sm_90a-tiled_sum"
    paths = export([tiled()], tmp_path, "md,mermaid", read_files=False)
    assert [p.name for p in paths] == ["tiled-sm_90a-tiled_sum.md", "tiled-sm_90a-tiled_sum.mmd"]


def _hostile(label: str, name: str) -> Inspection:
    insp = tiled()
    program = dataclasses.replace(
        insp.program, artifacts=dataclasses.replace(insp.program.artifacts, label=label)
    )
    kernel = dataclasses.replace(insp.kernel, display_name=name)
    return dataclasses.replace(insp, program=program, kernel=kernel)


@pytest.mark.parametrize(
    ("label", "name"),
    [("../../escaped", "k"), ("/etc/passwd", "../x"), ("..", ".."), ("a/../../b", "c\\..\\d"),
     ("", "/"), ("...", "x/../../../y(int)")],
)  # fmt: skip
def test_labels_and_names_cannot_escape_the_directory(
    tmp_path: Path, label: str, name: str
) -> None:
    out = tmp_path / "out"
    paths = export([_hostile(label, name)], out, list(FORMATS), read_files=False)
    for p in paths:
        assert p.parent == out and re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9._-]*", p.name), p
        assert ".." not in p.name
    assert sorted(x.name for x in tmp_path.iterdir()) == ["out"]


def test_safe_names() -> None:
    assert safe_part("..") == "kernel" and safe_part("../../a") == "a"
    assert safe_part("add [num_warps=8]") == "add_num_warps_8"
    assert safe_part("01_naive.cu") == "01_naive" and safe_part(".hidden") == "hidden"
    assert unique_names(["a", "a", "a-2", "b"]) == ["a", "a-3", "a-2", "b"]


def test_a_failure_mid_write_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    old = out / "tiled-sm_90a-tiled_sum.md"
    old.write_text("the previous export")
    calls = {"n": 0}
    real = os.fsync

    def full_disk(fd: int) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device")
        real(fd)

    monkeypatch.setattr("sassview.export.writer.os.fsync", full_disk)
    with pytest.raises(ExportError, match="No space left") as info:
        export([tiled()], out, list(FORMATS), read_files=False)
    assert info.value.hint
    assert sorted(p.name for p in out.iterdir()) == [old.name]  # no partial, no temp files
    assert old.read_text() == "the previous export"


def test_an_exception_while_rendering_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(view: object) -> str:
        raise RuntimeError("boom")

    monkeypatch.setattr("sassview.export.graph.render_mermaid", broken)
    with pytest.raises(RuntimeError, match="boom"):
        export([tiled()], tmp_path / "out", list(FORMATS), read_files=False)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_unwritable_directory_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(ExportError, match="not a directory"):
        export([tiled()], a_file, "md", read_files=False)

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("sassview.export.writer.tempfile.mkstemp", denied)
    with pytest.raises(ExportError, match="Permission denied"):
        export([tiled()], tmp_path / "out", "md,html", read_files=False)
    assert not any((tmp_path / "out").iterdir())


def _previous_export(out: Path) -> dict[str, str]:
    """Every file a first export wrote, each then overwritten with a marker of its own."""
    paths = export([tiled()], out, "md,json,html", read_files=False)
    for p in paths:
        p.write_text(f"old {p.name}")
    return {p.name: p.read_text() for p in paths}


def _files(out: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in out.iterdir()}


def test_a_rename_that_fails_after_others_landed_puts_the_old_files_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    before = _previous_export(out)
    real = os.replace

    def held(src: str | Path, dst: str | Path) -> None:
        if str(dst).endswith(".json") and not Path(src).name.endswith(".old"):
            raise PermissionError(1, "Operation not permitted")
        real(src, dst)

    monkeypatch.setattr("sassview.export.writer.os.replace", held)
    with pytest.raises(ExportError, match="not permitted") as info:
        export([tiled()], out, "md,json,html", read_files=False)
    assert "nothing was written" in (info.value.hint or "")
    assert _files(out) == before  # the md that landed first is the old one again; no leftovers


def test_a_rename_that_cannot_be_undone_names_the_files_left_new(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    before = _previous_export(out)
    real = os.replace

    def stuck(src: str | Path, dst: str | Path) -> None:
        if str(dst).endswith(".json") or Path(src).name.endswith(".old"):
            raise PermissionError(1, "Operation not permitted")
        real(src, dst)

    monkeypatch.setattr("sassview.export.writer.os.replace", stuck)
    with pytest.raises(ExportError, match="not permitted") as info:
        export([tiled()], out, "md,json,html", read_files=False)
    # The md landed before the json failed and cannot be put back: the error names it and the
    # link that keeps its previous file, which still holds the old text.
    changed = sorted(name for name, text in _files(out).items() if before.get(name) != text)
    kept = [name for name in changed if name.endswith(".old")]
    assert len(kept) == 1 and all(name in (info.value.hint or "") for name in changed)
    assert (out / kept[0]).read_text().startswith("old ")
    assert "nothing was written" not in (info.value.hint or "")


def _immutable(path: Path) -> bool:
    """Make `path` immutable (`chattr +i`, which binds root too); False where that fails."""
    chattr = shutil.which("chattr")
    return (
        bool(chattr)
        and subprocess.run([chattr, "+i", str(path)], capture_output=True).returncode == 0
    )


def test_an_immutable_target_leaves_the_previous_export_whole(tmp_path: Path) -> None:
    out = tmp_path / "out"
    before = _previous_export(out)
    json_file = next(out.glob("*.json"))
    if not _immutable(json_file):
        pytest.skip("chattr +i is refused here (not root, or the file system has no such flag)")
    try:
        with pytest.raises(ExportError, match="cannot write into") as info:
            export([tiled()], out, "md,json,html", read_files=False)
        assert "nothing was written" in (info.value.hint or "")
        assert _files(out) == before
    finally:
        subprocess.run(["chattr", "-i", str(json_file)], check=True)


def test_a_directory_no_one_may_write_is_one_clear_error(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    if os.geteuid() != 0:
        out.chmod(0o555)
    elif not _immutable(out):
        pytest.skip("root ignores mode bits and chattr +i is refused here")
    try:
        with pytest.raises(ExportError, match="cannot write into") as info:
            export([tiled()], out, "md", read_files=False)
        assert "nothing was written" in (info.value.hint or "")
        assert not any(out.iterdir())
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(out)], check=True)
        out.chmod(0o755)


def test_unknown_format_names_the_choices() -> None:
    with pytest.raises(ExportError, match="pdf") as info:
        render(tiled(), "pdf")
    assert "md, html, json, dot, mermaid" in info.value.hint


# ---- escaping ----

PAYLOAD_SOURCE = (
    "</code></pre><script>document.body.setAttribute('data-pwned','1')</script>\n"
    "<img src=x onerror=\"document.body.setAttribute('data-pwned','2')\">\n"
    "</script><script>document.body.setAttribute('data-pwned','3')</script>\n"
)
PAYLOAD_NAME = "<script>document.body.setAttribute('data-pwned','4')</script>k"


def hostile_source() -> Inspection:
    insp = _hostile("<b>label</b>", PAYLOAD_NAME)
    lines = insp.program.artifacts.source_text.splitlines()
    lines[4] = PAYLOAD_SOURCE.replace("\n", " ")  # line 5: the one the narrow-load note is on
    lines[0] = PAYLOAD_SOURCE.splitlines()[0]
    artifacts = dataclasses.replace(insp.program.artifacts, source_text="\n".join(lines) + "\n")
    return dataclasses.replace(insp, program=dataclasses.replace(insp.program, artifacts=artifacts))


def test_html_escapes_everything_from_the_kernel() -> None:
    page = render(hostile_source(), "html", read_files=False)
    assert page.count("<script") == 2  # the JSON link table and our own script, nothing else
    assert "<img" not in page and "<b>" not in page and "data-pwned','1')</script>" not in page
    assert "&lt;script&gt;document.body.setAttribute(&#x27;data-pwned&#x27;,&#x27;4&#x27;)" in page
    assert "Content-Security-Policy" in page and "'unsafe-inline'" not in page
    assert not re.search(r"(?:src|href)=[\"']?(?:https?:)?//", page), "no network references"


def test_markdown_escapes_names_outside_code_blocks() -> None:
    text = render(hostile_source(), "md", read_files=False)
    outside = re.sub(r"^(`{3,})[^\n]*\n.*?^\1$", "", text, flags=re.M | re.S)
    assert "<script" not in outside and "<img" not in outside and "<b>" not in outside
    assert "&lt;script&gt;" in outside


# ---- the HTML page in a browser ----


def _chromium() -> str:
    """A headless browser found on PATH. Tests never install software: CI installs Chromium
    (`.ci/run`); elsewhere these tests skip and say how to run them."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip(
        "needs Chromium on PATH (chromium, chromium-browser or google-chrome): "
        "install it (e.g. `apt-get install chromium`) to run the HTML page's browser tests"
    )


@pytest.fixture(scope="module")
def chromium() -> str:
    return _chromium()


def dom_after(
    browser: str, page: Path, query: str, profile: Path, *, window: str = "800,600", out: str = ""
) -> str:
    """The page's DOM after its script ran (`out`: a screenshot path instead of the DOM)."""
    done = subprocess.run(
        [browser, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
         "--hide-scrollbars", f"--window-size={window}", f"--user-data-dir={profile}",
         "--virtual-time-budget=5000", f"--screenshot={out}" if out else "--dump-dom",
         page.as_uri() + query],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def selftest(dom: str) -> dict[str, object]:
    found = re.findall(r'<pre id="sv-selftest-result">(.*?)</pre>', dom, re.S)
    assert found, "the page's script did not run"
    result: dict[str, object] = json.loads(html.unescape(found[-1]))
    return result


def test_hovering_a_line_highlights_its_counterparts(chromium: str, tmp_path: Path) -> None:
    (page,) = export([tiled()], tmp_path, "html", read_files=False)
    view = build_view(tiled(), read_files=False)
    row = next(r for r in view.rows if r.address == 0x90)  # LDG of line 5
    got = selftest(dom_after(chromium, page, "?sv-selftest=a-0090", tmp_path / "p1"))
    assert got["current"] == ["a-0090"]
    assert set(got["highlighted"]) == {f"s-{line}" for line in row.lines} | {f"p-{row.ptx_line}"}

    link = next(x for x in view.links if x.line == 10)  # the loop body
    got = selftest(dom_after(chromium, page, "?sv-selftest=s-10&sv-search=LDS", tmp_path / "p2"))
    want = {f"a-{a:04x}" for a in link.sass} | {f"p-{p}" for p in link.ptx}
    assert set(got["highlighted"]) == want and got["current"] == ["s-10"]
    assert got["matches"] == sum(1 for r in view.rows if "LDS" in r.text)

    finding = next(f for f in view.findings if f.kind == "barrier")
    got = selftest(dom_after(chromium, page, f"?sv-selftest={finding.anchor}", tmp_path / "p3"))
    assert {f"a-{a:04x}" for a in finding.addresses} <= set(got["highlighted"])


def test_code_panes_come_first_at_the_windows_height_coloured_by_source_line(
    chromium: str, tmp_path: Path
) -> None:
    """At 1600x1000 the three panes start under the title bar and end inside the window, the
    findings and tables below them; no source line is cut; every SASS line with a source line
    is tinted before any hover. The screenshot is kept: $SASSVIEW_ARTIFACTS, else tmp_path."""
    (page,) = export([tiled()], tmp_path, "html", read_files=False)
    got = selftest(
        dom_after(chromium, page, "?sv-selftest=none", tmp_path / "p", window="1600,1000")
    )
    layout = got["layout"]
    assert isinstance(layout, dict)
    height = layout["viewport"]  # the window less the browser's own bars
    panes = {p["id"]: p for p in layout["panes"]}
    assert set(panes) == {"sv-source", "sv-ptx", "sv-sass"}
    for p in panes.values():
        assert p["top"] < 0.2 * height and 0.9 * height < p["bottom"] <= height, (p, height)
    assert layout["findings"] >= max(p["bottom"] for p in panes.values())
    assert not panes["sv-source"]["cut"]
    with_line = sum(1 for r in build_view(tiled(), read_files=False).rows if r.line is not None)
    assert with_line and layout["tinted"] == with_line
    shots = Path(os.environ.get("SASSVIEW_ARTIFACTS", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    shot = shots / "html-export-1600x1000.png"
    dom_after(chromium, page, "", tmp_path / "p2", window="1600,1000", out=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("window", ["1200,800", "1600,1000", "800,600"])
def test_every_finding_marker_lies_inside_its_pane(
    chromium: str, tmp_path: Path, window: str
) -> None:
    """Issue #30 item 18: at 1200 px the three panes are narrow and a SASS line with its
    control codes is wider than its pane; its finding markers, at the line's end, were cut at
    the pane's edge. Measured in the browser: every marker's box lies within its pane's
    visible width, and the SASS pane needs no horizontal scroll."""
    (page,) = export([tiled()], tmp_path, "html", read_files=False)
    got = selftest(dom_after(chromium, page, "?sv-selftest=none", tmp_path / "p", window=window))
    layout = got["layout"]
    assert isinstance(layout, dict)
    view = build_view(tiled(), read_files=False)
    assert len(layout["markers"]) == sum(len(r.findings) for r in view.rows) > 0
    cut = [m for m in layout["markers"] if m["left"] < 0 or m["right"] > m["width"]]
    assert not cut, cut
    panes = {p["id"]: p for p in layout["panes"]}
    assert not panes["sv-sass"]["cut"] and not panes["sv-source"]["cut"]


def test_the_meta_line_names_the_kernel_and_labels_the_mangled_symbol() -> None:
    """The subtitle said `kernel _Z9tiled_sumPKfPfi`: the kernel is the demangled name, the
    mangled one is its symbol (HTML and Markdown alike)."""
    page = render(tiled(), "html", read_files=False)
    meta = re.search(r'<p class="sv-meta">(.*?)</p>', page)
    assert meta
    assert "kernel <code>tiled_sum(float const*, float*, int)</code>" in meta.group(1)
    assert "symbol <code>_Z9tiled_sumPKfPfi</code>" in meta.group(1)
    assert "<small>.entry _Z9tiled_sumPKfPfi</small>" in page  # the PTX pane: the PTX's name
    md = render(tiled(), "md", read_files=False)
    assert "kernel tiled\\_sum(float const\\*, float\\*, int) · symbol `_Z9tiled_sumPKfPfi`" in md


def test_the_html_tints_are_the_tuis_line_hues() -> None:
    from sassview.export.html import TINTS, _asset
    from sassview.tui.paint import LINE_HUES

    css = _asset("view.css")
    assert len(LINE_HUES) == TINTS
    for i, hue in enumerate(LINE_HUES):
        r, g, b = (int(hue[k : k + 2], 16) for k in (1, 3, 5))
        assert f".t{i} {{ background: rgba({r}, {g}, {b}, .16); }}" in css


def test_script_in_kernel_source_does_not_run_in_a_browser(chromium: str, tmp_path: Path) -> None:
    (page,) = export([hostile_source()], tmp_path, "html", read_files=False)
    dom = dom_after(chromium, page, "?sv-selftest=a-0090", tmp_path / "profile")
    body = re.search(r"<body[^>]*>", dom)
    assert body and "data-pwned" not in body.group(0)
    assert selftest(dom)["found"] is True  # our own script ran (the CSP lets only it run)
    assert "<img" not in dom


# ---- the command line ----


def run_cli(
    *args: str | Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sassview", *map(str, args)],
        capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})},
    )  # fmt: skip


def test_cli_exports_are_identical_across_processes(tmp_path: Path) -> None:
    """Set and dict orders differ between processes (hash seeds): the bytes must not."""
    cubin = Path(__file__).parent / "data" / "graph" / "loops.sm_90a.cubin"
    for seed in ("1", "2"):
        done = run_cli("export", cubin, "-o", tmp_path / seed, "-f", ",".join(FORMATS),
                       env={"PYTHONHASHSEED": seed})  # fmt: skip
        assert done.returncode == 0, done.stderr
    one = sorted((tmp_path / "1").iterdir())
    assert len(one) == 14 * len(FORMATS)
    for p in one:
        assert p.read_bytes() == (tmp_path / "2" / p.name).read_bytes(), p.name


def test_cli_exports_a_cubin(tmp_path: Path) -> None:
    cubin = CORPUS / "tiled" / "sm_90a" / "kernel.cubin"
    done = run_cli("export", cubin, "-o", tmp_path, "--format", "md,json", "-f", "dot")
    assert done.returncode == 0, done.stderr
    names = [Path(line).name for line in done.stdout.splitlines()]
    assert names == [f"kernel-sm_90a-tiled_sum.{x}" for x in ("md", "json", "dot")]


def test_cli_bad_format_and_bad_directory_are_clean_errors(tmp_path: Path) -> None:
    cubin = CORPUS / "tiled" / "sm_90a" / "kernel.cubin"
    for args in (("-o", tmp_path, "-f", "pdf"), ("-o", Path(__file__), "-f", "md")):
        done = run_cli("export", cubin, *args)
        assert done.returncode == 2 and done.stderr.startswith("error: ") and done.stdout == ""
        assert "hint: " in done.stderr and "Traceback" not in done.stderr


@pytest.mark.compile
def test_cli_exports_a_compiled_kernel(tmp_path: Path) -> None:
    done = run_cli("export", EXAMPLE, "-o", tmp_path, "-f", "md,html", "--kernel", "add_f4")
    assert done.returncode == 0, done.stderr
    md = tmp_path / "vecadd-sm_90a-add_f4.md"
    assert md.exists() and "LDG.E.128" in md.read_text()
    assert "/work/" not in md.read_text() and str(EXAMPLE) not in md.read_text()
