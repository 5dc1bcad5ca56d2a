"""What an MCP call asks for, checked and turned into a sassview command line.

One record, `Target`, for every tool that compiles: a file under the roots or CUDA C++ source
text, the architectures, the kernel, and the build flags. Values are data: each becomes one
argument (`-DNAME=V`, `--option=V`), never part of a string a shell reads. Compiler options
are the ones that change code generation and nothing else: an option that writes a file
(`-o`, `--keep-dir`), reads one (`--options-file`, `-include`) or runs a program (`-ccbin`,
`-Xcompiler`) is refused, since a client's words must not reach outside its roots.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from sassview.errors import InputError
from sassview.views.mcp.confine import Roots

# Options a client may pass (-X): code generation only. Each entry is a whole-option pattern.
_SAFE_OPTIONS = re.compile(
    r"""(
      --?maxrregcount=\d+ | -lineinfo | --?use_fast_math | -O[0-3] | --?Ofast-compile=\w+
    | --?(ftz|prec-div|prec-sqrt|fmad)=(true|false) | --?std=c\+\+\d\d
    | --expt-relaxed-constexpr | --expt-extended-lambda | --extended-lambda
    | --extra-device-vectorization | --?restrict | --?dlcm=c[ag] | --?dscm=\w+
    | -G | --?device-debug
    | (-Xptxas=|--ptxas-options=)(-v | -O[0-3] | --?warn-\w+(-\w+)*
        | --?allow-expensive-optimizations=(true|false) | --?maxrregcount=\d+
        | --?def-load-cache=\w+ | --?def-store-cache=\w+)
    )""",
    re.VERBOSE,
)
_ARCH = re.compile(r"(sm|compute)_\d+[af]?(,(sm|compute)_\d+[af]?)*")
_RELEASE = re.compile(r"\d+\.\d+|default")
_DEFINE = re.compile(r"[A-Za-z_]\w*(=.*)?", re.DOTALL)
_SUFFIXES = {"cuda": ".cu"}


@dataclass(frozen=True)
class Target:
    """A file (under the roots) or source text, and how to build it."""

    path: str | None = None
    source: str | None = None
    arch: Sequence[str] = ()
    kernel: str | None = None
    defines: Sequence[str] = ()
    include_dirs: Sequence[str] = ()
    options: Sequence[str] = ()
    compiler: str = "auto"
    block: str | None = None
    instantiate: Sequence[str] = field(default=())
    toolchain: str | None = None  # a release `sassview toolchain add` stored, e.g. "12.9"

    def checked(self, roots: Roots) -> Target:
        """The same request with every value checked; an InputError says which is wrong."""
        if (self.path is None) == (self.source is None):
            raise InputError("give exactly one of path and source", _TARGET_HINT)
        for a in self.arch:
            if not _ARCH.fullmatch(a):
                raise InputError(f"arch {a!r} is not an architecture", "e.g. sm_90a or sm_80")
        for d in self.defines:
            if not _DEFINE.fullmatch(d) or "\n" in d:
                raise InputError(f"define {d!r} is not NAME or NAME=VALUE", "e.g. TILE=128")
        for o in self.options:
            if not safe_option(o):
                raise InputError(
                    f"option {o!r} is not one this server passes on",
                    "options that change code generation only (-maxrregcount=N, -O3, "
                    "--use_fast_math, -Xptxas=-v, …): ones that name files or run programs "
                    "are refused over MCP (docs/mcp.md)",
                )
        if self.toolchain is not None and not _RELEASE.fullmatch(self.toolchain):
            raise InputError(f"toolchain {self.toolchain!r}", "a release, e.g. 12.9, or default")
        if self.compiler not in ("auto", "nvrtc", "nvcc"):
            raise InputError(f"compiler {self.compiler!r}", "one of auto, nvrtc, nvcc")
        path = str(roots.file(self.path)) if self.path is not None else None
        includes = tuple(str(roots.directory(i)) for i in self.include_dirs)
        if path is None and (self.source or "").strip() == "":
            raise InputError("source is empty", _TARGET_HINT)
        return replace(self, path=path, include_dirs=includes)

    def build_args(self) -> list[str]:
        """The build flags as sassview's CLI spells them, one argument each."""
        args = [f"--arch={','.join(self.arch)}"] if self.arch else []
        args += [f"-D{d}" for d in self.defines]
        args += [f"-I{i}" for i in self.include_dirs]
        args += [f"--option={o}" for o in self.options]
        args += [f"--instantiate={t}" for t in self.instantiate]
        if self.compiler != "auto":
            args.append(f"--compiler={self.compiler}")
        if self.toolchain is not None:
            args.append(f"--toolchain={self.toolchain}")
        return args


def safe_option(option: str) -> bool:
    """An option that changes code generation and neither names a file nor runs a program."""
    return _SAFE_OPTIONS.fullmatch(option) is not None


@contextmanager
def file_of(target: Target) -> Iterator[tuple[Path, Path | None]]:
    """(the file to compile, its scratch directory or None): source text is written to a
    directory made here for it and removed after, never to a path of the user's."""
    if target.path is not None:
        yield Path(target.path), None
        return
    scratch = Path(tempfile.mkdtemp(prefix="sassview-mcp-"))
    try:
        file = scratch / "source.cu"
        file.write_text(target.source or "", encoding="utf-8")
        yield file, scratch
    finally:
        shutil.rmtree(scratch, ignore_errors=True)  # made by mkdtemp above: ours alone


_TARGET_HINT = "pass `path` (a file under the roots) or `source` (CUDA C++ text), not both"
