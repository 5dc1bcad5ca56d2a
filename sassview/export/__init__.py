"""Export inspected kernels as files: Markdown, HTML, JSON, DOT and Mermaid.

    import sassview
    from sassview.export import export
    export(sassview.inspect("kernel.py"), "out/", ["md", "html", "json"])

One file per (kernel, format), named `<label>-<arch>-<kernel>.<ext>` with every part reduced to
safe characters (see writer.py). Every format reads the same `ExportView` (model.py), which only
reads the Inspection: the exporters add no analysis of their own. Exporting the same inspections
twice gives byte-identical files; a failed export writes nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sassview.export.writer import ExportError, safe_part, unique_names, write_all

if TYPE_CHECKING:
    from sassview.export.model import ExportView
    from sassview.inspection import Inspection

# format -> file extension
FORMATS: dict[str, str] = {
    "md": "md",
    "html": "html",
    "json": "json",
    "dot": "dot",
    "mermaid": "mmd",
}

__all__ = ["FORMATS", "ExportError", "export", "file_stem", "parse_formats", "render"]


def parse_formats(formats: str | Iterable[str]) -> list[str]:
    """`"md,html"` or `["md", "html"]` -> ["md", "html"], each checked, repeats dropped."""
    items = [formats] if isinstance(formats, str) else list(formats)
    names = [f.strip().lower() for item in items for f in item.split(",") if f.strip()]
    aliases = {"markdown": "md", "mmd": "mermaid", "graphviz": "dot"}
    names = [aliases.get(n, n) for n in names]
    unknown = [n for n in names if n not in FORMATS]
    if unknown or not names:
        raise ExportError(
            f"unknown export format {', '.join(map(repr, unknown))}" if unknown
            else "no export format given",
            f"choose from {', '.join(FORMATS)} (comma-separated)",
        )  # fmt: skip
    return list(dict.fromkeys(names))


def _renderer(fmt: str) -> Callable[[ExportView], str]:
    if fmt == "md":
        from sassview.export.markdown import render as md

        return md
    if fmt == "html":
        from sassview.export.html import render as page

        return page
    if fmt == "json":
        from sassview.export.json_graph import render as doc

        return doc
    from sassview.export.graph import render_dot, render_mermaid

    return render_dot if fmt == "dot" else render_mermaid


def render(
    inspection: Inspection,
    fmt: str,
    *,
    root: str | os.PathLike[str] | None = None,
    read_files: bool = True,
) -> str:
    """One kernel in one format, as text (what `export` writes)."""
    from sassview.export.model import build_view

    (fmt,) = parse_formats(fmt)
    return _renderer(fmt)(build_view(inspection, root=root, read_files=read_files))


def file_stem(inspection: Inspection) -> str:
    """`<label>-<arch>-<kernel>`, safe as a file name (label: the declaration, or the file)."""
    a = inspection.program.artifacts
    label = a.label or (Path(a.source_path).name if a.source_path else "")
    kernel = inspection.kernel.display_name.split("(", 1)[0] or inspection.kernel.name
    return "-".join(
        (safe_part(label, "kernel"), safe_part(inspection.arch, "arch"), safe_part(kernel))
    )


def export(
    inspections: Sequence[Inspection],
    out_dir: str | os.PathLike[str],
    formats: str | Iterable[str] = ("md",),
    *,
    root: str | os.PathLike[str] | None = None,
    read_files: bool = True,
) -> list[Path]:
    """Write each inspection in each format into `out_dir`; return the paths, in order.

    `root`: file paths inside the exports are shown relative to it (default: the directory of
    each compiled file; elsewhere, by base name). `read_files`: for a cubin, read the source
    file its line table names when it exists here.
    """
    from sassview.export.model import build_view

    fmts = parse_formats(formats)
    stems = unique_names([file_stem(i) for i in inspections])
    files: list[tuple[str, bytes]] = []
    for insp, stem in zip(inspections, stems, strict=True):
        view = build_view(insp, root=root, read_files=read_files)
        for fmt in fmts:
            text = _renderer(fmt)(view)
            files.append((f"{stem}.{FORMATS[fmt]}", text.encode("utf-8")))
    return write_all(Path(out_dir), files)
