"""Run nvdisasm on a whole cubin: the JSON form and the text form, side by side.

Each nvdisasm start costs ~0.3 s, so it is never run per kernel. Two runs are needed because
the JSON lacks the inline chain (`-gi`) and the PTX line (`-gp`) of each instruction; they run in
parallel, so the second costs little wall time (benchmarks/ measures it). Results are cached by
the cubin's bytes and nvdisasm's version, and only once they look like nvdisasm's listings (JSON
of the right layout, a text listing naming the same functions, both of a bounded size): a tool
that prints garbage fails this run instead of poisoning every later one.
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
    json: str
    text: str
    nvdisasm_version: str


def disassemble(cubin: bytes) -> Disassembly:
    with disassembling(cubin) as listings:
        return listings()


@contextlib.contextmanager
def disassembling(cubin: bytes) -> Iterator[Callable[[], Disassembly]]:
    """Start nvdisasm on `cubin` (or find its listings in the cache) and yield at once a
    function that waits for them: the caller can read the ELF and parse the PTX meanwhile.
    Leaving the block stops whatever still runs and removes the temporary cubin."""
    version = nvdisasm_version()
    key = cache.make_key(
        {
            "tool": "nvdisasm",
            "version": version,
            "identity": nvdisasm_identity(),  # not its word: a wrapper may say any version
            "cubin": cache.digest(cubin),
            "checked": CHECKED,
        }
    )
    store = cache.Store("nvdisasm")
    entry = store.get(key)
    if entry is not None:
        log.info("nvdisasm: cache hit (%d-byte cubin)", len(cubin))
        done = Disassembly(entry.read_text("sass.json"), entry.read_text("sass.txt"), version)
        yield lambda: done
        return
    started = time.perf_counter()
    tool = nvdisasm()
    bounds = _Bounds(tool_timeout(len(cubin)), output_limit(len(cubin)))
    path = ""
    tools: list[RunningTool] = []
    try:
        with stops_held():  # a stop now would leave a file `path` does not name yet
            fd, path = tempfile.mkstemp(suffix=".cubin", prefix="sassview-")
        with os.fdopen(fd, "wb") as handle:
            handle.write(cubin)
        start_tool([tool, *JSON_ARGS, path], what="nvdisasm -json", into=tools)
        start_tool([tool, *TEXT_ARGS, path], what="nvdisasm", into=tools)

        def wait() -> Disassembly:
            json_tool, text_tool = tools
            text = finish_tool(text_tool, what="nvdisasm", hint=_HINT, **bounds._asdict())
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
            log.info(
                "nvdisasm: disassembled a %d-byte cubin in %.2f s",
                len(cubin),
                time.perf_counter() - started,
            )
            store.put(key, {"sass.json": json_text, "sass.txt": text}, {"nvdisasm": version})
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


def _garbage(why: str, command: list[str], output: str) -> ToolFailed:
    shown = output[:400] + ("…" if len(output) > 400 else "")
    message = f"nvdisasm printed something that is not a listing: {why}"
    return ToolFailed(message, command, shown, _NOT_NVDISASM)
