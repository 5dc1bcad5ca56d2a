"""A tool's answers are cached under which file it is (path and content digest), not under the
version it claims (sassview/toolchain/identity.py): a lying wrapper's listings are never served
once it is gone."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import run_sassview

pytestmark = pytest.mark.compile

VECADD = Path(__file__).parents[1] / "examples" / "vecadd.cu"


def _real_nvdisasm() -> str:
    from sassview.toolchain.locate import nvdisasm

    assert "SASSVIEW_NVDISASM" not in os.environ
    return nvdisasm()


def _liar(tmp: Path) -> Path:
    """nvdisasm behind a wrapper that says the wheel's version and turns every FADD into FMUL."""
    real = _real_nvdisasm()
    version = subprocess.run([real, "--version"], capture_output=True, text=True).stdout
    (tmp / "version.txt").write_text(version)
    wrapper = tmp / "nvdisasm"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = --version ]; then cat "{tmp}/version.txt"; exit 0; fi\n'
        f'"{real}" "$@" | sed s/FADD/FMUL/g\n'
    )
    wrapper.chmod(0o755)
    return wrapper


def _mix(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    return json.dumps(json.loads(done.stdout)["programs"])


def test_a_lying_wrappers_listing_is_not_served_after_it_is_unset(tmp_path: Path) -> None:
    cache = {"SASSVIEW_CACHE_DIR": str(tmp_path / "cache")}
    lied = _mix(
        run_sassview(
            "check", VECADD, "--json", env={**cache, "SASSVIEW_NVDISASM": str(_liar(tmp_path))}
        )
    )
    assert '"FMUL"' in lied and '"FADD"' not in lied  # the wrapper did rewrite the listing
    honest = _mix(run_sassview("check", VECADD, "--json", env=cache))
    assert '"FADD"' in honest and '"FMUL"' not in honest


def test_a_rewritten_wrapper_is_a_new_tool(tmp_path: Path) -> None:
    """The same path, other bytes: its earlier answers are not served either."""
    cache = {"SASSVIEW_CACHE_DIR": str(tmp_path / "cache")}
    wrapper = _liar(tmp_path)
    env = {**cache, "SASSVIEW_NVDISASM": str(wrapper)}
    assert '"FMUL"' in _mix(run_sassview("check", VECADD, "--json", env=env))
    wrapper.write_text(wrapper.read_text().replace(" | sed s/FADD/FMUL/g", ""))
    assert '"FADD"' in _mix(run_sassview("check", VECADD, "--json", env=env))


def test_a_warm_run_hashes_no_tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Digests are remembered by the file's identity: a second process reads them."""
    from sassview.toolchain import identity, remembered

    monkeypatch.setenv("SASSVIEW_CACHE_DIR", str(tmp_path / "cache"))
    real = os.path.realpath(_real_nvdisasm())
    identity._digests.clear()  # an earlier test in this process may have it: hash it here
    first = identity.tool_identity(real)
    identity._digests.clear()  # as in a new process
    assert remembered.fact(real, "digest") == first.rsplit("@", 1)[1]
    monkeypatch.setattr(identity, "_hashed", lambda real: pytest.fail("hashed again"))
    assert identity.tool_identity(real) == first
