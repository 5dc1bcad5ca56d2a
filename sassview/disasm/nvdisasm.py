"""Run nvdisasm on a whole cubin: the JSON form and the text form, side by side.

Each nvdisasm start costs ~0.3 s, so it is never run per kernel. Two runs are needed because
the JSON lacks the inline chain (`-gi`) and the PTX line (`-gp`) of each instruction; they run in
parallel, so the second costs little wall time (benchmarks/ measures it). Results are cached by
the cubin's bytes and nvdisasm's version.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import time
from dataclasses import dataclass

from sassview import cache
from sassview.errors import ToolFailed
from sassview.toolchain.locate import nvdisasm, nvdisasm_version
from sassview.toolchain.run import RunningTool, finish_tool, run_tool, start_tool

log = logging.getLogger("sassview")

JSON_ARGS = ("-c", "-json", "-g", "-annotate")
TEXT_ARGS = ("-c", "-gi", "-gp")


@dataclass(frozen=True, slots=True)
class Disassembly:
    json: str
    text: str
    nvdisasm_version: str


def disassemble(cubin: bytes) -> Disassembly:
    with start_disassembly(cubin) as pending:
        return pending.result()


def start_disassembly(cubin: bytes) -> PendingDisassembly:
    """Start nvdisasm on `cubin` (or find its listings in the cache) and return at once: the
    caller can read the ELF and parse the PTX while nvdisasm works. Use it as a context
    manager, so an exception before `result()` stops the tools and removes the temporary file."""
    version = nvdisasm_version()
    key = cache.make_key({"tool": "nvdisasm", "version": version, "cubin": cache.digest(cubin)})
    store = cache.Store("nvdisasm")
    entry = store.get(key)
    if entry is not None:
        log.info("nvdisasm: cache hit (%d-byte cubin)", len(cubin))
        done = Disassembly(entry.read_text("sass.json"), entry.read_text("sass.txt"), version)
        return PendingDisassembly(done=done)
    return PendingDisassembly(cubin=cubin, version=version, store=store, key=key)


_HINT = "the cubin may come from a newer CUDA than this nvdisasm: upgrade nvidia-cuda-nvdisasm"


class PendingDisassembly:
    """The two nvdisasm runs of one cubin, started and not yet waited for."""

    def __init__(
        self,
        *,
        done: Disassembly | None = None,
        cubin: bytes = b"",
        version: str = "",
        store: cache.Store | None = None,
        key: str = "",
    ) -> None:
        self._done = done
        self._version, self._store, self._key = version, store, key
        self._tools: list[RunningTool] = []
        self._path = ""
        if done is not None:
            return
        self._started = time.perf_counter()
        self._size = len(cubin)
        fd, self._path = tempfile.mkstemp(suffix=".cubin", prefix="sassview-")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(cubin)
            tool = nvdisasm()
            self._tool = tool
            self._tools.append(start_tool([tool, *JSON_ARGS, self._path], what="nvdisasm -json"))
            self._tools.append(start_tool([tool, *TEXT_ARGS, self._path], what="nvdisasm"))
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> PendingDisassembly:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def result(self) -> Disassembly:
        """Wait for nvdisasm (if it still runs), cache its listings and return them."""
        if self._done is not None:
            return self._done
        try:
            json_tool, text_tool = self._tools
            text = finish_tool(text_tool, what="nvdisasm", hint=_HINT)
            try:
                json_text = finish_tool(json_tool, what="nvdisasm -json", hint=_HINT)
            except ToolFailed as exc:
                if "annotate" not in exc.output:
                    raise
                # nvdisasm before 13.5 has no -annotate: no SpillRefill marks, the rest is there.
                plain = [a for a in JSON_ARGS if a != "-annotate"]
                json_text = run_tool(
                    [self._tool, *plain, self._path], what="nvdisasm -json", hint=_HINT
                )
        finally:
            self.close()
        log.info(
            "nvdisasm: disassembled a %d-byte cubin in %.2f s",
            self._size,
            time.perf_counter() - self._started,
        )
        assert self._store is not None
        self._store.put(
            self._key, {"sass.json": json_text, "sass.txt": text}, {"nvdisasm": self._version}
        )
        self._done = Disassembly(json_text, text, self._version)
        return self._done

    def close(self) -> None:
        """Stop whatever still runs and remove the temporary cubin; safe to call twice."""
        for running in self._tools:
            running.close()
        self._tools = []
        if self._path:
            with contextlib.suppress(OSError):
                os.unlink(self._path)
            self._path = ""
