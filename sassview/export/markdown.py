"""One kernel as a Markdown page for MkDocs Material (readable as plain Markdown too).

What the page holds: the resources table, the findings (numbered), the loop table, the SASS
listing with the findings as Material code annotations and the flagged instructions highlighted
(`hl_lines`), the kernel's PTX and its source with the lines behind flagged instructions
highlighted, and the source <-> PTX <-> SASS correspondence by source line.

Material turns `(N)` inside a comment token into an annotation marker when the list right after
the block has an N-th item, so: the markers sit in `//` comments, which the nvsass lexer makes
Comment.Single; the interleaved source lines and block headers are `//##` comments, which it
makes Comment.Special — a token Material does not scan, so a `(1)` in the user's source stays
text. Everything that came from the kernel is escaped for Markdown and HTML, and code fences are
longer than any run of backticks inside them.
"""

from __future__ import annotations

import html
import re

from sassview.export.model import ExportView, Finding, LineLink, LoopRow, Row, ranges

_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_MD_SPECIAL = re.compile(r"([\\*_\[\]#!`])")
_MAX_RANGES = 6


def _escape_plain(text: str) -> str:
    text = html.escape(text, quote=False).replace("|", "&#124;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def md_text(text: str) -> str:
    """Kernel-supplied text for Markdown prose: code spans kept, everything else escaped."""
    out, pos = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_escape_plain(text[pos : m.start()]))
        out.append(md_code(m.group(2)))
        pos = m.end()
    out.append(_escape_plain(text[pos:]))
    return "".join(out).replace("\n", " ")


def md_code(text: str) -> str:
    """`text` as an inline code span whatever backticks it holds (safe in table cells too)."""
    text = text.replace("\n", " ")
    if not text:
        return ""
    # A pipe would end a table cell even inside a code span: raw <code> with entities instead.
    if "|" in text:
        return "<code>" + html.escape(text).replace("|", "&#124;") + "</code>"
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fence(lines: list[str]) -> str:
    longest = max((len(m) for line in lines for m in re.findall(r"`{3,}|~{3,}", line)), default=2)
    return "`" * max(3, longest + 1)


def _hl(numbers: list[int]) -> str:
    return " ".join(f"{a}-{b}" if a != b else str(a) for a, b in ranges(numbers))


def _block(lines: list[str], classes: str, hl: list[int], extra: str = "") -> list[str]:
    fence = _fence(lines)
    attrs = classes + (f' hl_lines="{_hl(hl)}"' if hl else "") + extra
    return [f"{fence} {{ {attrs} }}", *lines, fence]


def _address_ranges(addresses: tuple[int, ...] | list[int]) -> str:
    runs = ranges(addresses, 16)
    text = ", ".join(
        f"0x{a:04x}" if a == b else f"0x{a:04x}–0x{b:04x}" for a, b in runs[:_MAX_RANGES]
    )
    return text + (f", … ({len(runs) - _MAX_RANGES} more)" if len(runs) > _MAX_RANGES else "")


def _line_ranges(lines: tuple[int, ...]) -> str:
    runs = ranges(lines)
    text = ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in runs[:_MAX_RANGES])
    return text + (f", … ({len(runs) - _MAX_RANGES} more)" if len(runs) > _MAX_RANGES else "")


def _finding_item(f: Finding) -> str:
    text = f"**{f.severity}** · {md_code(f.kind)} — {md_text(f.message)}"
    if f.hint:
        text += f" *Hint:* {md_text(f.hint)}"
    where = []
    if f.addresses:
        where.append(f"SASS {_address_ranges(f.addresses)}")
    if f.source:
        where.append("source " + ", ".join(md_code(s) for s in f.source))
    if where:
        text += " (" + "; ".join(where) + ")"
    return text


def _findings(view: ExportView) -> list[str]:
    if not view.findings:
        return ["No findings.", ""]
    return [*(f"{f.number}. {_finding_item(f)}" for f in view.findings), ""]


def _loop_row(lp: LoopRow) -> str:
    line = f"{md_code(lp.file)}:{lp.line}{lp.context}" if lp.line is not None else "-"
    achieved = "-" if lp.achieved is None else str(lp.achieved)
    requested = "-" if lp.requested is None else md_text(str(lp.requested))
    cells = (line, str(lp.depth), achieved, requested, lp.verdict,
             "yes" if lp.remainder else "no", str(lp.instructions),
             f"{lp.tensor_ops} ({lp.tensor_path})" if lp.tensor_ops else "0")  # fmt: skip
    return "| " + " | ".join(cells) + " |"


def _loops(view: ExportView) -> list[str]:
    if not view.loops:
        return ["No loops.", ""]
    head = ("| source line | depth | factor | requested | unrolling | remainder "
            "| SASS instructions | tensor-core ops |")  # fmt: skip
    return [head, "|---|--:|--:|--:|---|---|--:|--:|", *(_loop_row(lp) for lp in view.loops), ""]


def _memory(view: ExportView) -> list[str]:
    """Each memory instruction's sectors (global) or wavefronts (shared) per warp."""
    if not view.memory:
        return ["No global or shared memory accesses.", ""]
    # Eight short headers: the docs' gallery page is 688 px wide (tests/test_docs_screenshots).
    head = "| SASS | instruction | line | access | lanes | per warp | stride | note |"
    rows = [
        "| " + " | ".join((
            f"0x{r.address:04x}", md_code(r.opcode),
            "-" if r.line is None else str(r.line), f"{r.space} {r.direction}", r.lanes or "-",
            md_text(r.count), md_text(r.pattern), md_text(r.note),
        )) + " |"
        for r in view.memory
    ]  # fmt: skip
    return [
        md_text(view.memory_summary),
        "",
        head,
        "|--:|---|--:|---|--:|---|---|---|",
        *rows,
        "",
    ]


