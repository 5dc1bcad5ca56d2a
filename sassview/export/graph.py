"""The control-flow graph of one kernel for Graphviz (DOT) and Mermaid.

Each basic block is a node labelled with its index, address range and instruction count; loops
are nested clusters (DOT) or subgraphs (Mermaid) named after their source line; blocks holding
instructions of a note or warning are filled and name their finding numbers; unreachable blocks
are dashed. Edges: taken solid, fall-through dashed, call/return dotted, back edges bold.

A block belongs to the innermost loop that holds it; a loop's cluster sits inside its parent's,
so the drawing nests as the loops do. Labels are made of numbers and our own words only, except
the graph's title (the kernel name), which is quoted and escaped for each language.
"""

from __future__ import annotations

import re

from sassview.export.model import ExportView


def _innermost(view: ExportView) -> dict[int, int]:
    owner: dict[int, tuple[int, int]] = {}
    for lp in view.inspection.loops:
        for b in lp.blocks:
            if b not in owner or owner[b][0] < lp.depth:
                owner[b] = (lp.depth, lp.index)
    return {b: idx for b, (_, idx) in owner.items()}


def _block_facts(view: ExportView) -> dict[int, tuple[str, tuple[int, ...]]]:
    """block -> (label lines, finding numbers of flagged instructions in it)."""
    out = {}
    for b in view.inspection.cfg.blocks:
        rows = view.rows[b.first : b.last + 1]
        count = sum(1 for r in rows if not r.text.startswith("NOP"))
        found = tuple(sorted({n for r in rows if r.flagged for n in r.findings}))
        text = f"B{b.index}\\n0x{b.start:04x}-0x{max(b.end - 16, b.start):04x}\\n{count} instr"
        if found:
            text += "\\nfindings " + " ".join(map(str, found))
        out[b.index] = (text, found)
    return out


def _loop_title(view: ExportView, index: int) -> str:
    lp = view.inspection.loops[index]
    return f"loop {lp.index}: {view.inspection.loop_name(lp.index)} (depth {lp.depth})"


def _dot_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _edge_style(kind: str, back: bool) -> str:
    style = {"taken": "solid", "fallthrough": "dashed"}.get(kind, "dotted")
    attrs = [f"style={style}"]
    if back:
        attrs += ["penwidth=2.5", 'color="#0969da"']
    if kind in ("call", "return"):
        attrs.append(f'label="{kind}"')
    return ", ".join(attrs)


def render_dot(view: ExportView) -> str:
    """Graphviz DOT text (ends with one newline)."""
    insp = view.inspection
    facts = _block_facts(view)
    owner = _innermost(view)
    lines = [
        "digraph cfg {",
        f"  label={_dot_string(view.title)};",
        '  labelloc="t";',
        '  node [shape=box, fontname="monospace", fontsize=10];',
        '  edge [fontname="monospace", fontsize=9];',
    ]

    def node(b: int, indent: str) -> str:
        text, found = facts[b]
        attrs = [f'label="{text}"']
        if found:
            attrs += ["style=filled", 'fillcolor="#ffe4e1"', 'color="#cf222e"']
        if not insp.cfg.blocks[b].reachable:
            attrs.append("style=dashed" if not found else 'style="filled,dashed"')
        return f"{indent}B{b} [{', '.join(attrs)}];"

    def cluster(index: int, indent: str) -> None:
        lines.append(f"{indent}subgraph cluster_loop{index} {{")
        lines.append(f"{indent}  label={_dot_string(_loop_title(view, index))};")
        lines.append(f'{indent}  style=rounded; color="#0969da";')
        for b in sorted(b for b, o in owner.items() if o == index):
            lines.append(node(b, indent + "  "))
        for child in insp.loops:
            if child.parent == index:
                cluster(child.index, indent + "  ")
        lines.append(f"{indent}}}")

    for b in insp.cfg.blocks:
        if b.index not in owner:
            lines.append(node(b.index, "  "))
    for lp in insp.loops:
        if lp.parent is None:
            cluster(lp.index, "  ")
    back = {e for lp in insp.loops for e in lp.back_edges}
    for e in insp.cfg.edges:
        lines.append(
            f"  B{e.src} -> B{e.dst} [{_edge_style(e.kind.value, (e.src, e.dst) in back)}];"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


_MERMAID_UNSAFE = re.compile(r"[^A-Za-z0-9 _.,:()+\-·/=*&\[\]‹›]")


def _mermaid_text(text: str) -> str:
    """Kernel-supplied text for a Mermaid title or label: template brackets become ‹ ›, anything
    else unusual (quotes, `#`, `;`, markup) `_`, so it can neither end the quoted string nor
    be read as HTML."""
    return _MERMAID_UNSAFE.sub("_", text.replace("<", "‹").replace(">", "›"))


def render_mermaid(view: ExportView) -> str:
    """Mermaid flowchart text (ends with one newline)."""
    insp = view.inspection
    facts = _block_facts(view)
    owner = _innermost(view)
    lines = ["---", f'title: "{_mermaid_text(view.title)}"', "---", "flowchart TD"]

    def node(b: int, indent: str) -> str:
        text, found = facts[b]
        label = text.replace("\\n", "<br/>")
        cls = ":::flagged" if found else ""
        if not insp.cfg.blocks[b].reachable:
            cls = ":::unreachable"
        return f'{indent}B{b}["{label}"]{cls}'

    def subgraph(index: int, indent: str) -> None:
        lines.append(f'{indent}subgraph L{index}["{_mermaid_text(_loop_title(view, index))}"]')
        for b in sorted(b for b, o in owner.items() if o == index):
            lines.append(node(b, indent + "  "))
        for child in insp.loops:
            if child.parent == index:
                subgraph(child.index, indent + "  ")
        lines.append(f"{indent}end")

    for b in insp.cfg.blocks:
        if b.index not in owner:
            lines.append(node(b.index, "  "))
    for lp in insp.loops:
        if lp.parent is None:
            subgraph(lp.index, "  ")
    back = {e for lp in insp.loops for e in lp.back_edges}
    links = []
    for e in insp.cfg.edges:
        kind = e.kind.value
        if (e.src, e.dst) in back:
            arrow = "==>|back|"
        elif kind == "taken":
            arrow = "-->"
        elif kind == "fallthrough":
            arrow = "-.->"
        else:
            arrow = f"-.->|{kind}|"
        links.append(f"  B{e.src} {arrow} B{e.dst}")
    lines += links
    lines.append("  classDef flagged fill:#ffe4e1,stroke:#cf222e,stroke-width:2px")
    lines.append("  classDef unreachable stroke-dasharray:4 3,color:#6e7781")
    return "\n".join(lines) + "\n"
