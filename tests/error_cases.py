"""Every input error the CLI can meet, as data: the test runs each one against the real CLI,
and docs/gen_errors.py writes docs/errors.md from the same cases with their real messages.

A case: id, what the user did (one line), how to set it up, the sassview arguments, the exit
code expected, and words the message must contain.
"""

from __future__ import annotations

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
]


def environment(case: Case, tmp: Path) -> dict[str, str]:
    env = {**os.environ, **case.env(tmp)}
    env.setdefault("SASSVIEW_CACHE_DIR", str(tmp / "cache"))
    return env


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
        ("not a listing", "is not JSON", "SASSVIEW_NVDISASM"),
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
]


def _by_group(cases: list[Case], more: list[Case]) -> None:
    """Put each case after the last one of its group, so docs/errors.md keeps one section
    per group."""
    for case in more:
        at = max((i for i, c in enumerate(cases) if c.group == case.group), default=len(cases))
        cases.insert(at + 1, case)


_by_group(CASES, _MORE)
