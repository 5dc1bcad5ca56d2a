"""Run nvdisasm on a whole cubin: the text form, and the JSON form where it can say more.

Each nvdisasm start costs ~0.3-0.5 s of CPU, so it is never run per kernel. The text form
(`-c -gi -gp`) carries everything the model needs but one thing: nvdisasm's spill marks
(SpillRefill), which only `-json -annotate` prints (`-annotate` is refused without `-json`,
and the JSON ignores `-gi`/`-gp`: nvdisasm 13.5, checked). So the JSON pass runs, beside the
text pass, only where the caller says spill marks are possible (`marks=True`, the default:
build.py passes False when no function of the cubin has a stack frame or local memory and the
PTX asks for no shared-memory spilling, the only places ptxas puts a spill). Results are cached
by the cubin's bytes, nvdisasm's version and which forms were asked for, and only once they
look like nvdisasm's listings (JSON of the right layout, a text listing naming the same
functions, both of a bounded size): a tool that prints garbage fails this run instead of
poisoning every later one.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from sassview import cache
from sassview.cache.get_or_build import Said, keep, lookup, text_of
from sassview.disasm.forms import spill_marks_possible
from sassview.errors import ParseError, ToolFailed
from sassview.parse.sass_json import load_listing_json
from sassview.toolchain.locate import nvdisasm, nvdisasm_identity, nvdisasm_version
from sassview.toolchain.run import (
    RunningTool,
    finish_tool,
    output_limit,
    run_tool,
    start_tool,
    stops_held,
    tool_timeout,
)

log = logging.getLogger("sassview")

JSON_ARGS = ("-c", "-json", "-g", "-annotate")
TEXT_ARGS = ("-c", "-gi", "-gp")
_HINT = "the cubin may come from a newer CUDA than this nvdisasm: upgrade nvidia-cuda-nvdisasm"
_NOT_NVDISASM = "is SASSVIEW_NVDISASM pointing at nvdisasm itself? unset it to use the wheel's"
CHECKED = 1  # in the key: entries written before listings were checked are never read


class _Bounds(NamedTuple):
    timeout: float  # seconds each nvdisasm run may take
    max_output: int  # bytes it may print


@dataclass(frozen=True, slots=True)
class Disassembly:
    json: str  # "" where it was not asked for (no spill marks possible)
    text: str
    nvdisasm_version: str


def disassemble(cubin: bytes, ptx: str = "", *, json: bool | None = None) -> Disassembly:
    with disassembling(cubin, ptx, json=json) as listings:
        return listings()


@contextlib.contextmanager
def disassembling(
    cubin: bytes, ptx: str = "", *, json: bool | None = None
) -> Iterator[Callable[[], Disassembly]]:
    """Start nvdisasm on `cubin` (or find its listings in the cache) and yield at once a
    function that waits for them: the caller can read the ELF and parse the PTX meanwhile.
    Where no spill can be marked (forms.py; `ptx`: the PTX the cubin was built from, if at
    hand) only the text form is made: one nvdisasm run, not two. Leaving the block stops
    whatever still runs and removes the temporary cubin. `json` True or False decides it
    instead (recorders of test data want both forms)."""
    marks = spill_marks_possible(cubin, ptx) if json is None else json
    version = nvdisasm_version()
    fields = {
        "tool": "nvdisasm",
        "version": version,
        "identity": nvdisasm_identity(),  # not its word: a wrapper may say any version
        "cubin": cache.digest(cubin),
    }
    if not marks:  # the keys of both forms stay those written before text-only entries
        fields["forms"] = "text"
    key = cache.make_key({**fields, "checked": CHECKED})
    store = cache.Store("nvdisasm")
    said = Said(log, "nvdisasm", f"a {len(cubin)}-byte cubin", verb="disassembled")
    found = lookup(store, key, ("sass.json", "sass.txt") if marks else ("sass.txt",), said)
    if found is not None:
        json_text = text_of(found["sass.json"]) if marks else ""
        done = Disassembly(json_text, text_of(found["sass.txt"]), version)
        yield lambda: done
        return
    started, meta = time.perf_counter(), {"nvdisasm": version}
    tool = nvdisasm()
    bounds = _Bounds(tool_timeout(len(cubin)), output_limit(len(cubin)))
    path = ""
    tools: list[RunningTool] = []
    try:
        with stops_held():  # a stop now would leave a file `path` does not name yet
            fd, path = tempfile.mkstemp(suffix=".cubin", prefix="sassview-")
        with os.fdopen(fd, "wb") as handle:
            handle.write(cubin)
        text_tool = start_tool([tool, *TEXT_ARGS, path], what="nvdisasm", into=tools)
        json_tool = None
        if marks:
            json_tool = start_tool([tool, *JSON_ARGS, path], what="nvdisasm -json", into=tools)

        def wait() -> Disassembly:
            text = finish_tool(text_tool, what="nvdisasm", hint=_HINT, **bounds._asdict())
            if json_tool is None:
                check_text_listing(text, [tool, *TEXT_ARGS, path])
                files = {"sass.txt": text}
                keep(store, key, files, said=said, started=started, meta=meta, how=" (text only)")
                return Disassembly("", text, version)
            try:
                json_text = finish_tool(
                    json_tool, what="nvdisasm -json", hint=_HINT, **bounds._asdict()
                )
            except ToolFailed as exc:
                if "annotate" not in exc.output:
                    raise
                # nvdisasm before 13.5 has no -annotate: no SpillRefill marks, the rest is there.
                plain = [tool, *(a for a in JSON_ARGS if a != "-annotate"), path]
                json_text = run_tool(plain, what="nvdisasm -json", hint=_HINT, **bounds._asdict())
            check_listings(json_text, text, [tool, *JSON_ARGS, path])
            both = {"sass.json": json_text, "sass.txt": text}
            keep(store, key, both, said=said, started=started, meta=meta)
            return Disassembly(json_text, text, version)

        yield functools.cache(wait)
    finally:
        cache.release_claim("nvdisasm", key)  # a failed run never put its entry
        for running in tools:
            running.close()
        if path:
            with contextlib.suppress(OSError):
                os.unlink(path)


def check_listings(json_text: str, text: str, command: list[str]) -> None:
    """Raise ToolFailed unless the two outputs look like nvdisasm's listings of one cubin: the
    JSON is [header, [function, ...], ...] and every function it names is in the text listing.
    A shallow check (the parsers read every field later): enough to refuse a tool that prints
    something else, so that nothing but a listing is ever cached."""
    try:  # read as the parser reads it: a non-ASCII file name's octal escapes are nvdisasm's
        doc = load_listing_json(json_text, where="")
    except ParseError as exc:
        raise _garbage(f"its JSON listing is {exc.message}", command, json_text) from None
    shaped = isinstance(doc, list) and len(doc) >= 2 and isinstance(doc[0], dict)
    functions = doc[1] if shaped else None
    if not isinstance(functions, list):
        raise _garbage("its JSON listing is not [header, functions, ...]", command, json_text)
    names = [f.get("function-name") if isinstance(f, dict) else None for f in functions]
    if not all(isinstance(n, str) and n for n in names):
        raise _garbage("its JSON listing has a function without a name", command, json_text)
    missing = [n for n in names if f"{n}:" not in text]
    if missing:
        raise _garbage(
            f"its text listing lacks function {missing[0]} of its JSON listing", command, text
        )


def check_text_listing(text: str, command: list[str]) -> None:
    """Raise ToolFailed unless `text` starts as nvdisasm's text listing does: its header
    (`.target` from ELF ABI 8, `.headerflags` before; `.elftype` in both) before any other
    line. Shallow, as check_listings: the parser reads every line later; a cubin with no
    function has a listing of that header alone."""
    head = [line.strip() for line in text[:4096].splitlines() if line.strip()][:3]
    if not any(line.startswith(_TEXT_HEADERS) for line in head):
        raise _garbage("its text listing names no .target", command, text)


_TEXT_HEADERS = (".target", ".headerflags", ".elftype")


def _garbage(why: str, command: list[str], output: str) -> ToolFailed:
    shown = output[:400] + ("…" if len(output) > 400 else "")
    message = f"nvdisasm printed something that is not a listing: {why}"
    return ToolFailed(message, command, shown, _NOT_NVDISASM)
