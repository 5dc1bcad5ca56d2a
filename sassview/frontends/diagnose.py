"""Turn compiler and assembler logs into hints a kernel author can act on."""

from __future__ import annotations

import re

from sassview.frontends.arch import ArchFeature, feature_of, suggest_target

# ptxas: "Instruction 'wgmma.fence' not supported on .target 'sm_90'",
# "Feature 'cp.async.bulk.tensor' requires .target sm_90 or higher" (also "Modifier '.async'"),
# "Feature 'wgmma' requires .target sm_90a".
_NOT_SUPPORTED = re.compile(r"Instruction '([\w.:]+)[^']*' not supported on \.target")
_REQUIRES = re.compile(
    r"(?:Feature|Modifier) '([^']+)' requires \.target sm_(\d+)([af]?)( or higher)?"
)
_PTX_VERSION = re.compile(r"Unsupported \.version (\d+\.\d+); current version is '(\d+\.\d+)'")
_NVRTC_ERROR = re.compile(r"^(.*?)\((\d+)\): (?:catastrophic )?error:?\s*(.*)$", re.M)


def arch_hint(log: str, arch: str) -> str:
    """The target to compile for when ptxas says this one lacks an instruction: one that exists
    and has all of them (wgmma on sm_80 or sm_90 -> sm_90a), from `frontends.arch`'s table."""
    used: dict[str, ArchFeature | None] = {}  # what the log names -> its arch-specific feature
    at_least = 0
    for name in _NOT_SUPPORTED.findall(log):
        feature = feature_of(name)
        used[feature.name if feature else name] = feature
    for name, number, suffix, or_higher in _REQUIRES.findall(log):
        feature = feature_of(name) or (feature_of(name + ".") if suffix else None)
        used.setdefault(feature.name if feature else name, feature)
        at_least = max(at_least, int(number) if or_higher or not suffix else 0)
    features = list(dict.fromkeys(f for f in used.values() if f is not None))
    target = suggest_target(arch, features, at_least) if used else None
    if target:
        names = [*(f.name for f in features), *(n for n, f in used.items() if f is None)]
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        return f"this code uses {shown}, which {arch} lacks: compile for {target} (--arch {target})"
    version = _PTX_VERSION.search(log)
    if version:
        return (
            f"the PTX says .version {version.group(1)} but this assembler reads up to "
            f"{version.group(2)}: upgrade nvidia-nvjitlink, or emit older PTX"
        )
    return ""


def first_error(log: str) -> str:
    """`file:line: message` of the first error in an NVRTC log, or ""."""
    match = _NVRTC_ERROR.search(log)
    if not match:
        return ""
    return f"{match.group(1)}:{match.group(2)}: {match.group(3).strip()}"


def error_count(log: str) -> int:
    return len(_NVRTC_ERROR.findall(log))


# The compiler names the option that allows what it refuses: "The experimental flag
# '--expt-relaxed-constexpr' can be used to allow this", "... or the flag '-extended-lambda' is
# specified", "kernel launch from __device__ or __global__ functions requires separate
# compilation mode". Each -> the option in the spelling both NVRTC and nvcc take.
_NAMED_FLAG = re.compile(
    r"""(?:flag|option)\s+['"](-{1,2}[A-Za-z][\w=+.-]*)['"]"""
    r"|requires (-{1,2}[A-Za-z][\w=+.-]*) (?:nvcc )?(?:flag|option)"
)
_SEPARATE_COMPILATION = re.compile(
    r"requires separate compilation mode|device-side kernel launch could not be processed"
)
_SPELLINGS = {
    "-expt-relaxed-constexpr": "--expt-relaxed-constexpr",
    "-extended-lambda": "--extended-lambda",
    "--expt-extended-lambda": "--extended-lambda",
    "-expt-extended-lambda": "--extended-lambda",
}
_LOG_ERROR = re.compile(r"^.*?(?:\(\d+\): (?:catastrophic )?error|: (?:fatal )?error:)", re.M)
_LOG_TOTAL = re.compile(r"errors? detected in the compilation of")
_CONTEXT_LINES = 30


def compiler_advice(log: str) -> str:
    """The option the compiler's own message says allows what it refused, or ""."""
    named = _NAMED_FLAG.search(log)
    if named:
        flag = named.group(1) or named.group(2)
        return _SPELLINGS.get(flag, flag)
    if _SEPARATE_COMPILATION.search(log):
        return "-rdc=true"
    return ""


def trimmed_log(log: str) -> str:
    """The compiler's log cut to its first error and that error's context (the source line, the
    caret, the instantiation chain), and its closing count: a failed template instantiation
    can print hundreds of lines, of which the first error is the one to read."""
    lines = log.splitlines()
    starts = [i for i, line in enumerate(lines) if _LOG_ERROR.match(line)]
    if len(lines) <= _CONTEXT_LINES or not starts:
        return log
    first = starts[0]
    end = min(next((s for s in starts[1:] if s > first), len(lines)), first + _CONTEXT_LINES)
    kept = lines[first:end]
    while kept and not kept[-1].strip():
        kept.pop()
    total = next((line for line in reversed(lines) if _LOG_TOTAL.search(line)), None)
    left = len(lines) - len(kept) - (total is not None)
    if left <= 0:
        return log
    kept.append(f"... {left} more lines of the compiler's log (-v prints all of it)")
    return "\n".join([*kept, *([total] if total else [])])
