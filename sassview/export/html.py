"""One kernel as one self-contained HTML file: source, PTX and SASS side by side.

Layout: the three code panes come first and fill the window's height (the findings, the
resources and the loop table follow below them); source lines wrap rather than being cut. Every
line of code is tinted with its source line's colour (`t0`-`t7`: the line number modulo 8, the
TUI's LINE_HUES), so which SASS and PTX came from which statement shows without hovering.

Hovering (or clicking, which pins) a line lights its counterparts in the other panes, from the
kernel's correspondence: a SASS instruction -> the source lines of its inline chain and its PTX
line; a source line -> its PTX lines and SASS instructions; a PTX line -> its source line and
SASS instructions. Findings are listed, numbered, and linked both ways with their instructions;
a search box marks matching lines in all panes.

Safety: everything that came from the kernel (names, labels, source, PTX, messages) is escaped
with html.escape; the link table is JSON inside a non-executed <script type="application/json">
with `<`, `>` and `&` written as \\u escapes, so no string can close that element. The page
carries a Content-Security-Policy that allows no network at all and only the page's own style
and script (by their SHA-256), so even a mistake in escaping could not run injected code. The
CSS and JavaScript live in html_assets/ and are inlined: the file works offline, from disk.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from importlib import resources

from sassview.export.highlight import highlight_lines
from sassview.export.model import ExportView, Finding, LoopRow
from sassview.memo import memoized


@memoized(2)
def _asset(name: str) -> str:
    return (resources.files("sassview.export") / "html_assets" / name).read_text(encoding="utf-8")


def _csp_hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def script_json(value: object) -> str:
    """JSON that is safe inside a <script> element: no `<`, `>` or `&` can appear raw."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _link_table(view: ExportView) -> dict[str, list[str]]:
    """id -> ids of its counterparts, for every line that has any."""
    links: dict[str, set[str]] = {}
    have_source = bool(view.source_lines)
    have_ptx = {n for n, _ in view.ptx_lines}

    def add(a: str, b: str) -> None:
        links.setdefault(a, set()).add(b)
        links.setdefault(b, set()).add(a)

    for r in view.rows:
        if have_source:
            for line in r.lines:
                add(r.anchor, f"s-{line}")
        if r.ptx_line in have_ptx:
            add(r.anchor, f"p-{r.ptx_line}")
    if have_source:
        for link in view.links:
            for p in link.ptx:
                if p in have_ptx:
                    add(f"s-{link.line}", f"p-{p}")
    return {k: sorted(v, key=_id_order) for k, v in sorted(links.items())}


def _id_order(ident: str) -> tuple[str, int]:
    kind, _, num = ident.partition("-")
    return (kind, int(num, 16) if kind == "a" else int(num))


def _pane(pane_id: str, title: str, subtitle: str, lines: list[str], note: str) -> list[str]:
    out = [f'<section class="sv-pane"><h2>{_e(title)} <small>{_e(subtitle)}</small></h2>',
           f'<div class="sv-code" id="{pane_id}">']  # fmt: skip
    if not lines:
        out.append(f'<div class="sv-note-text">{_e(note)}</div>')
    out.extend(lines)
    out.append("</div></section>")
    return out


TINTS = 8  # view.css's .t0-.t7


def _tint(line: int | None) -> str:
    """The class of a line's colour: its source line's number modulo TINTS."""
    return "" if line is None else f" t{line % TINTS}"


def _source_pane(view: ExportView) -> list[str]:
    flagged = {line for r in view.rows if r.flagged for line in r.lines}
    with_code = {r.line for r in view.rows}
    coloured = highlight_lines("\n".join(view.source_lines), view.source_lang)
    lines = [
        f'<div class="ln{_tint(n if n in with_code else None)}{" flag" if n in flagged else ""}" '
        f'id="s-{n}">'
        f'<span class="no">{n}</span>{coloured[n - 1] if n <= len(coloured) else ""}</div>'
        for n in range(1, len(view.source_lines) + 1)
    ]
    return _pane("sv-source", "Source", view.main_file, lines, view.source_note or "no source")


def _ptx_pane(view: ExportView) -> list[str]:
    flagged = {r.ptx_line for r in view.rows if r.flagged and r.ptx_line}
    home: dict[int, int] = {}  # PTX line -> the source line it was compiled from
    for link in view.links:
        for p in link.ptx:
            home.setdefault(p, link.line)
    coloured = highlight_lines("\n".join(t for _, t in view.ptx_lines), "nvptx")
    lines = [
        f'<div class="ln{_tint(home.get(n))}{" flag" if n in flagged else ""}" id="p-{n}">'
        f'<span class="no">{n}</span>{coloured[i]}</div>'
        for i, (n, _) in enumerate(view.ptx_lines)
    ]
    entry = f".entry {view.mangled}"  # the PTX's own name of it: the symbol, not the kernel's
    return _pane("sv-ptx", "PTX", entry, lines, "no PTX text was kept for this kernel")


def _sass_pane(view: ExportView) -> list[str]:
    lines = []
    for r in view.rows:
        coloured = highlight_lines(r.text + " ;", "nvsass")[0]
        marks = "".join(
            f'<a class="fm" href="#f-{n}" title="finding {n}">{n}</a>' for n in r.findings
        )
        title = f' title="{_e(r.where)}"' if r.where else ""
        # The schedule ptxas encoded (wait mask, scoreboards, yield, stall): docs/analyses.md.
        control = f'<span class="cc">{r.control}</span>' if r.control else ""
        lines.append(
            f'<div class="ln{_tint(r.line)}{" flag" if r.flagged else ""}" id="{r.anchor}"{title}>'
            f'<span class="no">{r.address:04x}</span>{control}{coloured}{marks}</div>'
        )
    return _pane("sv-sass", "SASS", view.arch, lines, "no instructions")


