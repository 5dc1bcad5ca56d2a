"""A kernel.py is a user's script: its exits, threads, forks and exit handlers are contained
(frontends/user_code.py, views/user_output.py), so `--json` stays one document, sassview ends
when its work does, and nothing it forked outlives it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import assert_clean_error

pytestmark = pytest.mark.compile

KERNEL = """\
import sassview as sv

sv.cuda(r'''__global__ void twice(float* p) { p[threadIdx.x] *= 2.0f; }''', arch="sm_90a")
"""


def check_json(tmp_path: Path, code: str, *, guard: float = 300) -> subprocess.CompletedProcess:
    """`sassview check kernel.py --json` on the kernel above followed by `code`. `guard` is a
    hang guard only (a run that waits for a thread that never ends), never a speed bound."""
    path = tmp_path / "kernel.py"
    path.write_text(KERNEL + code)
    return subprocess.run(
        [sys.executable, "-m", "sassview", "check", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=guard,
    )


def one_document(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["programs"], done.stdout  # one document, nothing around it


def test_os_exit_while_importing_is_an_error_naming_the_file(tmp_path: Path) -> None:
    done = check_json(tmp_path, "import os\nos._exit(0)\n")
    assert_clean_error(done, "kernel.py: importing it called os._exit(0)", 'kernel.py", line 5')


def test_os_exit_in_a_thread_of_the_file_is_the_same_error(tmp_path: Path) -> None:
    code = "import os, threading\nt = threading.Thread(target=os._exit, args=(3,))\n"
    done = check_json(tmp_path, code + "t.start()\nt.join()\n")
    assert_clean_error(done, "os._exit(3)")
    assert "Traceback" not in done.stderr and "UserExit" not in done.stderr


def test_an_atexit_handler_prints_on_stderr_not_into_the_json(tmp_path: Path) -> None:
    done = check_json(tmp_path, "import atexit\natexit.register(print, 'AT-EXIT')\n")
    one_document(done)
    assert "AT-EXIT" in done.stderr  # it ran: a user's cleanup is not skipped


def test_a_daemon_thread_that_keeps_printing_stays_off_stdout(tmp_path: Path) -> None:
    code = """
import os, threading
def chatter():
    while True:
        print("DAEMON-print", flush=True)
        os.write(1, b"DAEMON-fd1\\n")
threading.Thread(target=chatter, daemon=True).start()
"""
    done = check_json(tmp_path, code)
    one_document(done)
    assert "DAEMON-print" in done.stderr and "DAEMON-fd1" in done.stderr


def test_a_thread_that_never_ends_does_not_keep_sassview_alive(tmp_path: Path) -> None:
    code = "import threading\nthreading.Thread(target=threading.Event().wait).start()\n"
    one_document(check_json(tmp_path, code, guard=120))  # before: waited for it forever


def test_a_fork_at_import_gives_one_document_and_no_child_outlives_sassview(
    tmp_path: Path,
) -> None:
    pids = tmp_path / "pids"
    code = f"""
import os, time
if os.fork() == 0:  # one child waits in the file's code, forever
    open({str(pids)!r}, "a").write(f"{{os.getpid()}}\\n")
    while True:
        time.sleep(1)
os.fork()  # the other, and the parent, go on into sassview's code
"""
    done = check_json(tmp_path, code)
    one_document(done)
    (pid,) = map(int, pids.read_text().split())
    assert not Path(f"/proc/{pid}").exists(), "the forked child outlived sassview"


@pytest.mark.parametrize("where", ["closed", "full", "broken pipe"])
def test_a_report_that_cannot_be_written_is_one_error(tmp_path: Path, where: str) -> None:
    path = Path(__file__).parents[1] / "examples" / "vecadd.cu"
    command = [sys.executable, "-m", "sassview", "check", str(path), "--json"]
    read, write = os.pipe()
    os.close(read)  # "broken pipe": the reader is gone before the report is written
    with open("/dev/full", "w") as full:
        if where == "closed":  # the shell closes fd 1 (`>&-`) before sassview starts
            command = ["sh", "-c", 'exec "$@" >&-', "sh", *command]
        stdout = {"closed": None, "full": full, "broken pipe": write}[where]
        done = subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, text=True)
    os.close(write)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ") and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("error: ") == 1
