"""Every input error the CLI can meet, as data: the test runs each one against the real CLI,
and docs/gen_errors.py writes docs/errors.md from the same cases with their real messages.

A case: id, what the user did (one line), how to set it up, the sassview arguments, the exit
code expected, and words the message must contain.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).parents[1]
CORPUS = ROOT / "tests" / "corpus"
SRC = CORPUS / "sources"
VECADD = str(ROOT / "examples" / "vecadd.cu")


@dataclass(frozen=True)
class Case:
    id: str
    group: str
    what: str
    args: Callable[[Path], list[str]]
    needles: tuple[str, ...]
    code: int = 2
    env: Callable[[Path], dict[str, str]] = field(default=lambda tmp: {})


def _file(tmp: Path, name: str, data: str | bytes) -> str:
    p = tmp / name
    if isinstance(data, bytes):
        p.write_bytes(data)
    else:
        p.write_text(data)
    return str(p)


_RELAXED = (
    "constexpr float scale_for(int n) { return 1.0f / n; }\n"
    "__global__ void scale(float* x) { x[threadIdx.x] *= scale_for(4); }\n"
)
_TORCH_EXTENSION = (
    "#include <torch/extension.h>\n"
    "__global__ void fill(float* out, float v) { out[threadIdx.x] = v; }\n"
    "torch::Tensor run(torch::Tensor x) { fill<<<1, 32>>>(x.data_ptr<float>(), 1.f); return x; }\n"
)


def _cmake_project(tmp: Path) -> str:
    _file(
        tmp,
        "CMakeLists.txt",
        "cmake_minimum_required(VERSION 3.18)\nproject(ext LANGUAGES CXX CUDA)\n"
        'message(FATAL_ERROR "Torch not found: set Torch_DIR")\nadd_library(ext k.cu)\n',
    )
    return _file(tmp, "k.cu", "__global__ void k(float* x) { x[0] = 1.f; }\n")


def _project_file(tmp: Path) -> str:
    (tmp / ".git").mkdir()
    (tmp / "include" / "ops").mkdir(parents=True)
    _file(tmp / "include" / "ops", "config.cuh", "#pragma once\n#define TILE 32\n")
    (tmp / "src").mkdir()
    return _file(
        tmp / "src",
        "k.cu",
        '#include "ops/config.cuh"\n__global__ void k(float* x) { x[0] = TILE; }\n',
    )


def _cubin() -> bytes:
    return (CORPUS / "vecadd" / "sm_90a" / "kernel.cubin").read_bytes()


def _corrupt(tmp: Path) -> str:
    data = bytearray(_cubin())
    data[0x20:0x40] = b"\xff" * 0x20
    return _file(tmp, "corrupt.cubin", bytes(data))


def _failing_tool(tmp: Path, name: str) -> str:
    p = tmp / name
    p.write_text(
        "#!/bin/sh\n"
        "if [ \"$1\" = --version ]; then echo 'release 13.5, V13.5.37'; exit 0; fi\n"
        "echo 'fatal: simulated failure' >&2\nexit 3\n"
    )
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return str(p)


def _kernel_py(tmp: Path, body: str, name: str = "kernel.py") -> str:
    return _file(tmp, name, body)


TRITON_DECL = """
import sassview as sv
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    tl.store(x_ptr + i, tl.load(x_ptr + i) * 2, mask=i < n)

sv.triton(k, signature={SIG}, constexprs={"BLOCK": 128}, arch="sm_90a")
"""

CUTILE_DECL = """
import cuda.tile as ct
from cuda.tile.compilation import ArrayConstraint
import sassview as sv

@ct.kernel
def k(a, b, TILE: ct.Constant[int]):
    ct.store(b, index=(ct.bid(0),), tile=ct.load(a, index=(ct.bid(0),), shape=(TILE,)))

f32 = ArrayConstraint(ct.float32, 1, index_dtype=ct.int32, stride_lower_bound_incl=0,
                      alias_groups=(), may_alias_internally=False)