def _resources(view: ExportView) -> list[str]:
    rows = [f"| {name} | {md_text(value)} |" for name, value in view.resources]
    return ["| resource | value |", "|---|---|", *rows, ""]


def sass_lines(view: ExportView) -> tuple[list[str], list[int]]:
    """The annotated SASS listing and the (1-based) lines of flagged instructions in it."""
    first_of: dict[int, list[int]] = {}
    for f in view.findings:
        if f.addresses:
            first_of.setdefault(min(f.addresses), []).append(f.number)
    source = view.source_lines
    loop_of = _innermost_loops(view)
    out: list[str] = []
    hl: list[int] = []
    block, line = -1, None
    rows = view.rows
    last = max((i for i, r in enumerate(rows) if r.text != "NOP"), default=len(rows) - 1)
    for r in rows[: last + 1]:
        if r.block != block:
            block = r.block
            where = loop_of.get(block)
            out.append(f"//## B{block}" + (f" · {where}" if where else ""))
            line = None
        if r.line is not None and r.line != line:
            line = r.line
            text = source[line - 1].strip() if 0 < line <= len(source) else ""
            out.append(f"//## line {line}" + (f":  {text}" if text else ""))
        out.append(_sass_row(r, first_of.get(r.address, [])))
        if r.flagged:
            hl.append(len(out))
    padding = rows[last + 1 :]
    if padding:
        span = f"0x{padding[0].address:04x}-0x{padding[-1].address:04x}"
        out.append(f"//## {span}: {len(padding)} x NOP, padding")
    return out, hl


def _sass_row(r: Row, markers: list[int]) -> str:
    text = f"/*{r.address:04x}*/  {r.text} ;"
    if len(markers) == 1:
        text += f"  // ({markers[0]})!"
    elif markers:
        text += "  // " + " ".join(f"({n})" for n in markers)
    return text


def _innermost_loops(view: ExportView) -> dict[int, str]:
    out: dict[int, tuple[int, str]] = {}
    for lp in view.inspection.loops:
        name = view.inspection.loop_name(lp.index)
        for b in lp.blocks:
            if b not in out or out[b][0] < lp.depth:
                out[b] = (lp.depth, f"loop {lp.index}, depth {lp.depth}, {name}")
    return {b: text for b, (_, text) in out.items()}


def _annotation_list(view: ExportView) -> list[str]:
    return [*(f"{f.number}.  {_finding_item(f)}" for f in view.findings), ""]


def _ptx(view: ExportView) -> list[str]:
    if not view.ptx_lines:
        return ["No PTX text was kept for this kernel.", ""]
    start = view.ptx_lines[0][0]
    flagged = {r.ptx_line for r in view.rows if r.flagged and r.ptx_line}
    hl = [n - start + 1 for n, _ in view.ptx_lines if n in flagged]
    lines = [text for _, text in view.ptx_lines]
    return [*_block(lines, ".nvptx", hl, f' linenums="{start}"'), ""]


def _source(view: ExportView) -> list[str]:
    if not view.source_lines:
        return [md_text(view.source_note or "No source."), ""]
    flagged = sorted({line for r in view.rows if r.flagged for line in r.lines})
    lines = list(view.source_lines)
    return [*_block(lines, f".{view.source_lang}", flagged, ' linenums="1"'), ""]


def _link_row(link: LineLink) -> str:
    text = link.text.strip()
    code = ("<code>" + html.escape(text).replace("|", "&#124;") + "</code>") if text else ""
    sass = f"{len(link.sass)}: {_address_ranges(link.sass)}" if link.sass else "-"
    ptx = _line_ranges(link.ptx) if link.ptx else "-"
    return f"| {link.line} | {code} | {ptx} | {sass} |"


def _links(view: ExportView) -> list[str]:
    if not view.links:
        return ["No line table: compile with `-lineinfo` to map SASS to source.", ""]
    head = ["| line | source | PTX lines | SASS instructions |", "|--:|---|---|---|"]
    return [*head, *(_link_row(x) for x in view.links), ""]


def render(view: ExportView) -> str:
    """The page, as text (ends with one newline)."""
    meta = [f"source {md_code(view.main_file)}" if view.main_file else "",
            f"kernel {md_text(view.kernel)}",
            f"symbol {md_code(view.mangled)}" if view.mangled != view.kernel else "",
            md_text(view.producer) if view.producer else ""]  # fmt: skip
    sass, hl = sass_lines(view)
    parts = [
        f"# {md_text(view.title)}",
        "",
        " · ".join(m for m in meta if m),
        "",
        "## Resources",
        "",
        *_resources(view),
        "## Findings",
        "",
        *_findings(view),
        "## Loops",
        "",
        *_loops(view),
        "## Memory use",
        "",
        *_memory(view),
        "## SASS",
        "",
        *_block(sass, ".nvsass .annotate", hl),
        "",
        *_annotation_list(view),
        "## PTX",
        "",
        *_ptx(view),
        "## Source",
        "",
        *_source(view),
        "## Source ↔ SASS",
        "",
        *_links(view),
    ]
    while parts and parts[-1] == "":
        parts.pop()
    return "\n".join(parts) + "\n"
