"""CUDA C++ through nvcc from the pip wheels: whole programs, host headers, host launches.

Device code only: one `nvcc -cubin -arch=sm_XX` per architecture, with -lineinfo and -Xptxas -v
(the ptxas report, as with NVRTC). nvcc needs a host C++ compiler even for device code
(it preprocesses with it), passed with -ccbin. The PTX (-keep: ptxas' own input, so no second
compile) and the files that went in (the linemarkers of the kept device-side preprocessing) come
from the same run, and key the cache (see cuda.py, depcache.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sassview.errors import InputError, ToolFailed
from sassview.frontends.nvcc_shell import hazard, includable, refuse_shell_text
from sassview.toolchain.locate import HostCompiler, nvcc_info
from sassview.toolchain.run import RunningTool, start_tool

WRAPPER_NAME = "sassview-instantiate.cu"
SAFE_NAME = "sassview-main.cu"  # includes a file whose name a shell would act on


@dataclass(frozen=True, slots=True)
class NvccOutput:
    ok: bool
    log: str
    ptx: str = ""
    cubin: bytes = b""
    deps: tuple[str, ...] = ()  # every file the compile read, the main file first


def nvcc_options(
    defines: Sequence[str],
    include_dirs: Sequence[str | Path],
    include_before: Sequence[Path],
    extra: Sequence[str],
) -> list[str]:
    """The user's part of the command line (the key's; the rest is fixed below)."""
    options = [f"-D{d}" for d in defines]
    options += [f"-I{Path(i).resolve()}" for i in include_dirs]
    for pre in include_before:
        options += ["-include", str(pre.resolve())]
    return options + list(extra)


def nvcc_compile(
    source: bytes,
    path: Path | None,
    arch: str,
    options: Sequence[str],
    host: HostCompiler,
    *,
    appendix: str = "",
    timeout: float = 600.0,
) -> NvccOutput:
    """Compile one translation unit for `arch`; a compile error comes back in `ok` and `log`.

    `path` is the user's file, compiled where it lies (its includes resolve as in their build);
    string sources are written to a private directory. `appendix` (generated instantiations)
    goes in a wrapper that includes the file, so the user's line numbers stay as they are.
    """
    nvcc = nvcc_info().path
    assert nvcc is not None
    with tempfile.TemporaryDirectory(prefix="sassview-nvcc-") as tmp:
        work = Path(tmp)
        main = path if path is not None else work / "kernel.cu"
        if path is None:
            main.write_bytes(source)
        unit = main
        if appendix or hazard(str(main), True):  # a name a shell would act on: included
            unit = work / (WRAPPER_NAME if appendix else SAFE_NAME)
            unit.write_text(f'#include "{_included(main)}"\n{appendix}')
        argv = [
            nvcc,
            "-cubin",
            f"-arch={arch}",
            "-lineinfo",
            "-Xptxas",
            "-v",
            "-keep",
            f"-keep-dir={work}",
            "-ccbin",
            host.path,
            "-o",
            str(work / "out.cubin"),
            *options,
            "-x",
            "cu",
            str(unit),
        ]
        refuse_shell_text(argv)
        status, log = _run(argv, timeout)
        if status != 0:
            return NvccOutput(False, log)
        ptx = next(iter(sorted(work.glob("*.ptx"))), None)
        device_side = next(iter(sorted(work.glob("*.cpp1.ii"))), None)
        deps = preprocessed_files(device_side.read_bytes()) if device_side else []
        first = os.path.normpath(_included(main)) if unit != main else str(main)
        deps = [first, *(d for d in deps if d not in (first, str(main)))]
        return NvccOutput(
            True,
            log,
            ptx.read_text(errors="replace") if ptx else "",
            (work / "out.cubin").read_bytes(),
            tuple(d for d in deps if not d.startswith(tmp)),
        )


def _run(argv: list[str], timeout: float) -> tuple[int, str]:
    """Run nvcc; (exit status, stdout and stderr). ptxas writes its report on stderr and nvcc
    exits 0, so both streams are kept, which run_tool does not do."""
    started: list[RunningTool] = []  # closed (its process group ended) even on Ctrl-C
    try:
        running = start_tool(argv, what="nvcc", into=started)
        try:
            running.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise ToolFailed(f"nvcc: gave no answer in {timeout:.0f} s", argv, "") from exc
        out, err = running.outputs()
    finally:
        for tool in started:
            tool.close()
    text = (out + err).decode(errors="replace")
    return running.proc.returncode, text


def _included(main: Path) -> str:
    """`main` as a wrapper names it: absolute (the wrapper lies elsewhere), and includable."""
    name = str(main.absolute())
    if not includable(name):
        raise InputError(
            f"{name}: nvcc cannot be given this file name (a shell would read it) and it "
            'cannot be #included either (a `"`, `\\` or line break)',
            "rename the file, or compile it with NVRTC (--compiler nvrtc)",
        )
    return name


_LINEMARKER = re.compile(rb'^# \d+ "((?:\\.|[^"\\])*)"', re.M)


def preprocessed_files(text: bytes) -> list[str]:
    """Every file named by the linemarkers of preprocessor output, in first-seen order.

    The device-side preprocessing (`.cpp1.ii`, with __CUDA_ARCH__ set) is all cicc reads, so its
    files are exactly those that decide the cubin. Asking nvcc for -MD instead costs a second,
    host-side preprocessing pass (about as long as the first), and lists the host's view.
    """
    seen: dict[str, None] = {}
    for raw in _LINEMARKER.findall(text):
        name = re.sub(rb"\\(.)", rb"\1", raw).decode(errors="replace")
        if not name.startswith("<"):
            seen.setdefault(os.path.normpath(name), None)
    return list(seen)


# nvcc's own words ("nvcc fatal   : Unknown option '-foo'") and the host compiler's errors
# ("file.cu:3:10: fatal error: x.h: No such file or directory"), besides cudafe's
# "file.cu(12): error: ..." which diagnose.first_error reads.
_NVCC_FATAL = re.compile(r"^nvcc (?:fatal|error)\s*:\s*(.*)$", re.M)
_GCC_ERROR = re.compile(r"^(.*?):(\d+):(?:\d+:)? (?:fatal )?error: (.*)$", re.M)
_UNSUPPORTED_HOST = re.compile(
    r"unsupported (?:GNU|clang|Microsoft Visual Studio) version![^!\n]*!?", re.I
)


def nvcc_error(log: str) -> tuple[str, str]:
    """`(where: message, hint)` for a failed nvcc run, read from its log."""
    from sassview.frontends.diagnose import first_error

    unsupported = _UNSUPPORTED_HOST.search(log)
    if unsupported:
        return (
            f"nvcc refuses the host compiler: {unsupported.group(0)}",
            "choose a supported one with --host-compiler (or $SASSVIEW_HOST_COMPILER), "
            "or pass -X=-allow-unsupported-compiler",
        )
    fatal = _NVCC_FATAL.search(log)
    if fatal:
        return f"nvcc: {fatal.group(1).strip()}", "check the options passed to nvcc"
    where = first_error(log)
    if not where:
        gcc = _GCC_ERROR.search(log)
        if gcc:
            where = f"{gcc.group(1)}:{gcc.group(2)}: {gcc.group(3).strip()}"
    return where, ""  # no hint of its own: cuda_errors gives the compiler's advice or the log
