"""Stopping sassview leaves nothing behind, and a broken tool never poisons the cache.

Kill points are deterministic: a fake nvdisasm records its process ids in a file once it runs
(and then hangs), the NVRTC compile announces itself on stderr with -v; the test sends its
signal only after that, and every wait is bounded. The slow compile is real: an exponential
template instantiation (DEPTH=16 takes over a minute; 18 far longer) that is stopped early.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.processes import (
    BOUND_S,
    ROOT,
    SLOW_CU,
    VECADD,
    _alive,
    _announced,
    _env,
    _fake_nvdisasm,
    _finish,
    _hanging_nvdisasm,
    _recorded_pids,
    _session,
    _start,
    _stderr_lines,
    _wait_for,
)

from sassview.errors import ToolFailed

pytestmark = pytest.mark.compile


def test_sigterm_during_disassembly_ends_nvdisasm_and_removes_the_cubin(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    env = _env(tmp_path, SASSVIEW_NVDISASM=str(_hanging_nvdisasm(tmp_path, ready)))
    proc = _start(["check", str(VECADD)], env)
    _wait_for(lambda: bool(_announced(ready)), "nvdisasm to start")  # one run: no spills
    pids = _recorded_pids(ready)
    proc.send_signal(signal.SIGTERM)
    _, err = _finish(proc)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    assert "terminated" in err
    tools = [pid for pid in pids if pid != proc.pid]  # the fakes and their sleeping children
    assert not [pid for pid in tools if _alive(pid)]
    assert not list((tmp_path / "tmpdir").iterdir())  # the temporary cubin is gone


def test_ctrl_c_during_many_variants_stops_the_pool_at_once(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    env = _env(tmp_path, SASSVIEW_NVDISASM=str(_hanging_nvdisasm(tmp_path, ready)))
    kernel_py = tmp_path / "kernel.py"
    kernel_py.write_text(
        f"import sassview as sv\nsv.cuda_file({str(VECADD)!r}, variants={{'V': range(12)}})\n"
    )
    proc = _start(["sweep", str(kernel_py)], env)
    _wait_for(lambda: bool(_announced(ready)), "a worker to reach nvdisasm")
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C at the terminal does
    _, err = _finish(proc)
    assert proc.returncode == 128 + signal.SIGINT, err
    assert "Traceback" not in err
    assert "interrupted" in err
    assert not [pid for pid in _recorded_pids(ready) if _alive(pid)]  # tools, workers
    left = {pid: Path(f"/proc/{pid}/stat").read_text() for pid in _session(proc.pid)}
    assert not left  # no worker, no compile left running
    assert not list((tmp_path / "tmpdir").iterdir())


def test_ctrl_c_stops_a_long_nvrtc_compile(tmp_path: Path) -> None:
    source = tmp_path / "slow.cu"
    source.write_text(SLOW_CU)
    proc = _start(["-v", "check", str(source)], _env(tmp_path))
    lines = _stderr_lines(proc)
    seen = []
    while not any("nvrtc: compiling" in line for line in seen):
        seen.append(lines.get(timeout=BOUND_S))
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise AssertionError("the compile went on after Ctrl-C") from None
    assert proc.returncode == 128 + signal.SIGINT
    assert not _session(proc.pid)


def test_a_tool_printing_garbage_fails_the_run_and_is_not_cached(tmp_path: Path) -> None:
    fake = _fake_nvdisasm(tmp_path, "head -c 5000 /dev/urandom")
    env = _env(tmp_path, SASSVIEW_NVDISASM=str(fake))
    args = [sys.executable, "-m", "sassview", "check", str(VECADD)]
    first = subprocess.run(args, capture_output=True, text=True, env=env, timeout=BOUND_S)
    assert first.returncode == 2, first.stderr
    del env["SASSVIEW_NVDISASM"]  # the real tool, same version, same cache
    again = subprocess.run(args, capture_output=True, text=True, env=env, timeout=BOUND_S)
    assert again.returncode == 0, again.stderr  # nothing of the garbage was kept
    assert "add_f4" in again.stdout
    assert "not a listing" in first.stderr


def _real_listings() -> tuple[str, str, list[str]]:
    from sassview.disasm.nvdisasm import disassemble

    cubin = (ROOT / "tests" / "corpus" / "vecadd" / "sm_90a" / "kernel.cubin").read_bytes()
    found = disassemble(cubin, json=True)
    return found.json, found.text, ["nvdisasm"]


@pytest.mark.parametrize(
    ("mutate", "why"),
    [
        (lambda j, t: ("", t), "not valid JSON"),
        (lambda j, t: ('{"a": 1}', t), "not [header, functions"),
        (lambda j, t: ("[{}, [{}]]", t), "without a name"),
        (lambda j, t: (j, t.replace("add_f4:", "")), "lacks function add_f4"),
    ],
    ids=["not-json", "wrong-layout", "nameless-function", "text-of-another-cubin"],
)
def test_listings_that_are_not_nvdisasms_are_refused(
    mutate: Callable[[str, str], tuple[str, str]],
    why: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sassview.disasm.nvdisasm import check_listings

    monkeypatch.setenv("SASSVIEW_CACHE_DIR", str(tmp_path))
    json_text, text, command = _real_listings()
    check_listings(json_text, text, command)  # the real ones pass
    with pytest.raises(ToolFailed, match=re.escape(why)):
        check_listings(*mutate(json_text, text), command)


def test_a_cached_run_does_not_ask_the_wheels_tools_for_their_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sassview.memo import forget_all
    from sassview.toolchain import locate

    monkeypatch.setenv("SASSVIEW_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("SASSVIEW_NVDISASM", raising=False)
    forget_all()
    asked = locate._executable("nvdisasm")
    assert asked.version
    forget_all()

    def must_not_run(*args: object) -> str:
        raise AssertionError("probed again")

    monkeypatch.setattr(locate, "_probe_version", must_not_run)
    try:
        assert locate._executable("nvdisasm").version == asked.version
        with pytest.raises(AssertionError, match="probed again"):
            locate._executable("nvdisasm", False)  # doctor's way: always ask
    finally:
        forget_all()


def test_a_library_crash_in_the_child_is_an_error_not_the_end_of_sassview() -> None:
    from sassview.errors import ToolchainError
    from sassview.toolchain.child import call_in_child

    def die() -> None:  # as the OOM killer would end it
        os.kill(os.getpid(), signal.SIGKILL)

    with pytest.raises(ToolchainError, match=r"NVRTC crashed \(SIGKILL\)"):
        call_in_child(die, what="NVRTC", timeout=BOUND_S)
    with pytest.raises(ToolchainError, match="NVRTC raised ZeroDivisionError") as caught:
        call_in_child(divmod, 1, 0, what="NVRTC", timeout=BOUND_S)
    assert "Traceback" in caught.value.detail  # the child's, for the bug report
