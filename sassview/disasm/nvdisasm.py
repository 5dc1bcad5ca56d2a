"""Run nvdisasm on a whole cubin: the JSON form and the text form, side by side.

Each nvdisasm start costs ~0.3 s, so it is never run per kernel. Two runs are needed because
the JSON lacks the inline chain (`-gi`) and the PTX line (`-gp`) of each instruction; they run in
parallel, so the second costs little wall time (benchmarks/ measures it). Results are cached by
the cubin's bytes and nvdisasm's version.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from dataclasses import dataclass

from sassview import cache
from sassview.errors import ToolFailed
from sassview.toolchain.locate import nvdisasm, nvdisasm_version
from sassview.toolchain.run import finish_tool, run_tool, start_tool

log = logging.getLogger("sassview")

JSON_ARGS = ("-c", "-json", "-g", "-annotate")
TEXT_ARGS = ("-c", "-gi", "-gp")


@dataclass(frozen=True, slots=True)
class Disassembly:
    json: str
    text: str
    nvdisasm_version: str


def disassemble(cubin: bytes) -> Disassembly:
    version = nvdisasm_version()
    key = cache.make_key({"tool": "nvdisasm", "version": version, "cubin": cache.digest(cubin)})
    store = cache.Store("nvdisasm")
    entry = store.get(key)
    if entry is not None:
        log.info("nvdisasm: cache hit (%d-byte cubin)", len(cubin))
        return Disassembly(entry.read_text("sass.json"), entry.read_text("sass.txt"), version)
    tool = nvdisasm()
    started = time.perf_counter()
    hint = "the cubin may come from a newer CUDA than this nvdisasm: upgrade nvidia-cuda-nvdisasm"
    fd, path = tempfile.mkstemp(suffix=".cubin", prefix="sassview-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(cubin)
        json_proc = start_tool([tool, *JSON_ARGS, path])
        text_proc = start_tool([tool, *TEXT_ARGS, path])
        try:
            text = finish_tool(text_proc, what="nvdisasm", hint=hint)
            try:
                json_text = finish_tool(json_proc, what="nvdisasm -json", hint=hint)
            except ToolFailed as exc:
                if "annotate" not in exc.output:
                    raise
                # nvdisasm before 13.5 has no -annotate: no SpillRefill marks, the rest is there.
                plain = [a for a in JSON_ARGS if a != "-annotate"]
                json_text = run_tool([tool, *plain, path], what="nvdisasm -json", hint=hint)
        finally:
            for proc in (json_proc, text_proc):
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
    finally:
        os.unlink(path)
    log.info(
        "nvdisasm: disassembled a %d-byte cubin in %.2f s",
        len(cubin),
        time.perf_counter() - started,
    )
    store.put(key, {"sass.json": json_text, "sass.txt": text}, {"nvdisasm": version})
    return Disassembly(json_text, text, version)
