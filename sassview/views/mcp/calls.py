"""Each MCP tool's work, as a plain function of checked values: run sassview in a child, read
its answer. No MCP here (server.py registers these), so each is tested and reused alone.

`check`, `diff` and `try` run the CLI itself with `--json`, so an agent reads the very
documents a person's `--json` gives (docs/json.md); `kernels`, `listing` and `assert` run the
worker (worker.py) on the Python API.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from sassview.errors import InputError, SassviewError
from sassview.views.mcp.child import Done, error_of, run_sassview
from sassview.views.mcp.confine import Roots
from sassview.views.mcp.requests import Target, file_of, safe_option
from sassview.views.mcp.verdicts import verdicts

SOURCE = "<source>"  # what a document calls source text, in place of its scratch file


def check(target: Target, *, timeout: float, try_hints: bool = False) -> dict[str, Any]:
    """`sassview check --json` on the target: the document, its verdicts, the child's notes.
    `try_hints`: `check --try`, each knob a hint names compiled before it is offered."""
    with file_of(target) as (file, scratch):
        args = ["check", "--json", *target.build_args(), *(["--try"] if try_hints else [])]
        args += [f"--kernel={target.kernel}"] if target.kernel else []
        args += [f"--block={target.block}"] if target.block else []
        done = run_sassview([*args, "--", str(file)], timeout=timeout, cwd=str(file.parent))
        document = _json_of(done, "check", ok=(0, 1))
        if scratch is not None:
            document = _renamed(document, str(file), SOURCE)
    return {
        "schema_version": document.get("schema_version"),
        "verdicts": verdicts(document),
        "notes": _notes(done),
        "document": document,
    }


def worker(op: str, target: Target, *, timeout: float, **request: Any) -> dict[str, Any]:
    """One worker request (kernels, listing, assert) on the target."""
    with file_of(target) as (file, scratch):
        payload = {"op": op, "target": {**asdict(target), "file": str(file)}, **request}
        done = run_sassview(
            [], timeout=timeout, cwd=str(file.parent), stdin=json.dumps(payload),
            module="sassview.views.mcp.worker",
        )  # fmt: skip
        reply = _json_of(done, op, ok=(0,))
        if "error" in reply:
            raise SassviewError(
                reply["error"], reply.get("hint", ""), detail=reply.get("detail", "")
            )
        if scratch is not None:
            reply = _renamed(reply, str(file), SOURCE)
    return reply


def diff_specs(a: str, b: str, roots: Roots) -> tuple[str, str]:
    """Two `PATH[@ARCH][?KEY=VALUE&...]` sides with their paths under the roots and their
    option keys (`?-maxrregcount=32`) limited as -X options are."""
    from sassview.steer.diff import parse_spec

    sides = []
    for text in (a, b):
        spec = parse_spec(text)
        for key, value in spec.variant.items():
            if key.startswith("-") and not safe_option(f"{key}={value}"):
                raise InputError(
                    f"{text}: option {key}={value} is not one this server passes on",
                    "options that change code generation only (docs/mcp.md)",
                )
        sides.append(str(replace(spec, path=roots.file(str(spec.path), what="diff side"))))
    return sides[0], sides[1]


def diff(a: str, b: str, *, arch: str | None, kernel: str | None, ptx: bool,
         timeout: float) -> dict[str, Any]:  # fmt: skip
    args = ["diff", "--json", *([f"--arch={arch}"] if arch else [])]
    args += [f"--kernel={kernel}"] if kernel else []
    args += ["--ptx"] if ptx else []
    done = run_sassview([*args, "--", a, b], timeout=timeout, cwd=str(Path(a.split("?")[0]).parent))
    return {**_json_of(done, "diff", ok=(0, 1)), "notes": _notes(done)}


def try_knobs(target: Target, *, timeout: float) -> dict[str, Any]:
    if target.path is None:
        raise InputError("try needs a file", "pass `path` (a .cu or kernel.py under the roots)")
    args = ["try", "--json", *target.build_args()]
    args += [f"--kernel={target.kernel}"] if target.kernel else []
    done = run_sassview(
        [*args, "--", target.path], timeout=timeout, cwd=str(Path(target.path).parent)
    )
    return {**_json_of(done, "try", ok=(0,)), "notes": _notes(done)}


def _json_of(done: Done, what: str, *, ok: Sequence[int]) -> dict[str, Any]:
    if done.returncode not in ok:
        raise error_of(done, what)
    try:
        value = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise error_of(done, f"{what} printed no JSON document;") from None
    if not isinstance(value, dict):
        raise SassviewError(f"{what} printed {type(value).__name__}, not a JSON object")
    return value


def _notes(done: Done) -> list[str]:
    """The child's notes and warnings on stderr (progress lines left out)."""
    return [line for line in done.stderr.splitlines() if line and not line.startswith("sassview:")]


def _renamed(value: Any, old: str, new: str) -> Any:
    """`value` with every string naming the scratch file naming `new` instead."""
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, list):
        return [_renamed(v, old, new) for v in value]
    if isinstance(value, Mapping):
        return {k: _renamed(v, old, new) for k, v in value.items()}
    return value
