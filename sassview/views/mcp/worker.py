"""What an MCP child computes with the Python API: `python -m sassview.views.mcp.worker`.

One JSON request on stdin, one JSON reply on stdout, in a child the server started with a
deadline (child.py). A kernel.py's own output is kept off stdout (user_output_to_stderr), so
the reply stays one document. Requests:

    {"op": "kernels", "target": {...}}                  the kernels and their architectures
    {"op": "listing", "target": {...}, "which": "sass"} one kernel's SASS or PTX listing
    {"op": "assert", "target": {...}, "checks": [...]}  the pytest matchers, each -> pass/fail

`target` is a requests.Target already checked by the server (paths under the roots).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from sassview.errors import InputError, SassviewError

# The assertions a client may call: KernelUnderTest's, by name (sassview.testing.matchers).
ASSERTIONS = (
    "assert_no_spills", "assert_max_registers", "assert_uses", "assert_does_not_use",
    "assert_unrolled", "assert_load_width", "assert_store_width", "assert_coalesced",
    "assert_sectors", "assert_no_bank_conflicts", "assert_count", "assert_occupancy",
    "assert_stall_cycles", "filecheck",
)  # fmt: skip


def _inspections(target: Mapping[str, Any]) -> list[Any]:
    """The target's inspections, each hint's standing as `check` says it without --try
    (steer/standing.py): an assertion's failure quotes the hint as check words it."""
    from pathlib import Path

    from sassview.api import AS_GIVEN, BuildOptions, inspect
    from sassview.steer.standing import decide_file

    build = BuildOptions.of(
        AS_GIVEN,
        defines=target.get("defines") or (),
        include_dirs=target.get("include_dirs") or (),
        options=target.get("options") or (),
        compiler=target.get("compiler") or "auto",
        instantiate=target.get("instantiate") or (),
        toolchain=target.get("toolchain"),
    )
    path = Path(target["file"])
    arch = list(target.get("arch") or []) or None
    found = inspect(path, arch=arch, kernel=target.get("kernel"), build=build)
    return decide_file(path, found, build, run_trials=False)


def kernels(target: Mapping[str, Any]) -> dict[str, Any]:
    found = [
        {"name": i.kernel.name, "display_name": i.kernel.display_name, "arch": i.arch,
         "variant": i.program.artifacts.label or None}
        for i in _inspections(target)
    ]  # fmt: skip
    return {"kernels": found}


def listing(target: Mapping[str, Any], which: str) -> dict[str, Any]:
    from sassview.report.listing import ptx_listing, sass_listing

    inspections = _inspections(target)
    if len(inspections) != 1:
        names = ", ".join(sorted({f"{i.kernel.display_name}@{i.arch}" for i in inspections}))
        raise InputError(
            f"{len(inspections)} kernels match; a listing is of one ({names})",
            "name one with `kernel` (and one `arch`)",
        )
    insp = inspections[0]
    if which == "ptx":
        text = ptx_listing(insp.program, insp.kernel)[0]
    else:
        text = str(sass_listing(insp.kernel, addresses=True, source=True))
    return {"kernel": insp.kernel.display_name, "arch": insp.arch, "text": text}


def run_checks(target: Mapping[str, Any], checks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Each check `{"assert": NAME, "args": [...], "kwargs": {...}}` on each kernel in scope."""
    from sassview.testing.matchers import KernelUnderTest

    results = []
    for insp in _inspections(target):
        subject = KernelUnderTest(insp)
        for check in checks:
            name = check.get("assert", "")
            if name not in ASSERTIONS:
                raise InputError(f"no assertion {name!r}", "one of " + ", ".join(ASSERTIONS))
            args = [_scope(a) for a in check.get("args", [])]
            kwargs = {k: _scope(v) for k, v in (check.get("kwargs") or {}).items()}
            result = {"kernel": insp.kernel.display_name, "arch": insp.arch, "assert": name}
            try:
                getattr(subject, name)(*args, **kwargs)
            except AssertionError as failed:
                results.append({**result, "passed": False, "evidence": str(failed)})
            except TypeError as wrong:  # the call's arguments, not the kernel
                raise InputError(
                    f"{name}: {wrong}", "see docs/pytest.md for its arguments"
                ) from None
            else:
                results.append({**result, "passed": True, "evidence": ""})
    return {"passed": all(r["passed"] for r in results), "results": results}


def _scope(value: Any) -> Any:
    """JSON has no tuples: `lines=[10, 14]` is the inclusive range the matchers take."""
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return (value[0], value[1])
    return value


def answer(request: Mapping[str, Any]) -> dict[str, Any]:
    op, target = request.get("op"), request.get("target") or {}
    if op == "kernels":
        return kernels(target)
    if op == "listing":
        return listing(target, request.get("which", "sass"))
    if op == "assert":
        return run_checks(target, request.get("checks") or [])
    raise InputError(f"no worker operation {op!r}", "kernels, listing or assert")


def main() -> None:
    from sassview.views.user_output import user_output_to_stderr

    request = json.loads(sys.stdin.read())
    try:
        with user_output_to_stderr():
            reply = answer(request)
    except SassviewError as exc:
        reply = {"error": exc.message, "hint": exc.hint, "detail": exc.detail}
    sys.stdout.write(json.dumps(reply))


if __name__ == "__main__":
    main()
