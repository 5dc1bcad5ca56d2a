"""`sassview mcp` through the MCP SDK's own client over stdio: the tools an agent calls, the
listings it reads, and what the server refuses (paths outside the roots, options that name
files or run programs, calls past their deadline)."""

from __future__ import annotations

import ast
import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp", reason="the MCP SDK (pip install 'sassview[agents]')")
anyio = pytest.importorskip("anyio")

from mcp import Client, StdioServerParameters  # noqa: E402
from mcp_types import ListRootsResult, Root  # noqa: E402

from sassview.views.mcp.explain import FINDINGS  # noqa: E402
from sassview.views.mcp.verdicts import kernel_verdicts  # noqa: E402

EXAMPLES = Path(__file__).parent.parent / "examples"
VECADD = EXAMPLES / "vecadd.cu"
pytestmark = pytest.mark.compile


def _session(
    root: Path, script: Callable[[Client], Awaitable[None]], *, extra: tuple[str, ...] = (),
    client_roots: list[Path] | None = None, env: dict[str, str] | None = None,
) -> None:  # fmt: skip
    """Start `sassview mcp --root ROOT` and run `script` against it with the SDK's client."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "sassview", "mcp", "--root", str(root), *extra],
        env={**os.environ, **(env or {})},
        cwd=str(root),
    )

    async def roots(_ctx: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=p.as_uri()) for p in client_roots or []])

    async def main() -> None:
        callback = roots if client_roots is not None else None
        async with Client(params, list_roots_callback=callback) as client:
            await script(client)

    anyio.run(main)


def _error(result: Any) -> str:
    assert result.is_error, result.structured_content
    return str(result.content[0].text)


def test_an_agent_checks_a_file_reads_its_sass_and_asserts(tmp_path: Path) -> None:
    (tmp_path / "vecadd.cu").write_text(VECADD.read_text())
    seen: dict[str, Any] = {}

    async def script(client: Client) -> None:
        tools = await client.list_tools()
        seen["tools"] = {t.name for t in tools.tools}
        checked = await client.call_tool("check", {"path": "vecadd.cu", "arch": ["sm_90a"]})
        seen["check"] = checked.structured_content
        uri = checked.structured_content["listings"]["add_f4@sm_90a"]["sass"]
        seen["sass"] = (await client.read_resource(uri)).contents[0].text
        ptx = checked.structured_content["listings"]["add_f4@sm_90a"]["ptx"]
        seen["ptx"] = (await client.read_resource(ptx)).contents[0].text
        seen["kernels"] = (
            await client.call_tool("kernels", {"path": "vecadd.cu"})
        ).structured_content
        checks = [
            {"assert": "assert_no_spills"},
            {"assert": "assert_count", "args": ["LDG.E.128*", 2]},
        ]
        asked = {"path": "vecadd.cu", "kernel": "add_f4", "checks": checks}
        seen["pass"] = (await client.call_tool("assert", asked)).structured_content
        asked = {**asked, "kernel": "add_scalar"}
        seen["fail"] = (await client.call_tool("assert", asked)).structured_content
        seen["explain"] = (
            await client.call_tool("explain", {"opcode": "LDG.E.128"})
        ).structured_content
        diffed = await client.call_tool(
            "diff", {"a": "vecadd.cu?-maxrregcount=16", "b": "vecadd.cu", "kernel": "add_f4"}
        )
        seen["diff"] = diffed.structured_content
        seen["try"] = (await client.call_tool("try", {"path": "vecadd.cu"})).structured_content
        source = "__global__ void twice(float* x) { x[threadIdx.x] *= 2.f; }\n"
        seen["source"] = (await client.call_tool("check", {"source": source})).structured_content

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    _session(tmp_path, script, env={"TMPDIR": str(scratch)})
    assert {"check", "kernels", "explain", "diff", "try", "assert"} <= seen["tools"]
    check = seen["check"]
    assert check["schema_version"] == check["document"]["schema_version"] >= 3
    assert "add_f4@sm_90a: LDG128-OK line 7" in check["verdicts"]
    assert "add_scalar@sm_90a: LDG128-FAIL line 14 32-bit" in check["verdicts"]
    assert "LDG.E.128" in seen["sass"] and "vecadd.cu:7" in seen["sass"]
    assert ".entry add_f4" in seen["ptx"]
    names = {k["name"] for k in seen["kernels"]["kernels"]}
    assert names == {"add_f4", "add_scalar"}
    assert seen["pass"]["passed"] is True
    failed = seen["fail"]
    assert failed["passed"] is False
    assert "0 instructions match 'LDG.E.128*'" in failed["results"][1]["evidence"]
    assert seen["explain"]["opcode"]["opcode"] == "LDG"
    assert seen["diff"]["kernel"] == "add_f4" and "same_sass" in seen["diff"]
    assert "trials" in seen["try"]
    program = seen["source"]["document"]["programs"][0]
    assert program["source"] == "<source>"  # written to a scratch dir of the server's own,
    assert "twice(float*)" in {k["display_name"] for k in program["kernels"]}
    assert list(scratch.glob("sassview-mcp-*")) == []  # and removed after the call


def test_paths_outside_the_roots_and_unsafe_values_are_refused(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.cu").write_text(VECADD.read_text())
    (root / "link.cu").symlink_to(outside / "secret.cu")
    (root / "ok.cu").write_text(VECADD.read_text())
    marker = tmp_path / "PWNED"
    errors: dict[str, str] = {}

    async def script(client: Client) -> None:
        asks = {
            "absolute": {"path": str(outside / "secret.cu")},
            "dotdot": {"path": "../outside/secret.cu"},
            "symlink": {"path": "link.cu"},
            "missing": {"path": "nope.cu"},
            "ccbin": {"path": "ok.cu", "options": [f"-ccbin={marker}"]},
            "output": {"path": "ok.cu", "options": [f"-o={marker}"]},
            "include": {"path": "ok.cu", "include_dirs": [str(outside)]},
            "define": {"path": "ok.cu", "defines": ["A=1\nB"]},
            "both": {"path": "ok.cu", "source": "__global__ void k() {}"},
            "arch": {"path": "ok.cu", "arch": ["--help"]},
            "toolchain": {"path": "ok.cu", "toolchain": "--wheels=/tmp"},
        }
        for name, args in asks.items():
            errors[name] = _error(await client.call_tool("check", args))
        diffed = await client.call_tool("diff", {"a": "ok.cu?-ccbin=/bin/sh", "b": "ok.cu"})
        errors["diff"] = _error(diffed)

    _session(root, script)
    for name in ("absolute", "dotdot", "symlink", "include"):
        assert "outside the roots" in errors[name], errors[name]
    assert "does not exist" in errors["missing"]
    for name in ("ccbin", "output", "diff"):
        assert "not one this server passes on" in errors[name], errors[name]
    assert "NAME or NAME=VALUE" in errors["define"]
    assert "exactly one of path and source" in errors["both"]
    assert "not an architecture" in errors["arch"]
    assert "a release, e.g. 12.9" in errors["toolchain"]
    assert not marker.exists()


def test_the_clients_roots_replace_the_servers(tmp_path: Path) -> None:
    server_root, client_root = tmp_path / "server", tmp_path / "client"
    for d in (server_root, client_root):
        d.mkdir()
        (d / "k.cu").write_text(VECADD.read_text())
    got: dict[str, Any] = {}

    async def script(client: Client) -> None:
        got["server"] = await client.call_tool("kernels", {"path": str(server_root / "k.cu")})
        got["client"] = await client.call_tool("kernels", {"path": str(client_root / "no.cu")})

    _session(server_root, script, client_roots=[client_root])
    assert "outside the roots" in _error(got["server"])
    assert "does not exist" in _error(got["client"])  # under the client's root: looked for


def test_a_call_past_its_deadline_is_stopped_and_the_server_lives_on(tmp_path: Path) -> None:
    (tmp_path / "kernel.py").write_text("while True:\n    pass\n")  # never finishes importing
    got: dict[str, Any] = {}

    async def script(client: Client) -> None:
        got["stuck"] = await client.call_tool("check", {"path": "kernel.py"})
        got["after"] = (await client.call_tool("explain", {})).structured_content

    _session(tmp_path, script, extra=("--timeout", "3"))
    assert "took longer than 3 s and was stopped" in _error(got["stuck"])
    assert "spill" in got["after"]["findings"]


def test_verdicts_say_what_was_asked_and_what_was_got() -> None:
    def loop(**kw: Any) -> dict[str, Any]:
        return {"statement": True, "source_line": 9, "requested_factor": None, **kw}

    kernel = {
        "resources": {"registers": 40},
        "annotations": [{"severity": "warning", "kind": "spill", "source": ["/k.cu:12"]}],
        "analysis": {
            "loops": [
                loop(kind="rolled", factor=4, requested_factor=4),
                loop(kind="rolled", factor=1, requested_factor=4),
                loop(kind="full", copies=8),
                loop(kind="full", copies=None),
                loop(kind="rolled", factor=None),
            ],
            "memory_use": {"global_accesses": [
                {"source_line": 12, "direction": "load", "bits": 32},
                {"source_line": 12, "direction": "load", "bits": 128},
                {"source_line": 13, "direction": "store", "bits": 64},
            ]},
            "spills": True, "spill_store_bytes": 8, "spill_load_bytes": 8,
            "tensor_core_path": "wgmma",
        },
    }  # fmt: skip
    assert kernel_verdicts(kernel) == [
        "REGISTERS 40",
        "UNROLL-OK line 9 x4",
        "UNROLL-FAIL line 9 x1 (asked 4)",
        "UNROLL line 9 full 8 copies",
        "UNROLL line 9 full, copies unknown",
        "UNROLL line 9 factor unknown",
        "LDG128-OK line 12",
        "STG128-FAIL line 13 64-bit",
        "SPILLS-FAIL 16 B",
        "TENSOR-CORES wgmma",
        "FINDING warning spill line 12",
    ]


def test_every_finding_kind_an_analysis_gives_is_explained() -> None:
    """Each `Annotation(kind, ...)` literal in sassview/ has its line in explain.FINDINGS."""
    kinds = set()
    for path in (Path(__file__).parent.parent / "sassview").rglob("*.py"):
        text = path.read_text()
        if "Annotation(" not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            func = getattr(node, "func", None)
            if (
                not isinstance(node, ast.Call)
                or getattr(func, "id", getattr(func, "attr", "")) != "Annotation"
            ):
                continue
            given = [*node.args[:1], *(k.value for k in node.keywords if k.arg == "kind")]
            kinds |= {g.value for g in given if isinstance(g, ast.Constant)}
    assert kinds and kinds <= set(FINDINGS), kinds - set(FINDINGS)
    assert json.dumps(FINDINGS)  # plain data, as the tool returns it


def test_the_check_and_assert_tools_say_each_hints_standing(tmp_path: Path) -> None:
    """A knob a hint names reads through the MCP tools as check says it (steer/standing.py,
    issue #33 item 4): untried; with try_hints, tried (here PAD=1 moves the conflict to line
    18, so not a fix); an assertion's evidence quotes the hint with its standing."""
    diag = Path(__file__).parent / "data" / "try" / "transpose_diag_pad.cu"
    (tmp_path / "diag.cu").write_text(diag.read_text())
    seen: dict[str, Any] = {}

    async def script(client: Client) -> None:
        target = {"path": "diag.cu", "arch": ["sm_90a"]}
        seen["untried"] = (await client.call_tool("check", target)).structured_content
        tried = await client.call_tool("check", {**target, "try_hints": True})
        seen["tried"] = tried.structured_content
        asked = {**target, "checks": [{"assert": "assert_no_bank_conflicts"}]}
        seen["assert"] = (await client.call_tool("assert", asked)).structured_content

    _session(tmp_path, script)
    assert (
        "FINDING note bank-conflict line 17 [untried: `sassview try` (or `check --try`) "
        "compiles PAD=1 (pads tile's rows)]"
    ) in seen["untried"]["verdicts"]
    assert (
        "FINDING note bank-conflict line 17 [not a fix: tried PAD=1 (pads tile's rows), "
        "the finding moved to line 18]"
    ) in seen["tried"]["verdicts"]
    (result,) = seen["assert"]["results"]
    assert result["passed"] is False
    assert "[untried: `sassview try` (or `check --try`) compiles PAD=1" in result["evidence"]
