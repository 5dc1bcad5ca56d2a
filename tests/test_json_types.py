"""`check --json`'s keys are written down three times: the TypedDicts mypy checks the report
against (sassview/report/json_types.py), docs/json.md, and the document `check` prints. The
three name the same keys, in the same order, at every level the types spell out."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from conftest import CORPUS

from sassview.report.json_types import (
    AnalysisJson,
    AnnotationJson,
    CheckDocument,
    KernelJson,
    ProgramJson,
    RegisterPeakJson,
    ResourcesJson,
)
from sassview.views.cli import cli

DOCS = Path(__file__).parents[1] / "docs" / "json.md"
WGMMA = CORPUS / "wgmma" / "sm_90a" / "kernel.cubin"  # a kernel with findings


def _jsonc(text: str) -> str:
    """docs/json.md's JSON with comments: its `//` comments and `...` (outside strings) cut."""
    out: list[str] = []
    i, in_string = 0, False
    while i < len(text):
        c = text[i]
        if in_string:
            out.append(text[i : i + 2] if c == "\\" else c)
            i += 2 if c == "\\" else 1
            in_string = c != '"'
        elif c == '"':
            out.append(c)
            i, in_string = i + 1, True
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
        elif text.startswith("...", i):
            while out and out[-1].isspace():
                out.pop()
            if out and out[-1] == ",":
                out.pop()
            i += 3
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _documented() -> dict[str, Any]:
    (block,) = re.findall(r"```jsonc\n(.*?)```", DOCS.read_text(), re.S)[:1]
    document: dict[str, Any] = json.loads(_jsonc(block))
    return document


def _levels(document: dict[str, Any]) -> dict[str, tuple[list[str], type]]:
    """Each level the TypedDicts type: its keys in `document`, and its TypedDict."""
    program = document["programs"][0]
    kernel = program["kernels"][0]
    analysis = kernel["analysis"]
    return {
        "document": (list(document), CheckDocument),
        "program": (list(program), ProgramJson),
        "kernel": (list(kernel), KernelJson),
        "resources": (list(kernel["resources"]), ResourcesJson),
        "analysis": (list(analysis), AnalysisJson),
        "register_peak": (list(analysis["register_peak"]), RegisterPeakJson),
        "annotation": (list(kernel["annotations"][0]), AnnotationJson),
    }


def test_the_documented_keys_are_the_typed_keys() -> None:
    for level, (keys, typed) in _levels(_documented()).items():
        assert keys == list(typed.__annotations__), level


def test_check_writes_the_typed_keys_in_their_order() -> None:
    done = CliRunner().invoke(cli, ["check", "--json", str(WGMMA)])
    assert done.exit_code == 0, done.output
    for level, (keys, typed) in _levels(json.loads(done.output)).items():
        assert keys == list(typed.__annotations__), level


def test_the_comment_cutter_keeps_what_strings_say() -> None:
    """The reader of the docs cuts comments and elisions, never a string's own `//` or `...`."""
    text = '{"a": "x // y ... z", // gone\n "b": [1, ...], "c": {"d": 1, ...}}'
    assert json.loads(_jsonc(text)) == {"a": "x // y ... z", "b": [1], "c": {"d": 1}}
