"""The MCP server: sassview's tools and listings for agents, over stdio (or streamable HTTP
on the loopback). Each tool checks its values (requests.py), confines its paths to the roots
(confine.py) and hands the work to a child with a deadline (calls.py, child.py); here are
only the MCP shapes: names, argument types, descriptions, the roots resolver, the resources.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.resolve import ListRoots, Resolve
from mcp_types import ListRootsResult

from sassview import __version__
from sassview.errors import SassviewError
from sassview.views.mcp import calls
from sassview.views.mcp.confine import Roots, roots_from_uris
from sassview.views.mcp.explain import explain as explain_kinds
from sassview.views.mcp.requests import Target

_T = TypeVar("_T")
INSTRUCTIONS = """sassview compiles CUDA C++ (and kernel.py files: Triton, CuTe DSL) without a
GPU and says what the compiler made of each kernel: registers, spills, loop unrolling, load
widths, coalescing, bank conflicts, tensor cores, occupancy, ptxas' schedule. Start with
`check` (a path under your roots, or CUDA C++ `source` text); read `verdicts` first, the
`document` (sassview check --json, docs/json.md) for detail; `listings` name each kernel's
SASS and PTX resources. `explain` says what a finding kind or an opcode means."""


def _client_roots(ctx: Context) -> Any:
    """Ask the client for its roots when it has them; None: it has none (use the server's)."""
    caps = ctx.client_capabilities
    return ListRoots() if caps is not None and caps.roots is not None else None


ClientRoots = Annotated[ListRootsResult | None, Resolve(_client_roots)]


class Server:
    """The tools' shared state: the server's own roots, the deadline, the listings handed out."""

    def __init__(self, roots: Sequence[Path], timeout: float) -> None:
        self.roots = Roots(roots)
        self.timeout = timeout
        self.listings: dict[str, Target] = {}  # handle -> one kernel on one arch

    def roots_for(self, client: ListRootsResult | None) -> Roots:
        if client is not None and client.roots:
            return Roots(roots_from_uris(str(r.uri) for r in client.roots))
        return self.roots

    async def run(self, work: Callable[[], _T]) -> _T:
        """`work` in a thread (it waits on a child); a SassviewError becomes the tool's error."""
        try:
            return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
        except SassviewError as exc:
            raise ToolError(_said(exc)) from None

    def handle(self, target: Target, kernel: str, arch: str) -> dict[str, str]:
        """URIs of one kernel's SASS and PTX listings (resources), remembered for this session."""
        one = replace(target, kernel=kernel, arch=(arch,))
        key = hashlib.sha256(json.dumps(asdict(one), default=list).encode()).hexdigest()[:16]
        self.listings[key] = one
        return {w: f"sassview://listing/{key}/{w}" for w in ("sass", "ptx")}


def _said(exc: SassviewError) -> str:
    text = exc.message + (f"\n{exc.detail.rstrip()}" if exc.detail else "")
    return text + (f"\nhint: {exc.hint}" if exc.hint else "")


def build(roots: Sequence[Path], timeout: float) -> MCPServer:
    """The MCPServer with every tool and resource registered."""
    state = Server(roots, timeout)
    app: MCPServer = MCPServer(
        "sassview", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )
    _register_check(app, state)
    _register_reading(app, state)
    _register_steering(app, state)
    return app


def _target(state: Server, roots: ListRootsResult | None, **given: Any) -> Target:
    try:
        values: dict[str, Any] = {
            k: tuple(v) if isinstance(v, list) else v for k, v in given.items()
        }
        return Target(**values).checked(state.roots_for(roots))
    except SassviewError as exc:
        raise ToolError(_said(exc)) from None


def _register_check(app: MCPServer, state: Server) -> None:
    @app.tool()
    async def check(
        path: str | None = None,
        source: str | None = None,
        arch: list[str] | None = None,
        kernel: str | None = None,
        defines: list[str] | None = None,
        include_dirs: list[str] | None = None,
        options: list[str] | None = None,
        block: str | None = None,
        compiler: Literal["auto", "nvrtc", "nvcc"] = "auto",
        toolchain: str | None = None,
        try_hints: bool = False,
        roots: ClientRoots = None,
    ) -> dict[str, Any]:
        """Compile a file under the roots (.cu/.cuh, kernel.py, .ptx, .cubin) or CUDA C++
        `source` text, and say what the compiler made of each kernel: `verdicts` (one line a
        fact: UNROLL-OK line 9 x4, LDG128-FAIL line 12 32-bit, SPILLS-OK, ...), `document` (the
        `sassview check --json` document, its schema_version), `listings` (resource URIs of
        each kernel's SASS and PTX). arch: e.g. ["sm_80", "sm_90a"] (default sm_90a);
        defines: ["TILE=128"]; options: code-generation options only (-maxrregcount=32, -O3);
        block: the launch's block shape for memory use and occupancy, e.g. "16x16";
        toolchain: a CUDA release `sassview toolchain add` stored ("12.9");
        try_hints: compile each knob a finding's hint names first (`check --try`, one cached
        compile per knob), so a knob that did not help reads "not a fix" (else "untried")."""
        target = _target(
            state, roots, path=path, source=source, arch=arch or (), kernel=kernel,
            defines=defines or (), include_dirs=include_dirs or (), options=options or (),
            block=block, compiler=compiler, toolchain=toolchain,
        )  # fmt: skip
        work = partial(calls.check, target, timeout=state.timeout, try_hints=try_hints)
        result = await state.run(work)
        listings = {}
        for program in result["document"].get("programs", []):
            for k in program.get("kernels", []):
                name = f"{k['display_name']}@{k['arch']}"
                listings[name] = state.handle(target, k["name"], k["arch"])
        return {**result, "listings": listings}


def _register_reading(app: MCPServer, state: Server) -> None:
    @app.tool()
    async def kernels(
        path: str | None = None,
        source: str | None = None,
        arch: list[str] | None = None,
        defines: list[str] | None = None,
        include_dirs: list[str] | None = None,
        roots: ClientRoots = None,
    ) -> dict[str, Any]:
        """The kernels a file (or CUDA C++ source text) holds, per architecture: mangled and
        demangled names, the variant label of a kernel.py's declarations."""
        target = _target(
            state, roots, path=path, source=source, arch=arch or (), defines=defines or (),
            include_dirs=include_dirs or (),
        )  # fmt: skip
        reply = await state.run(partial(calls.worker, "kernels", target, timeout=state.timeout))
        for k in reply["kernels"]:
            k["listings"] = state.handle(target, k["name"], k["arch"])
        return reply

    @app.tool()
    async def explain(finding: str | None = None, opcode: str | None = None) -> dict[str, Any]:
        """What a finding kind means (`uncoalesced`, `merge-candidate`, `spill`, ...; none
        given: the list of kinds) and which docs section says how it is found; an opcode with
        its modifiers in words (`LDG.E.128.CONSTANT`, `HGMMA.64x128x16.F32.BF16`)."""
        try:
            return explain_kinds(finding, opcode)
        except SassviewError as exc:
            raise ToolError(_said(exc)) from None

    @app.resource("sassview://listing/{handle}/{which}", mime_type="text/plain")
    async def listing(handle: str, which: str) -> str:
        """One kernel's SASS (with addresses and source lines) or PTX, as a check named it."""
        target = state.listings.get(handle)
        if target is None or which not in ("sass", "ptx"):
            raise ResourceError(f"no listing {handle}/{which}: run check or kernels first")
        try:
            reply = await anyio.to_thread.run_sync(
                partial(calls.worker, "listing", target, timeout=state.timeout, which=which)
            )
        except SassviewError as exc:
            raise ResourceError(_said(exc)) from None
        return str(reply["text"])


def _register_steering(app: MCPServer, state: Server) -> None:
    @app.tool()
    async def diff(
        a: str,
        b: str,
        arch: str | None = None,
        kernel: str | None = None,
        ptx: bool = False,
        roots: ClientRoots = None,
    ) -> dict[str, Any]:
        """Compare two compiles: each side PATH[@ARCH][?KEY=VALUE&...], e.g.
        "gemm.cu?TILE=64" and "gemm.cu?TILE=128", "k.cu@sm_80" and "k.cu@sm_90a". Registers
        renamed and addresses dropped, so only real changes show (`sassview diff --json`)."""
        try:
            sa, sb = calls.diff_specs(a, b, state.roots_for(roots))
        except SassviewError as exc:
            raise ToolError(_said(exc)) from None
        work = partial(calls.diff, sa, sb, arch=arch, kernel=kernel, ptx=ptx,
                       timeout=state.timeout)  # fmt: skip
        return await state.run(work)

    @app.tool(name="try")
    async def try_(
        path: str,
        arch: list[str] | None = None,
        kernel: str | None = None,
        roots: ClientRoots = None,
    ) -> dict[str, Any]:
        """Apply each finding's knob that needs no source edit (a compiler option, a Triton
        option, an `a` architecture), recompile, and say whether the finding went away and
        what else changed (`sassview try --json`)."""
        target = _target(state, roots, path=path, arch=arch or (), kernel=kernel)
        return await state.run(partial(calls.try_knobs, target, timeout=state.timeout))

    @app.tool(name="assert")
    async def assert_(
        checks: list[dict[str, Any]],
        path: str | None = None,
        source: str | None = None,
        arch: list[str] | None = None,
        kernel: str | None = None,
        defines: list[str] | None = None,
        roots: ClientRoots = None,
    ) -> dict[str, Any]:
        """The pytest plugin's assertions (docs/pytest.md) on each kernel in scope, each
        {"assert": NAME, "args": [...], "kwargs": {...}}: e.g. {"assert": "assert_count",
        "args": ["LDG.E.128*", 2]}, {"assert": "assert_unrolled", "kwargs": {"line": 9,
        "factor": 4}}, {"assert": "assert_no_spills"}, {"assert": "filecheck", "args":
        ["CHECK: HGMMA"]}. Each result: passed, and the failure's evidence."""
        target = _target(
            state, roots, path=path, source=source, arch=arch or (), kernel=kernel,
            defines=defines or (),
        )  # fmt: skip
        work = partial(calls.worker, "assert", target, timeout=state.timeout, checks=checks)
        return await state.run(work)


def serve(roots: Sequence[Path], timeout: float, http_port: int | None) -> None:
    """Serve until the client goes (stdio) or the process is stopped (HTTP on 127.0.0.1)."""
    from sassview.views.mcp.child import kill_all

    app = build(roots, timeout)
    try:
        if http_port is None:
            app.run()
        else:
            app.run("streamable-http", host="127.0.0.1", port=http_port)
    finally:
        kill_all()