sv.cutile(k, {PARAMS}, arch="sm_100a")
"""

CASES: list[Case] = [
    # files
    Case(
        "missing-file",
        "files",
        "a path that does not exist",
        lambda t: ["check", str(t / "nope.cu")],
        ("no such file",),
    ),
    Case(
        "directory",
        "files",
        "a directory instead of a file",
        lambda t: ["check", str(t)],
        ("is a directory",),
    ),
    Case(
        "unknown-extension",
        "files",
        "a file of a kind sassview does not read",
        lambda t: ["check", _file(t, "notes.txt", "hello")],
        ("does not know this kind of file",),
    ),
    Case(
        "empty-cu",
        "files",
        "an empty .cu file",
        lambda t: ["check", _file(t, "empty.cu", "  \n")],
        ("is empty",),
    ),
    Case(
        "empty-ptx",
        "files",
        "an empty .ptx file",
        lambda t: ["check", _file(t, "k.ptx", "\n")],
        ("empty",),
    ),
    Case(
        "ptx-no-target",
        "files",
        "PTX without a .target line",
        lambda t: ["check", _file(t, "k.ptx", ".version 8.0\n.visible .entry k() { ret; }\n")],
        (".target",),
    ),
    Case(
        "not-elf-cubin",
        "files",
        "a .cubin that is not an ELF file",
        lambda t: ["check", _file(t, "k.cubin", b"not an elf")],
        ("not an ELF",),
    ),
    Case(
        "compiled-code-named-cu",
        "files",
        "a cubin saved under a .cu name",
        lambda t: ["check", _file(t, "k.cu", _cubin())],
        ("holds compiled code (an ELF file)", "does not end in .cu"),
    ),
    Case(
        "binary-cu",
        "files",
        "a .cu file that is not text (a NUL byte: binary data, or a UTF-16 save)",
        lambda t: ["check", _file(t, "k.cu", "__global__ void k() {}\n".encode("utf-16"))],
        ("is not a text file: a NUL byte at offset",),
    ),
    Case(
        "escape-codes-in-the-log",
        "files",
        "a source whose compile error would echo terminal escape codes",
        lambda t: ["check", _file(t, "k.cu", "#error \x1b]0;retitled\x07 \x1b[2J\n")],
        ("#error directive: \\x1b]0;retitled\\x07 \\x1b[2J",),
    ),
    Case(
        "truncated-cubin",
        "files",
        "a cubin cut short",
        lambda t: ["check", _file(t, "k.cubin", _cubin()[:3000])],
        ("truncated",),
    ),
    Case(
        "corrupted-cubin",
        "files",
        "a cubin whose section table is damaged",
        lambda t: ["check", _corrupt(t)],
        ("corrupt.cubin",),
    ),
    Case(
        "host-elf-no-cuda",
        "files",
        "an executable with no CUDA code in it",
        lambda t: ["check", shutil.copy("/bin/true", t / "prog")],
        ("holds no CUDA device code",),
    ),
    Case(
        "random-object",
        "files",
        "a .o file that is not an object file",
        lambda t: ["check", _file(t, "k.o", b"\x00garbage" * 10)],
        ("does not know this kind",),
    ),
    # architectures
    Case(
        "arch-unsupported",
        "architectures",
        "an architecture NVRTC cannot target",
        lambda t: ["check", VECADD, "--arch", "sm_91"],
        ("not supported", "sm_90a"),
    ),
    Case(
        "arch-not-a-name",
        "architectures",
        "a word that is not an architecture",
        lambda t: ["check", VECADD, "--arch", "banana"],
        ("not an architecture name",),
    ),
    Case(
        "arch-bad-suffix",
        "architectures",
        "an a/f suffix the architecture does not have",
        lambda t: ["check", VECADD, "--arch", "sm_80a"],
        ("no 'a' variant",),
    ),
    Case(
        "arch-empty-list",
        "architectures",
        "an empty --arch list",
        lambda t: ["check", VECADD, "--arch", ","],
        ("no architecture given",),
    ),
    Case(
        "block-not-a-shape",
        "architectures",
        "a --block that is not a thread block shape",
        lambda t: ["check", VECADD, "--block", "16by16"],
        ("not a block shape", "--block 16x16"),
    ),
    Case(
        "block-too-large",
        "architectures",
        "a --block no GPU can launch",
        lambda t: ["check", VECADD, "--block", "64x32"],
        ("cannot be launched: it is 2048 threads", "at most 1024"),
    ),
    Case(
        "needs-a-target",
        "architectures",
        "wgmma compiled for sm_90 instead of sm_90a",
        lambda t: ["check", str(SRC / "wgmma.cu"), "--arch", "sm_90"],
        ("sm_90a",),
    ),
    Case(
        "ptx-arch-too-low",
        "architectures",
        "PTX for sm_90a assembled for sm_80",
        lambda t: ["check", str(CORPUS / "wgmma" / "sm_90a" / "kernel.ptx"), "--arch", "sm_80"],
        ("does not assemble",),
    ),
    # compile errors
    Case(
        "compile-error",
        "compile errors",
        "a C++ error in the kernel",
        lambda t: [
            "check",
            _file(t, "bad.cu", "__global__ void k(float* p) {\n  p[0] = nope;\n}\n"),
        ],
        ("bad.cu:2", "nope"),
    ),
    Case(
        "missing-include",
        "compile errors",
        "an #include that cannot be found",
        lambda t: ["check", _file(t, "inc.cu", '#include "missing.h"\n__global__ void k() {}\n')],
        ("missing.h",),
    ),
    Case(
        "bad-nvrtc-option",
        "compile errors",
        "an option NVRTC does not know",
        lambda t: ["check", VECADD, "-X=--no-such-option"],
        ("NVRTC rejected an option",),
    ),
    Case(
        "target-in-options",
        "compile errors",
        "an extra option that chooses the target (-X --gpu-architecture=sm_90)",
        lambda t: ["check", VECADD, "-a", "sm_80", "-X", "--gpu-architecture=sm_90"],
        ("chooses the target", "--arch (-a sm_90a)"),
    ),
    Case(
        "ptx-syntax-error",
        "compile errors",
        "PTX that does not assemble",
        lambda t: [
            "check",
            _file(
                t,
                "k.ptx",
                ".version 8.0\n.target sm_80\n.address_size 64\n"
                ".visible .entry k() { bogus.instruction; }\n",
            ),
        ],
        ("does not assemble",),
    ),
    Case(
        "ptx-version-too-new",
        "compile errors",
        "PTX newer than the installed assembler",
        lambda t: [
            "check",
            _file(
                t,
                "k.ptx",
                ".version 99.0\n.target sm_80\n.address_size 64\n.visible .entry k() { ret; }\n",
            ),
        ],
        ("does not assemble",),
    ),
    # whole programs, headers and templates (nvcc, --instantiate, --include-before)
    Case(
        "host-code-without-host-compiler",
        "whole programs and headers",
        "a whole program (host code, <cstdio>) on a machine with no g++ or clang++",
        lambda t: ["check", str(SRC / "whole_program.cu")],
        ("needs nvcc (host header <cstdio> at", "install g++ or clang++", "--host-compiler"),
        env=lambda t: {"PATH": str(t), "SASSVIEW_HOST_COMPILER": "", "CUDAHOSTCXX": ""},
    ),
    Case(
        "nvcc-missing",
        "whole programs and headers",
        "a whole program where nvcc cannot be found (its wheel missing, or a wrong SASSVIEW_NVCC)",
        lambda t: ["check", str(SRC / "whole_program.cu")],
        ("needs nvcc (host header <cstdio>", "pip install nvidia-cuda-nvcc"),
        env=lambda t: {"SASSVIEW_NVCC": str(t / "no-nvcc")},
    ),
    Case(
        "host-compiler-not-found",
        "whole programs and headers",
        "--host-compiler naming a compiler that is not there",
        lambda t: ["check", str(SRC / "whole_program.cu"), "--host-compiler", "no-such-g++"],
        ("'no-such-g++' (from --host-compiler) was not found",),
    ),
    Case(
        "host-side-error",
        "whole programs and headers",
        "a C++ error in the host code of a whole program",
        lambda t: [
            "check",
            _file(
                t,
                "prog.cu",
                "#include <vector>\n__global__ void k() {}\n"
                "int main() { std::vector<int> v; v.push_bak(1); k<<<1, 1>>>(); }\n",
            ),
        ],
        ("compile failed (nvcc)", "prog.cu:3", "push_bak"),
    ),
    Case(
        "host-code-only",
        "whole programs and headers",
        "a file with host code and no kernel",
        lambda t: ["check", _file(t, "main.cu", "#include <cstdio>\nint main() { return 0; }\n")],
        ("no kernel: host code only",),
    ),
    Case(
        "no-kernel",
        "whole programs and headers",
        "a header of device functions, no kernel",
        lambda t: [
            "check",
            _file(t, "util.cuh", "__device__ float twice(float x) { return 2 * x; }\n"),
        ],
        ("no kernel", "no __global__ function"),
    ),
    Case(
        "template-not-instantiated",
        "whole programs and headers",
        "a header whose template kernels nothing instantiates",
        lambda t: ["check", str(SRC / "project" / "kernels" / "scale.cuh")],
        ("not instantiated: scale_rows<BLOCK>", "--instantiate 'scale_rows<BLOCK>'"),
    ),
    Case(
        "bad-instantiation",
        "whole programs and headers",
        "--instantiate with the wrong template arguments",
        lambda t: [
            "check",
            str(SRC / "project" / "kernels" / "scale.cuh"),
            "--instantiate",
            "scale_rows<float>",
        ],
        ("sassview --instantiate:1", "check --instantiate 'scale_rows<float>'"),
    ),
    Case(
        "header-needs-includer",
        "whole programs and headers",
        "a header checked as it is (no project context) that uses a typedef and a macro of "
        "the file including it",
        lambda t: [
            "check",
            str(SRC / "project" / "kernels" / "reduce.cuh"),
            "--no-compile-commands",
        ],
        ('"value_t" is undefined', "--included-by", "runner.cu includes it at line 7"),
    ),
    Case(
        "cmake-configure-fails",
        "whole programs and headers",
        "a file in a CMake project whose configure fails (sassview configures it for its flags)",
        lambda t: ["check", _cmake_project(t)],
        ("cmake could not configure", "Torch not found", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"),
    ),
    Case(
        "advised-option",
        "whole programs and headers",
        "code the compiler says an option allows (a constexpr host function on the device)",
        lambda t: ["check", _file(t, "relaxed.cu", _RELAXED)],
        ("calling a constexpr __host__ function", "add -X=--expt-relaxed-constexpr (tried"),
    ),
    Case(
        "header-in-project",
        "whole programs and headers",
        "an #include of the project's header, checked with no -I",
        lambda t: ["check", _project_file(t)],
        ('cannot open source file "ops/config.cuh"', "add -I ", "(tried: it compiles)"),
    ),
    Case(
        "torch-extension",
        "whole programs and headers",
        "a PyTorch extension on a machine without torch",
        lambda t: ["check", _file(t, "ext.cu", _TORCH_EXTENSION)],
        ("torch/extension.h", "a PyTorch extension: its host code needs torch's headers"),
    ),
    Case(
        "include-before-missing",
        "whole programs and headers",
        "--include-before naming no file",
        lambda t: ["check", VECADD, "--include-before", str(t / "gone.h")],
        ("--include-before", "no such file"),
    ),
    # kernels
    Case(
        "unknown-kernel",
        "kernels",
        "--kernel naming no kernel of the file",
        lambda t: ["check", VECADD, "--kernel", "nope"],
        ("no kernel named 'nope'", "add_f4"),
    ),
    # kernel.py
    Case(
        "kernel-py-syntax",
        "kernel.py",
        "a syntax error in kernel.py",
        lambda t: ["check", _kernel_py(t, "import sassview as sv\ndef f(:\n")],
        ("syntax error",),
    ),
    Case(
        "kernel-py-raises",
        "kernel.py",
        "kernel.py raises while it is imported",
        lambda t: ["check", _kernel_py(t, "import sassview as sv\n1 / 0\n")],
        ("ZeroDivisionError",),
    ),
    Case(
        "kernel-py-missing-package",
        "kernel.py",
        "kernel.py imports a package that is missing",
        lambda t: ["check", _kernel_py(t, "import no_such_pkg_xyz\n")],
        ("pip install",),
    ),
    Case(
        "kernel-py-calls-torch",
        "kernel.py",
        "kernel.py builds its arguments with torch, which is not installed",
        lambda t: [
            "check",
            _kernel_py(t, "import torch\nimport sassview as sv\nx = torch.empty(4096)\n"),
        ],
        ("calls torch (torch.empty() at kernel.py:3)", "makes no tensors", "pip install torch"),
    ),
    Case(
        "kernel-py-no-kernels",
        "kernel.py",
        "kernel.py declares no kernels",
        lambda t: ["check", _kernel_py(t, "import sassview as sv\n")],
        ("declares no kernels",),
    ),
    Case(
        "kernel-py-bad-cuda-string",
        "kernel.py",
        "sv.cuda() given text without a kernel",
        lambda t: ["check", _kernel_py(t, "import sassview as sv\nsv.cuda('int x;')\n")],
        ("__global__",),
    ),
    Case(
        "kernel-py-bad-arch",
        "kernel.py",
        "a declaration naming an unknown architecture",
        lambda t: [
            "check",
            _kernel_py(t, f"import sassview as sv\nsv.cuda_file({VECADD!r}, arch='sm_77')\n"),
        ],
        ("sm_77",),
    ),
    Case(
        "kernel-py-missing-cu",
        "kernel.py",
        "sv.cuda_file() naming a file that is not there",
        lambda t: ["check", _kernel_py(t, "import sassview as sv\nsv.cuda_file('gone.cu')\n")],
        ("no such file",),
    ),
    Case(
        "triton-signature-missing-param",
        "kernel.py",
        "a Triton signature missing a parameter",
        lambda t: ["check", _kernel_py(t, TRITON_DECL.replace("{SIG}", '{"x_ptr": "*fp32"}'))],
        ("parameter 'n' is missing from the signature",),
    ),
    Case(
        "triton-bad-type",
        "kernel.py",
        "a Triton signature with an unknown type",
        lambda t: [
            "check",
            _kernel_py(t, TRITON_DECL.replace("{SIG}", '{"x_ptr": "*fp33", "n": "i32"}')),
        ],
        ("'*fp33' is not a Triton type",),
    ),
    Case(
        "triton-heuristic-reads-an-argument",
        "kernel.py",
        "a @triton.heuristics value that needs a launch's argument, not declared",
        lambda t: [
            "check",
            _kernel_py(
                t,
                TRITON_DECL.replace("{SIG}", '{"x_ptr": "*fp32", "n": "i32"}')
                .replace(
                    "@triton.jit",
                    '@triton.heuristics({"BLOCK": lambda a: a["n"] // 4})\n@triton.jit',
                )
                .replace('constexprs={"BLOCK": 128}, ', ""),
            ),
        ],
        ("value 'BLOCK' reads 'n'", "constexprs={'BLOCK': ...}"),
    ),
    Case(
        "cutile-arch-tileiras-lacks",
        "kernel.py",
        "a cuTile kernel for an architecture tileiras does not know",
        lambda t: [
            "check",
            _kernel_py(t, CUTILE_DECL.replace("{PARAMS}", "[f32, f32, 256]")),
            "--arch",
            "sm_75",
        ],
        ("tileiras cannot compile for sm_75", "sm_80"),
    ),
    Case(
        "cutile-parameters-by-name-mismatch",
        "kernel.py",
        "sv.cutile parameters by name that are not the kernel's",
        lambda t: [
            "check",
            _kernel_py(t, CUTILE_DECL.replace("{PARAMS}", '{"a": f32, "TILE": 256}')),
        ],
        ("parameters name a, TILE, the kernel takes a, b, TILE",),
    ),
    Case(
        "triton-args-missing",
        "kernel.py",
        "a Triton kernel declared by example arguments, one of them left out",
        lambda t: [
            "check",
            _kernel_py(
                t,
                TRITON_DECL.replace("{SIG}", "None").replace(
                    "signature=None", 'args={"x_ptr": sv.tensor("fp32", shape=(1024,))}'
                ),
            ),
        ],
        ("args gives no value for n",),
    ),
    Case(
        "triton-cache-no-such-kernel",
        "files",
        "-k naming a kernel a Triton cache directory does not hold",
        lambda t: ["check", str(ROOT / "tests" / "data" / "triton_cache"), "-k", "softmax"],
        ("no kernel 'softmax' in this Triton cache", "its kernels: add, matmul"),
    ),
    # tools
    Case(
        "nvdisasm-missing",
        "tools",
        "SASSVIEW_NVDISASM pointing at nothing",
        lambda t: ["check", VECADD],
        ("nvdisasm", "nvidia-cuda-nvdisasm"),
        env=lambda t: {"SASSVIEW_NVDISASM": str(t / "gone"), "SASSVIEW_NO_CACHE": "1"},
    ),
    Case(
        "nvdisasm-fails",
        "tools",
        "nvdisasm itself failing",
        lambda t: ["check", VECADD],
        ("nvdisasm", "simulated failure", "command:"),
        env=lambda t: {"SASSVIEW_NVDISASM": _failing_tool(t, "nvdisasm"), "SASSVIEW_NO_CACHE": "1"},
    ),
    Case(
        "cuobjdump-missing",
        "tools",
        "a fatbin/executable with cuobjdump missing",
        lambda t: ["check", shutil.copy("/bin/true", t / "prog")],
        ("cuobjdump", "nvidia-cuda-cuobjdump"),
        env=lambda t: {"SASSVIEW_CUOBJDUMP": str(t / "gone")},
    ),
    Case(
        "nvrtc-lib-broken",
        "tools",
        "SASSVIEW_NVRTC_LIB pointing at a file that is not NVRTC",
        lambda t: ["doctor"],
        ("MISSING", "nvrtc"),
        env=lambda t: {"SASSVIEW_NVRTC_LIB": _file(t, "libfake.so", "not a library")},
    ),
    Case(
        "doctor-missing-tool",
        "tools",
        "doctor with a tool missing",
        lambda t: ["doctor"],
        ("MISSING", "pip install nvidia-cuda-nvdisasm"),
        env=lambda t: {"SASSVIEW_NVDISASM": str(t / "gone")},
    ),
    # cache
    Case(
        "cache-dir-is-a-file",
        "cache",
        "`cache clear` when SASSVIEW_CACHE_DIR is a file",
        lambda t: ["cache", "clear"],
        ("not a directory",),
        env=lambda t: {"SASSVIEW_CACHE_DIR": _file(t, "cachefile", "x")},
    ),
    Case(
        "cache-limit-not-a-number",
        "cache",
        "SASSVIEW_CACHE_MAX_MB that is not a number",
        lambda t: ["cache", "info"],
        ("SASSVIEW_CACHE_MAX_MB",),
        code=0,
        env=lambda t: {"SASSVIEW_CACHE_MAX_MB": "lots"},
    ),
    # sweep
    Case(
        "sweep-bad-param",
        "sweep",
        "a -p that is not KEY=VALUES",
        lambda t: ["sweep", VECADD, "-p", "nonsense"],
        ("KEY=VALUE",),
    ),
    Case(
        "sweep-wrong-file",
        "sweep",
        "sweep over a file that is not kernel.py or .cu",
        lambda t: ["sweep", str(CORPUS / "vecadd" / "sm_80" / "kernel.cubin")],
        ("sweep reads",),
    ),
    Case(
        "sweep-missing-file",
        "sweep",
        "sweep over a file that does not exist",
        lambda t: ["sweep", str(t / "gone.cu")],
        ("no such file",),
    ),
    # usage
    Case(
        "unknown-command",
        "usage",
        "a command sassview does not have",
        lambda t: ["frobnicate"],
        ("No such command",),
    ),
    Case(
        "unknown-option",
        "usage",
        "an option check does not have",
        lambda t: ["check", VECADD, "--frob"],
        ("No such option",),
    ),
    # first-try trip-ups (issue 23): hints that name what exists, diff as a user types it
    Case(
        "arch-hint-for-wgmma-on-sm80",
        "architectures",
        "wgmma and TMA compiled for sm_80: the hint names sm_90a, not the nonexistent sm_80a",
        lambda t: [
            "check",
            str(ROOT / "examples" / "matmul" / "05_wgmma_tma.cu"),
            "--arch",
            "sm_80",
        ],
        ("which sm_80 lacks: compile for sm_90a",),
    ),
    Case(
        "diff-no-common-kernel",
        "usage",
        "diff of two files with several kernels each and no name in common",
        lambda t: ["diff", VECADD, str(SRC / "spill.cu"), "--arch", "sm_80"],
        ("no kernel in common", "kernels: "),
    ),
    Case(
        "check-directory-with-kernel-py",
        "files",
        "check pointed at a folder that holds a kernel.py",
        lambda t: ["check", str(ROOT / "examples" / "matmul")],
        ("is a directory", "matmul/kernel.py", "01_naive.cu"),
    ),
    Case(
        "check-markdown",
        "files",
        "check pointed at a file that is no kernel (README.md)",
        lambda t: ["check", str(ROOT / "README.md")],
        ("does not know this kind of file", "kernel.py"),
    ),
    Case(
        "filecheck-check-text-as-path",
        "usage",
        "filecheck given check text where the CHECKS file goes",
        lambda t: ["filecheck", "CHECK: LDG.E.128", VECADD],
        ("cannot read the check file", "--check-string 'CHECK: LDG.E.128' PATH"),
    ),
    Case(
        "filecheck-both-stdin",
        "usage",
        "filecheck told to read both the checks and the listing from stdin",
        lambda t: ["filecheck", "-", "-"],
        ("cannot both be stdin",),
    ),
]


# The cache directory: sizes that are not sizes, a directory sassview cannot prove is its own.
CASES += [
    Case(
        "cache-prune-nan",
        "cache directory",
        "`cache prune --max-mb nan`",
        lambda t: ["cache", "prune", "--max-mb", "nan"],
        ("--max-mb='nan' is not a size", "inf means no limit"),
    ),
    Case(
        "cache-prune-negative",
        "cache directory",
        "`cache prune` with a negative size",
        lambda t: ["cache", "prune", "--max-mb", "-5"],
        ("--max-mb='-5' is not a size",),
    ),
    Case(
        "cache-limit-nan",
        "cache directory",
        "SASSVIEW_CACHE_MAX_MB=nan (warned about, no limit applied)",
        lambda t: ["cache", "info"],
        ("SASSVIEW_CACHE_MAX_MB='nan' is not a size",),
        code=0,
        env=lambda t: {"SASSVIEW_CACHE_MAX_MB": "nan"},
    ),
    Case(
        "cache-clear-unmarked",
        "cache directory",
        "`cache clear` in a directory sassview never marked as its cache",
        lambda t: ["cache", "clear"],
        ("no sassview marker", "removed nothing"),
        env=lambda t: {"SASSVIEW_CACHE_DIR": str(Path(_file(t, "notes.txt", "mine")).parent)},
    ),
]


# Input paths: a file's name and what it points at.
CASES += [
    Case(
        "path-symlink-loop",
        "input paths",
        "a path that is a loop of symbolic links",
        lambda t: ["check", _symlink_loop(t, "k.cu")],
        ("loop of symbolic links",),
    ),
    Case(
        "path-dangling-symlink",
        "input paths",
        "a symbolic link to a file that is gone",
        lambda t: ["check", _symlink(t, "k.cu", t / "gone.cu")],
        ("symbolic link to", "does not exist"),
    ),
    Case(
        "path-directory-named-py",
        "input paths",
        "a directory named like a kernel file",
        lambda t: ["check", str(_directory(t, "kernel.py"))],
        ("is a directory", "point at a kernel.py"),
    ),
    Case(
        "path-directory-for-sweep",
        "input paths",
        "sweep over a directory named like a .cu file",
        lambda t: ["sweep", str(_directory(t, "k.cu"))],
        ("is a directory",),
    ),
    Case(
        "path-with-a-quote",
        "input paths",
        "CUDA C++ at a path that holds a double quote",
        lambda t: ["check", _file(t, 'say "hi".cu', "__global__ void k() {}\n")],
        ("double quote", "rename"),
    ),
    Case(
        "kernel-py-path-with-a-quote",
        "input paths",
        "a kernel.py declaring CUDA C++, in a directory whose name holds a double quote",
        lambda t: ["check", _kernel_py(_directory(t, 'a"b'), _CUDA_KERNEL_PY)],
        ("double quote",),
    ),
    Case(
        "path-not-utf8",
        "input paths",
        "CUDA C++ at a path that is not UTF-8 (a byte 0xff in its name)",
        lambda t: ["check", _file(t, "bad\udcff.cu", "__global__ void k() {}\n")],
        ("bad\\xff.cu", "not UTF-8", "rename"),
    ),
    Case(
        "kernel-py-path-not-utf8",
        "input paths",
        "a kernel.py declaring CUDA C++, in a directory whose name is not UTF-8",
        lambda t: ["check", _kernel_py(_directory(t, "a\udcffb"), _CUDA_KERNEL_PY)],
        ("not UTF-8",),
    ),
    Case(
        "kernel-py-sys-exit",
        "input paths",
        "a kernel.py that calls sys.exit() when imported",
        lambda t: ["check", _kernel_py(t, "import sys\nsys.exit(0)\n")],
        ("sys.exit(0)", "__main__"),
    ),
    Case(
        "kernel-py-keyboard-interrupt",
        "input paths",
        "a kernel.py that raises KeyboardInterrupt when imported (no Ctrl-C pressed)",
        lambda t: ["check", _kernel_py(t, "raise KeyboardInterrupt\n")],
        ("importing it raised KeyboardInterrupt (no Ctrl-C was pressed)",),
    ),
    Case(
        "kernel-py-os-exit",
        "input paths",
        "a kernel.py that calls os._exit() when imported",
        lambda t: ["check", _kernel_py(t, "import os\nos._exit(0)\n")],
        ("kernel.py: importing it called os._exit(0)", "__main__"),
    ),
]


# Other CUDA releases (`sassview toolchain`, --toolchain) and the baseline gate.
def _store(tmp: Path) -> dict[str, str]:
    return {"SASSVIEW_TOOLCHAINS_DIR": str(tmp / "toolchains")}


def _torn_store(tmp: Path) -> dict[str, str]:
    torn = tmp / "toolchains" / "12.9"
    torn.mkdir(parents=True)
    (torn / "SASSVIEW-TOOLCHAIN").write_text("sassview toolchain 12.9\n")
    return _store(tmp)


def _foreign_store(tmp: Path) -> dict[str, str]:
    (tmp / "toolchains" / "12.8").mkdir(parents=True)
    return _store(tmp)


CASES += [
    Case(
        "toolchain-not-a-release",
        "toolchains",
        "--toolchain with something that is not MAJOR.MINOR",
        lambda t: ["check", VECADD, "--toolchain", "latest"],
        ("is not a CUDA release", "e.g. 12.9"),
        env=_store,
    ),
    Case(
        "toolchain-not-added",
        "toolchains",
        "--toolchain naming a release that was never added",
        lambda t: ["check", VECADD, "--toolchain", "12.8"],
        ("toolchain 12.8 has not been added", "sassview toolchain add 12.8"),
        env=_store,
    ),
    Case(
        "toolchain-torn",
        "toolchains",
        "--toolchain naming a release whose add never finished (no manifest)",
        lambda t: ["check", VECADD, "--toolchain", "12.9"],
        ("toolchain 12.9 is torn", "sassview toolchain remove 12.9"),
        env=_torn_store,
    ),
    Case(
        "toolchain-remove-foreign",
        "toolchains",
        "`toolchain remove` of a directory sassview did not write",
        lambda t: ["toolchain", "remove", "12.8"],
        ("is not a toolchain sassview added", "remove it by hand"),
        env=_foreign_store,
    ),
    Case(
        "toolchain-add-no-wheels",
        "toolchains",
        "`toolchain add --wheels DIR` where DIR has none of the release's wheels",
        lambda t: ["toolchain", "add", "12.9", "--wheels", str(_directory(t, "wheels"))],
        ("CUDA 12.9 has no NVRTC wheel (nvidia-cuda-nvrtc-cu12) in",),
        env=_store,
    ),
    Case(
        "toolchain-on-ptx",
        "toolchains",
        "--toolchain on a PTX file",
        lambda t: ["check", _file(t, "k.ptx", ".version 8.0\n"), "--toolchain", "12.9"],
        ("k.ptx is not CUDA C++",),
        env=_store,
    ),
    Case(
        "diff-one-side",
        "toolchains",
        "`diff FILE` with neither a second side nor two --toolchain",
        lambda t: ["diff", VECADD],
        ("diff needs two sides", "--toolchain 12.9 --toolchain default"),
    ),
    Case(
        "baseline-unknown-kernel",
        "toolchains",
        "`baseline --kernel` naming no kernel of the file",
        lambda t: ["baseline", VECADD, "--dir", str(t / "b"), "-k", "nope"],
        ("no kernel named nope",),
    ),
]


def environment(case: Case, tmp: Path) -> dict[str, str]:
    """The case's own cache (tmp/cache) and store of CUDA releases (tmp/toolchains, empty)
    unless it names them: the caller's SASSVIEW_CACHE_DIR (the test session's, or a user's under
    gen_errors) would hide what the case leaves, and the releases this machine stored (CI adds
    12.9) would make `doctor` print another page on each machine."""
    own = {
        "SASSVIEW_CACHE_DIR": str(tmp / "cache"),
        "SASSVIEW_TOOLCHAINS_DIR": str(tmp / "toolchains"),
    }
    return {**os.environ, **own, **case.env(tmp)}


# Helpers of the input-paths cases (called when a case runs, so defined after them).


def _symlink(tmp: Path, name: str, target: Path) -> str:
    (tmp / name).symlink_to(target)
    return str(tmp / name)


def _symlink_loop(tmp: Path, name: str) -> str:
    _symlink(tmp, "other-" + name, tmp / name)
    return _symlink(tmp, name, tmp / ("other-" + name))


def _directory(tmp: Path, name: str) -> Path:
    (tmp / name).mkdir()
    return tmp / name


_CUDA_KERNEL_PY = 'import sassview as sv\nsv.cuda("__global__ void k() {}", arch="sm_90a")\n'


# --- Tools that hang, flood or print garbage; compiles that never end; grids too large ---
# (issue 24, items 6, 13, 14, 16)

SLOW_CU = """\
template <int N, unsigned long long M> struct T {
  static constexpr unsigned long long v = T<N - 1, 2 * M>::v + T<N - 1, 2 * M + 1>::v;
};
template <unsigned long long M> struct T<0, M> { static constexpr unsigned long long v = M; };
__global__ void k(unsigned long long* out) { out[0] = T<18, 1>::v; }
"""


def _scripted_tool(tmp: Path, name: str, body: str, version: str = "") -> str:
    """A tool that answers --version like 13.5 (or runs `version` for it) and runs `body`."""
    answer = version or "echo 'release 13.5, V13.5.37'; exit 0"
    p = tmp / name
    p.write_text(f'#!/bin/sh\nif [ "$1" = --version ]; then {answer}; fi\n{body}\n')
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return str(p)


_HANG = "sleep 600 &\nwait"

# 20 x 15 variants of one kernel: refused before the first compile starts.
_MANY_VARIANTS = (
    "import sassview as sv\n"
    'sv.cuda("__global__ void k(float* p) { p[0] = A * B; }", arch="sm_90a",\n'
    '        variants={"A": list(range(20)), "B": list(range(15))})\n'
)

_MORE = [
    Case(
        "nvdisasm-hangs",
        "tools",
        "nvdisasm that never finishes (SASSVIEW_TOOL_TIMEOUT=1)",
        lambda t: ["check", VECADD],
        ("gave no answer in 1 s", "SASSVIEW_TOOL_TIMEOUT"),
        env=lambda t: {
            "SASSVIEW_NVDISASM": _scripted_tool(t, "nvdisasm", _HANG),
            "SASSVIEW_TOOL_TIMEOUT": "1",
            "SASSVIEW_NO_CACHE": "1",
        },
    ),
    Case(
        "nvdisasm-floods",
        "tools",
        "nvdisasm printing 100 MB",
        lambda t: ["check", VECADD],
        ("printed more than 17 MB", "command:"),
        env=lambda t: {
            "SASSVIEW_NVDISASM": _scripted_tool(t, "nvdisasm", "head -c 100000000 /dev/zero"),
            "SASSVIEW_NO_CACHE": "1",
        },
    ),
    Case(
        "nvdisasm-garbage",
        "tools",
        "a tool that prints something that is not nvdisasm's listing",
        lambda t: ["check", VECADD],
        ("not a listing", "names no .target", "SASSVIEW_NVDISASM"),  # no spills: text only
        env=lambda t: {
            "SASSVIEW_NVDISASM": _scripted_tool(t, "nvdisasm", "echo 'Usage: frobnicate FILE'"),
            "SASSVIEW_NO_CACHE": "1",
        },
    ),
    Case(
        "doctor-tool-hangs",
        "tools",
        "doctor with a tool that hangs even for --version",
        lambda t: ["doctor"],
        ("MISSING", "nvdisasm", "gave no answer in 5 s"),
        env=lambda t: {"SASSVIEW_NVDISASM": _scripted_tool(t, "nvdisasm", _HANG, _HANG)},
    ),
    Case(
        "tool-timeout-not-a-number",
        "tools",
        "SASSVIEW_TOOL_TIMEOUT that is not a number of seconds",
        lambda t: ["check", VECADD],
        ("SASSVIEW_TOOL_TIMEOUT='soon' is not a number of seconds",),
        env=lambda t: {"SASSVIEW_TOOL_TIMEOUT": "soon", "SASSVIEW_NO_CACHE": "1"},
    ),
    Case(
        "compile-timeout",
        "compile errors",
        "a compile that takes longer than SASSVIEW_COMPILE_TIMEOUT (here 2 s)",
        lambda t: ["check", _file(t, "slow.cu", SLOW_CU)],
        ("NVRTC gave no answer in 2 s", "SASSVIEW_COMPILE_TIMEOUT"),
        env=lambda t: {"SASSVIEW_COMPILE_TIMEOUT": "2"},
    ),
    Case(
        "compile-timeout-not-a-number",
        "compile errors",
        "SASSVIEW_COMPILE_TIMEOUT that is not a positive number",
        lambda t: ["check", VECADD],
        ("SASSVIEW_COMPILE_TIMEOUT='-1' is not a number of seconds",),
        env=lambda t: {"SASSVIEW_COMPILE_TIMEOUT": "-1", "SASSVIEW_NO_CACHE": "1"},
    ),
    Case(
        "sweep-too-many-variants",
        "sweep",
        "a grid of 256 variants with no terminal to confirm it",
        lambda t: [
            "sweep",
            VECADD,
            "-p",
            "A=1,2,3,4,5,6,7,8",
            "-p",
            "B=1,2,3,4,5,6,7,8",
            "-p",
            "C=1,2,3,4",
        ],
        ("256 variants", "--max-variants 256"),
    ),
    Case(
        "sweep-over-max-variants",
        "sweep",
        "a grid larger than the --max-variants given",
        lambda t: ["sweep", VECADD, "-p", "X=1,2,3", "--max-variants", "2"],
        ("more than --max-variants 2",),
    ),
    Case(
        "check-too-many-declared-variants",
        "sweep",
        "check of a kernel.py whose declarations make 300 variants, with no terminal to confirm",
        lambda t: ["check", _kernel_py(t, _MANY_VARIANTS)],
        ("kernel.py has 300 variants", "--max-variants 300"),
    ),
    Case(
        "try-too-many-declared-variants",
        "sweep",
        "try of a kernel.py whose declarations make 300 variants, over --max-variants",
        lambda t: ["try", _kernel_py(t, _MANY_VARIANTS), "--max-variants", "10"],
        ("kernel.py has 300 variants, more than --max-variants 10",),
    ),
    Case(
        "export-too-many-declared-variants",
        "sweep",
        "export of a kernel.py whose declarations make 300 variants, with no terminal",
        lambda t: ["export", _kernel_py(t, _MANY_VARIANTS), "-o", str(t / "out")],
        ("kernel.py has 300 variants", "--max-variants 300"),
    ),
    Case(
        "filecheck-too-many-declared-variants",
        "sweep",
        "filecheck of a kernel.py whose declarations make 300 variants, over --max-variants",
        lambda t: [
            "filecheck",
            "--check-string",
            "CHECK: EXIT",
            _kernel_py(t, _MANY_VARIANTS),
            "--max-variants",
            "10",
        ],
        ("kernel.py has 300 variants, more than --max-variants 10",),
    ),
]


def _by_group(cases: list[Case], more: list[Case]) -> None:
    """Put each case after the last one of its group, so docs/errors.md keeps one section
    per group."""
    for case in more:
        at = max((i for i, c in enumerate(cases) if c.group == case.group), default=len(cases))
        cases.insert(at + 1, case)


_by_group(CASES, _MORE)


# --- What reaches a shell, what the cache trusts and deletes (issue 30) ---

_WHOLE_PROGRAM = (
    "#include <cstdio>\n"
    "__global__ void k(float* p) { p[0] = 1.0f; }\n"
    'int main() { k<<<1, 1>>>(nullptr); std::printf("done\\n"); return 0; }\n'
)


def _compile_database(tmp: Path, command: str) -> str:
    source = _file(tmp, "whole.cu", _WHOLE_PROGRAM)
    entry = {"directory": str(tmp), "file": "whole.cu", "command": command}
    _file(tmp, "compile_commands.json", json.dumps([entry]))
    return source


def _users_directory(tmp: Path) -> dict[str, str]:
    (tmp / "work").mkdir()
    (tmp / "work" / "notes.txt").write_text("the user's own\n")
    return {"SASSVIEW_CACHE_DIR": str(tmp / "work")}


_SEC30 = [
    Case(
        "nvcc-define-with-a-command",
        "whole programs and headers",
        "a -D value holding `$(...)` for a file nvcc compiles (nvcc runs its steps through sh)",
        lambda t: [
            "check",
            _file(t, "whole.cu", _WHOLE_PROGRAM),
            "-D",
            "X=$(touch${IFS}PWNED)",
        ],  # fmt: skip
        ("nvcc would hand '-DX=$(touch${IFS}PWNED)' to a shell", "NVRTC"),
    ),
    Case(
        "nvcc-ptxas-option-with-shell-punctuation",
        "whole programs and headers",
        "an -X option nvcc pastes unquoted, holding `;`",
        lambda t: ["check", _file(t, "whole.cu", _WHOLE_PROGRAM), "-X", "-Xptxas=-v;id"],
        ("nvcc would hand '-Xptxas=-v;id' to a shell", "where nvcc does not quote"),
    ),
    Case(
        "compile-database-unbalanced-quote",
        "whole programs and headers",
        "a compile_commands.json whose command has an unbalanced quote",
        lambda t: ["check", _compile_database(t, "nvcc -DX='1 -c whole.cu")],
        ("compile_commands.json: the command for whole.cu cannot be split into words",),
    ),
    Case(
        "compile-database-of-non-objects",
        "whole programs and headers",
        "a compile_commands.json that is a list of numbers, not of entries",
        lambda t: [
            "check",
            _file(t, "compile_commands.json", "[1, 2]")
            and _file(t, "v.cu", Path(VECADD).read_text()),
            "--arch",
            "sm_90a",
        ],
        ("compile_commands.json: entry 1 is int, not an object",),
    ),
    Case(
        "cache-dir-holds-users-files",
        "cache directory",
        "SASSVIEW_CACHE_DIR pointing at a directory that already holds files (not cached there)",
        lambda t: ["check", VECADD],
        ("not caching in", "holds files sassview did not write"),
        code=0,
        env=_users_directory,
    ),
]

_by_group(CASES, _SEC30)
