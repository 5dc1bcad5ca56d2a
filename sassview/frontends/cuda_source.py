"""What a CUDA C++ file holds, read for the choices around its compile: does it need nvcc, which
template kernels does nothing instantiate, and the code that instantiates them on request.

Whether a file needs nvcc is read from NVRTC's own refusal, not guessed from the text: NVRTC
says "host functions are not allowed in JIT mode" at the first host function, and "cannot open
source file" at a `<header>` it does not bundle (<cstdio>, <vector>, <cuda_runtime.h>). Those two
are what nvcc and a host compiler can do and NVRTC cannot; any other error is the file's own --
but for one more: the host's <sys/types.h> short names (`uint`, `ushort`, `ulong`), which nvcc's
implicit <cuda_runtime.h> brings in through the host C library and which tutorial kernels use as
induction variables. NVRTC says `identifier "uint" is undefined` at the first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from sassview.errors import InputError
from sassview.frontends.includes import clean

# The first bytes of the two kinds of compiled file a user may have named .cu by mistake.
_COMPILED_MAGIC = {b"\x7fELF": "an ELF file", (0xBA55ED50).to_bytes(4, "little"): "a fatbin"}


def refuse_compiled(data: bytes, name: str) -> None:
    """Stop before a compile when `data` cannot be C++ text: compiled code named like source,
    or any file with a NUL byte. NVRTC would answer with dozens of "unrecognized token" errors,
    each echoing raw bytes (terminal control codes among them) back to the user."""
    kind = _COMPILED_MAGIC.get(data[:4])
    if kind:
        raise InputError(
            f"{name} holds compiled code ({kind}), not CUDA C++",
            "give it a name that does not end in .cu: sassview reads a cubin, fatbin, object or"
            " executable by its content",
        )
    nul = data.find(b"\0")
    if nul >= 0:
        raise InputError(
            f"{name} is not a text file: a NUL byte at offset {nul}",
            "point at CUDA C++ source; an editor's UTF-16 save needs converting to UTF-8",
        )


_HOST_FUNCTION = re.compile(
    r"^(.*?)\((\d+)\): error: A function without execution space annotations.*?"
    r"host functions are not allowed in JIT mode",
    re.M,
)
_HOST_HEADER = re.compile(
    r'^(.*?)\((\d+)\): catastrophic error: cannot open source file "([^"]+)"'
    r'\s*\n\s*#\s*include\s*([<"])',
    re.M,
)
INSTANTIATE_FILE = "sassview --instantiate"


# glibc's <sys/types.h> (under __USE_MISC, on by default) declares these; nvcc includes it.
_HOST_TYPES = ("uint", "ushort", "ulong", "u_char", "u_short", "u_int", "u_long")
_UNDEFINED_HOST_TYPE = re.compile(
    r'^(.*?)\((\d+)\): error: identifier "(' + "|".join(_HOST_TYPES) + r')" is undefined$', re.M
)
_FIRST_LINE_TOKEN = re.compile(r"^(.+?)\(1\): error: unrecognized token$", re.M)


def host_refusal(nvrtc_log: str) -> str:
    """Why NVRTC cannot compile this file and nvcc can ("host code at f.cu:12"), or ""."""
    header = _HOST_HEADER.search(nvrtc_log)
    if header and (header.group(4) == "<" or _toolkit_header(header.group(3))):
        return f"host header <{header.group(3)}> at {header.group(1)}:{header.group(2)}"
    code = _HOST_FUNCTION.search(nvrtc_log)
    if code:
        return f"host code at {code.group(1)}:{code.group(2)}"
    host_type = _UNDEFINED_HOST_TYPE.search(nvrtc_log)
    if host_type:
        name, line, spelled = host_type.groups()
        return f"`{spelled}` at {name}:{line}, a type of the host's <sys/types.h>"
    return _byte_order_mark(nvrtc_log)


def _byte_order_mark(nvrtc_log: str) -> str:
    """A header that starts with a UTF-8 byte order mark: NVRTC reads the mark as a token
    ("unrecognized token" at its line 1), nvcc skips it as gcc does. (compile_cuda strips one
    from the main file; a header NVRTC reads from disk itself.)"""
    for name in _FIRST_LINE_TOKEN.findall(nvrtc_log):
        try:
            with open(name, "rb") as f:
                if f.read(3) == b"\xef\xbb\xbf":
                    return f"a UTF-8 byte order mark at the top of {name}, which NVRTC refuses"
        except OSError:
            continue
    return ""


def _toolkit_header(name: str) -> bool:
    """Whether a quoted include NVRTC cannot open is the CUDA toolkit's (`"cuda_runtime.h"`),
    which nvcc finds; any other is the project's own, missing for nvcc as well."""
    from cuda import pathfinder

    try:
        where = pathfinder.find_nvidia_header_directory("cudart")
    except Exception:  # no runtime wheel: nvcc has no headers either
        return False
    return bool(where) and (Path(where) / name).is_file()


