"""Run nvdisasm on a whole cubin: the JSON form and the text form, side by side.

Each nvdisasm start costs ~0.3 s, so it is never run per kernel. Two runs are needed because
the JSON lacks the inline chain (`-gi`) and the PTX line (`-gp`) of each instruction; they run in
parallel, so the second costs little wall time (benchmarks/ measures it). Results are cached by
the cubin's bytes and nvdisasm's version.
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

from sassview import cache
from sassview.errors import ToolFailed
from sassview.toolchain.locate import nvdisasm, nvdisasm_version
from sassview.toolchain.run import RunningTool, finish_tool, run_tool, start_tool

log = logging.getLogger("sassview")

JSON_ARGS = ("-c", "-json", "-g", "-annotate")
TEXT_ARGS = ("-c", "-gi", "-gp")
_HINT = "the cubin may come from a newer CUDA than this nvdisasm: upgrade nvidia-cuda-nvdisasm"


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
    key = cache.make_key({"tool": "nvdisasm", "version": version, "cubin": cache.digest(cubin)})
    store = cache.Store("nvdisasm")
    entry = store.get(key)
    if entry is not None:
        log.info("nvdisasm: cache hit (%d-byte cubin)", len(cubin))
        done = Disassembly(entry.read_text("sass.json"), entry.read_text("sass.txt"), version)
        yield lambda: done
        return
    started = time.perf_counter()
    tool = nvdisasm()
    fd, path = tempfile.mkstemp(suffix=".cubin", prefix="sassview-")
    tools: list[RunningTool] = []
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(cubin)
        tools.append(start_tool([tool, *JSON_ARGS, path], what="nvdisasm -json"))
        tools.append(start_tool([tool, *TEXT_ARGS, path], what="nvdisasm"))

        def wait() -> Disassembly:
            json_tool, text_tool = tools
            text = finish_tool(text_tool, what="nvdisasm", hint=_HINT)
            try:
                json_text = finish_tool(json_tool, what="nvdisasm -json", hint=_HINT)
            except ToolFailed as exc:
                if "annotate" not in exc.output:
                    raise
                # nvdisasm before 13.5 has no -annotate: no SpillRefill marks, the rest is there.
                plain = [a for a in JSON_ARGS if a != "-annotate"]
                json_text = run_tool([tool, *plain, path], what="nvdisasm -json", hint=_HINT)
            log.info(
                "nvdisasm: disassembled a %d-byte cubin in %.2f s",
                len(cubin),
                time.perf_counter() - started,
            )
            store.put(key, {"sass.json": json_text, "sass.txt": text}, {"nvdisasm": version})
            return Disassembly(json_text, text, version)

        yield functools.cache(wait)
    finally:
        for running in tools:
            running.close()
        with contextlib.suppress(OSError):
            os.unlink(path)
