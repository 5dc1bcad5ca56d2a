"""`sassview mcp`: serve sassview's tools to an agent over the Model Context Protocol."""

from __future__ import annotations

from pathlib import Path

import click

from sassview.errors import ToolchainError
from sassview.views.fail import fail


@click.command(name="mcp")
@click.option(
    "--root",
    "roots",
    multiple=True,
    type=click.Path(path_type=Path, exists=True, file_okay=False),
    help="A directory the client's paths may lie under (default: the working directory); the "
    "client's own roots take its place when it declares them.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1, max=3600),
    default=600,
    show_default=True,
    help="Seconds one call may take (a compile, a check); then it is stopped.",
)
@click.option(
    "--http",
    "http_port",
    type=click.IntRange(1, 65535),
    help="Serve streamable HTTP on 127.0.0.1:PORT instead of stdio.",
)
def mcp_command(roots: tuple[Path, ...], timeout: float, http_port: int | None) -> None:
    """Serve check, kernels, explain, diff, try and assert, and each kernel's SASS and PTX, to
    an MCP client (an agent) over stdio. Paths stay under the roots; nothing runs in a shell."""
    try:
        from sassview.views.mcp.server import serve
    except ImportError as exc:
        fail(ToolchainError(f"`sassview mcp` needs the MCP SDK ({exc.name} is missing)",
                            "pip install 'sassview[agents]' (or: pip install mcp)"))  # fmt: skip
    serve(list(roots) or [Path.cwd()], timeout, http_port)