def instantiation_source(expressions: Sequence[str]) -> str:
    """C++ that instantiates each template kernel (`tile<128, 2, float>`), for either compiler.

    Taking a specialization's address in a device function nothing calls makes both NVRTC and
    nvcc instantiate and emit the kernel and nothing else (no variable: no global memory).
    """
    lines = [f'#line 1 "{INSTANTIATE_FILE}"']
    for i, expression in enumerate(expressions):
        lines.append(
            f"[[maybe_unused]] static __device__ void __sassview_instantiate_{i}() "
            f"{{ (void)&{expression}; }}"
        )
    return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class TemplateKernel:
    name: str
    parameters: tuple[str, ...]  # the template parameters' names: ("BM", "BN", "T")
    where: str  # "file:line"

    @property
    def placeholder(self) -> str:
        return f"{self.name}<{', '.join(self.parameters)}>"


_TEMPLATE_KERNEL = re.compile(
    rb"template\s*<(?P<params>[^{};]*?)>\s*"
    rb"(?:(?:static|inline|extern|__forceinline__|__noinline__|\[\[[^\]]*\]\])\s+)*"
    rb"__global__\s+(?:\w+\s+)*?void\s+"
    rb"(?:__launch_bounds__\s*\((?:[^()]|\([^()]*\))*\)\s*)?(?P<name>\w+)\s*\("
)
_GLOBAL = re.compile(rb"\b__global__\b")


def template_kernels(files: Mapping[str, bytes]) -> list[TemplateKernel]:
    """The `template <...> __global__` kernels defined in these files, in file order."""
    found = []
    for path, data in files.items():
        text = clean(data, keep_lines=True)
        for m in _TEMPLATE_KERNEL.finditer(text):
            line = text.count(b"\n", 0, m.start("name")) + 1
            found.append(
                TemplateKernel(
                    m.group("name").decode(),
                    _parameter_names(m.group("params").decode(errors="replace")),
                    f"{path}:{line}",
                )
            )
    return found


def _parameter_names(params: str) -> tuple[str, ...]:
    names, depth, current = [], 0, ""
    for ch in params + ",":
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            words = re.findall(r"\w+", current.split("=")[0])
            names.append(words[-1] if words else "?")
            current = ""
        else:
            current += ch
    return tuple(names)


def no_kernel_error(name: str, files: Mapping[str, bytes], host_reason: str) -> InputError:
    """A compile that made no kernel: say what the file holds, and what would make one."""
    templates = template_kernels(files)
    if templates:
        listed = ", ".join(f"{t.placeholder} ({t.where})" for t in templates[:6])
        more = f" and {len(templates) - 6} more" if len(templates) > 6 else ""
        first = templates[0]
        return InputError(
            f"{name}: no kernel: the template kernels here are not instantiated: {listed}{more}",
            f"instantiate one with values for {', '.join(first.parameters)}: "
            f"--instantiate '{first.placeholder}' "
            f"(in a kernel.py: sv.cuda_file(..., instantiate=['{first.placeholder}']))",
        )
    has_global = any(_GLOBAL.search(clean(d)) for d in files.values())
    if host_reason.startswith("host") and not has_global:
        return InputError(
            f"{name}: no kernel: host code only ({host_reason}), no __global__ function",
            "point sassview at the file that defines the kernels (or a runner that includes them)",
        )
    return InputError(
        f"{name}: no kernel: no __global__ function was compiled",
        "give it a __global__ kernel, or check the -D macros that select the kernels",
    )