def _finding(f: Finding, view: ExportView) -> str:
    rows = {r.address for r in view.rows}
    targets = " ".join(f"a-{a:04x}" for a in sorted(set(f.addresses)) if a in rows)
    jumps = " ".join(f'<a href="#a-{a:04x}">{a:04x}</a>' for a in sorted(set(f.addresses))[:8]
                     if a in rows)  # fmt: skip
    where = f' <span class="hint">({_e(", ".join(f.source))})</span>' if f.source else ""
    hint = f' <span class="hint">hint: {_e(f.hint)}</span>' if f.hint else ""
    return (
        f'<li id="{f.anchor}" class="sv-f sv-{_e(f.severity)}" data-targets="{targets}">'
        f'<span class="sev">{_e(f.severity)}</span> <code>{_e(f.kind)}</code> {_e(f.message)}'
        f"{hint}{where} {jumps}</li>"
    )


def _loop_row(lp: LoopRow) -> str:
    cells = (
        f"{lp.file}:{lp.line}{lp.context}" if lp.line is not None else "-",
        lp.depth,
        "-" if lp.achieved is None else lp.achieved,
        "-" if lp.requested is None else lp.requested,
        lp.verdict,
        "yes" if lp.remainder else "no",
        lp.instructions,
        f"{lp.tensor_ops} ({lp.tensor_path})" if lp.tensor_ops else 0,
    )
    return "<tr>" + "".join(f"<td>{_e(c)}</td>" for c in cells) + "</tr>"


def _tables(view: ExportView) -> list[str]:
    res = "".join(f"<div><dt>{_e(k)}</dt><dd>{_e(v)}</dd></div>" for k, v in view.resources)
    out = ['<section class="sv-tables" id="sv-tables"><h2>Resources</h2>',
           f'<dl class="sv-res">{res}</dl>']  # fmt: skip
    if view.loops:
        head = ("source line", "depth", "factor", "requested", "unrolling", "remainder",
                "SASS instructions", "tensor-core ops")  # fmt: skip
        rows = "".join(_loop_row(lp) for lp in view.loops)
        out.append(
            "<details open><summary>Loops</summary><table><tr>"
            + "".join(f"<th>{h}</th>" for h in head)
            + f"</tr>{rows}</table></details>"
        )
    if view.memory:
        out.append(_memory_table(view))
    out.append("</section>")
    return out


def _memory_table(view: ExportView) -> str:
    """Each memory instruction's sectors (global) or wavefronts (shared) per warp."""
    head = ("SASS", "instruction", "line", "access", "lanes", "per warp", "stride", "note")
    rows = "".join(
        f'<tr><td><a href="#{r.anchor}">{r.address:04x}</a></td>'
        + "".join(
            f"<td>{_e(c)}</td>"
            for c in (
                r.opcode,
                "-" if r.line is None else r.line,
                f"{r.space} {r.direction}",
                r.lanes or "-",
                r.count,
                r.pattern,
                r.note,
            )
        )  # fmt: skip
        + "</tr>"
        for r in view.memory
    )
    return (
        f"<details><summary>Memory use: {_e(view.memory_summary)}</summary><table><tr>"
        + "".join(f"<th>{h}</th>" for h in head)
        + f"</tr>{rows}</table></details>"
    )


def render(view: ExportView) -> str:
    """The page, as text (ends with one newline)."""
    css, js = _asset("view.css"), _asset("view.js")
    csp = (f"default-src 'none'; style-src {_csp_hash(css)}; script-src {_csp_hash(js)}; "
           "img-src data:; base-uri 'none'; form-action 'none'")  # fmt: skip
    meta = [f"source <code>{_e(view.main_file)}</code>" if view.main_file else "",
            f"kernel <code>{_e(view.kernel)}</code>",
            f"symbol <code>{_e(view.mangled)}</code>" if view.mangled != view.kernel else "",
            _e(view.producer) if view.producer else ""]  # fmt: skip
    findings = [_finding(f, view) for f in view.findings] or ["<li>No findings.</li>"]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">',
        '<meta name="generator" content="sassview export">',
        f"<title>{_e(view.title)} — sassview</title>",
        f"<style>{css}</style>",
        "</head>",
        "<body>",
        f"<header><h1>{_e(view.title)}</h1>",
        f'<p class="sv-meta">{" · ".join(m for m in meta if m)}</p>',
        "</header>",
        '<nav class="sv-tools"><input id="sv-search" type="search" '
        'placeholder="search source, PTX and SASS (Enter: next)" aria-label="search">'
        '<span id="sv-count"></span>'
        f'<a href="#sv-findings">findings ({len(view.findings)})</a>'
        '<a href="#sv-tables">resources and loops</a></nav>',
        '<main class="sv-panes">',
        *_source_pane(view),
        *_ptx_pane(view),
        *_sass_pane(view),
        "</main>",
        f'<section class="sv-findings"><h2>Findings <small>{len(view.findings)}</small></h2>'
        f'<ol id="sv-findings">',
        *findings,
        "</ol></section>",
        *_tables(view),
        f'<script type="application/json" id="sv-links">{script_json(_link_table(view))}</script>',
        f"<script>{js}</script>",
        "</body>",
        "</html>",
    ]
    return "\n".join(parts) + "\n"
