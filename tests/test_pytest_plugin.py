"""The pytest plugin as a user meets it: inner test files run with pytester over real kernels.

Kernel sources are linked, not copied, from examples/ where a test does not change them, so
the compile cache this session already holds serves them (its key is the resolved path).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

# Imported here so every inner session finds them loaded: pytester drops the modules an
# in-process session imports, and sassview's import is most of a small session's time.
import sassview.api  # noqa: F401
import sassview.inspection  # noqa: F401
import sassview.testing.filecheck  # noqa: F401
import sassview.testing.matchers  # noqa: F401

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.compile
EXAMPLES = Path(__file__).parents[1] / "examples"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A test directory with the example kernels beside it."""
    for name in ("vecadd.cu", "gather.cu", "tiled.cu", "wgmma.cu", "pressure.cu"):
        (pytester.path / name).symlink_to(EXAMPLES / name)
    return pytester


def run(pytester: pytest.Pytester, *args: str, subprocess: bool = False) -> pytest.RunResult:
    """Run the inner session with sassview's plugin (from its entry point) and without the
    plugins that keep state across in-process sessions (cache, textual's snapshot report)."""
    quiet = ("-p", "no:cacheprovider", "-p", "no:textual-snapshot")
    if subprocess:
        return pytester.runpytest_subprocess(*quiet, *args)
    return pytester.runpytest_inprocess(*quiet, *args)


def write(pytester: pytest.Pytester, name: str, text: str) -> Path:
    path = pytester.path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_passing_and_failing_assertions_say_what_the_compiler_made(
    project: pytest.Pytester,
) -> None:
    write(
        project,
        "test_k.py",
        """
        def test_vector(sassview_kernel):
            k = sassview_kernel("vecadd.cu", kernel="add_f4")
            k.assert_load_width(128)
            k.assert_no_spills()

        def test_scalar(sassview_kernel):
            k = sassview_kernel("gather.cu", kernel="sum4_scalar")
            k.assert_load_width(128)
    """,
    )
    result = run(project)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_scalar*sm_90a*",
            "*WidthMismatch: sum4_scalar (sm_90a): 4 of 4 global loads in the kernel are not 128*",
            "*expected: 128-bit global loads (e.g. LDG.E.128)",
            "*near miss: 4 x LDG.E.CONSTANT at offsets 0x0, 0x4, 0x8, 0xc from one base*",
            "*hint: use vector types*__restrict__*",
            "*gather.cu:12  out[[]threadIdx.x] = p[[]0] + p[[]1] + p[[]2] + p[[]3];",
            "*> /[*]0070[*]/  LDG.E.CONSTANT R0, desc[[]UR4][[]R2.64] ;",
        ]
    )
    # __tracebackhide__: the traceback ends at the user's line, not inside sassview.
    assert "matchers.py" not in result.stdout.str()


def test_arch_option_runs_each_test_once_per_architecture(project: pytest.Pytester) -> None:
    write(
        project,
        "test_k.py",
        """
        def test_vector(sassview_kernel):
            sassview_kernel("vecadd.cu", kernel="add_f4").assert_load_width(128)
    """,
    )
    result = run(project, "-v", "--sassview-arch", "sm_80,sm_90a")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*test_vector[[]sm_80] PASSED*", "*test_vector[[]sm_90a] PASSED*"])


def test_marker_pins_the_arch_and_gives_the_fixture_its_defaults(project: pytest.Pytester) -> None:
    write(
        project,
        "test_k.py",
        """
        import pytest

        pytestmark = pytest.mark.sassview(path="wgmma.cu")

        @pytest.mark.sassview(arch="sm_90a")
        def test_wgmma(sassview_kernel):
            k = sassview_kernel()
            assert k.arch == "sm_90a"
            k.assert_uses("wgmma")

        @pytest.mark.sassview(path="vecadd.cu", kernel="add_scalar")
        def test_follows_the_command_line(sassview_kernel, sassview_arch):
            assert sassview_kernel().arch == sassview_arch == "sm_80"
    """,
    )
    result = run(project, "-v", "--sassview-arch", "sm_80")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*test_wgmma[[]sm_90a] PASSED*"])


def test_ini_option_sets_the_default_architectures(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nsassview_arch = sm_80\n")
    write(
        project,
        "test_k.py",
        """
        def test_arch(sassview_kernel):
            assert sassview_kernel("vecadd.cu", kernel="add_f4").arch == "sm_80"
    """,
    )
    result = run(project, "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*test_arch[[]sm_80] PASSED*"])


def test_many_assertions_compile_once(project: pytest.Pytester) -> None:
    tests = "\n".join(
        f"""
        def test_{n}(sassview_kernel):
            sassview_kernel("vecadd.cu", kernel="add_f4").assert_count("FADD", 4)
    """
        for n in range(10)
    )
    write(project, "test_k.py", tests)
    result = run(project, "-v")
    result.assert_outcomes(passed=10)
    result.stdout.fnmatch_lines(["sassview: 1 kernel files loaded, 1 kernels inspected; cache: *"])


def test_filecheck_messages_point_at_the_test_file(project: pytest.Pytester) -> None:
    checks = write(project, "add_f4.checks", "CHECK: LDG.E.128\nCHECK-DAG: FADD\nCHECK-DAG: STG\n")
    assert checks.exists()
    write(
        project,
        "test_fc.py",
        """
        from pathlib import Path

        def test_from_a_file(sassview_kernel):
            k = sassview_kernel("vecadd.cu", kernel="add_f4")
            k.filecheck(Path(__file__).parent / "add_f4.checks")

        def test_inline(sassview_kernel):
            k = sassview_kernel("vecadd.cu", kernel="add_f4")
            k.filecheck('''
                CHECK: [[R:R[0-9]+]], desc
                CHECK-NOT: STL
                CHECK: LDG.E.64 [[R]]
            ''')
    """,
    )
    result = run(project)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*FileCheckFailure: FileCheck failed on add_f4 (sm_90a) SASS:",
            "*test_fc.py:13:16: error: CHECK: expected string not found in input",
            "*CHECK: LDG.E.64 [[][[]R]]",
            "*add_f4.sm_90a.sass:*: note: scanning from here",
            '*note: with "R" equal to "R*"',
            "*Input was (add_f4.sm_90a.sass):",
        ]
    )


def test_a_snapshot_of_a_test_id_longer_than_a_file_name_is_kept(pytester: pytest.Pytester) -> None:
    """A parametrised id of 300 characters: the file name is cut, with a digest of the id, so
    two such ids that differ only at their end keep two snapshots."""
    (pytester.path / "k.cu").write_text((EXAMPLES / "vecadd.cu").read_text())
    write(
        pytester,
        "test_long.py",
        """
        import pytest

        @pytest.mark.parametrize("tag", ["x" * 300 + "a", "x" * 300 + "b"])
        def test_listing(sassview_kernel, tag):
            sassview_kernel("k.cu", kernel="add_f4").snapshot()
    """,
    )
    first = run(pytester)
    first.assert_outcomes(passed=2)
    files = sorted((pytester.path / "__snapshots__" / "test_long").iterdir())
    assert len(files) == 2 and all(len(f.name.encode()) <= 255 for f in files), files
    assert all(f.name.startswith("test_listing-xxx") for f in files)
    run(pytester, "--sassview-strict").assert_outcomes(passed=2)  # found again by the same name


def test_snapshots_are_written_when_missing_and_updated_only_on_request(
    pytester: pytest.Pytester,
) -> None:
    kernel = pytester.path / "k.cu"
    kernel.write_text((EXAMPLES / "vecadd.cu").read_text())
    write(
        pytester,
        "test_snap.py",
        """
        def test_listing(sassview_kernel):
            sassview_kernel("k.cu", kernel="add_f4").snapshot()
    """,
    )
    snap = pytester.path / "__snapshots__" / "test_snap" / "test_listing.add_f4.sm_90a.sass"

    # In CI (--sassview-strict) a missing snapshot fails, and nothing is written.
    strict = run(pytester, "--sassview-strict")
    strict.assert_outcomes(failed=1)
    strict.stdout.fnmatch_lines(
        [
            "*no snapshot __snapshots__/test_snap/test_listing.add_f4.sm_90a.sass yet*",
            "*run pytest with --sassview-update to record it*",
        ]
    )
    assert not snap.exists()

    # A first run of a copied test passes: the snapshot is written, and the summary says so.
    first = run(pytester)
    first.assert_outcomes(passed=1)
    first.stdout.fnmatch_lines(
        [
            "*written: *test_listing.add_f4.sm_90a.sass",
            "1 written, 0 updated",
            "new snapshots were recorded from this run: review and commit them*",
        ]
    )
    recorded = snap.read_text()
    assert recorded.startswith("add_f4:\n") and "LDG.E.128" in recorded and "/*" not in recorded
    run(pytester).assert_outcomes(passed=1)

    # The compiler now makes different code: the snapshot fails with a diff, untouched.
    kernel.write_text(kernel.read_text().replace("x.x + y.x", "x.x * y.x"))
    changed = run(pytester)
    changed.assert_outcomes(failed=1)
    changed.stdout.fnmatch_lines(
        ["*listing differs from snapshot*", "*--- snapshot", "*+++ now", "*-  FADD *", "*+  FMUL *"]
    )
    assert snap.read_text() == recorded

    update = run(pytester, "--sassview-update")
    update.stdout.fnmatch_lines(
        ["*updated: *test_listing.add_f4.sm_90a.sass", "0 written, 1 updated"]
    )
    assert "FMUL" in snap.read_text()
    run(pytester).assert_outcomes(passed=1)


def test_snapshots_are_kept_per_architecture(project: pytest.Pytester) -> None:
    write(
        project,
        "test_snap.py",
        """
        import pytest

        @pytest.mark.parametrize("name", ["add_f4", "add_scalar"])
        def test_listing(sassview_kernel, name):
            sassview_kernel("vecadd.cu", kernel=name).snapshot()
    """,
    )
    run(project, "--sassview-update", "--sassview-arch", "sm_80,sm_90a").assert_outcomes(passed=4)
    names = sorted(p.name for p in (project.path / "__snapshots__" / "test_snap").iterdir())
    assert names == [
        f"test_listing-{k}.{k}.{a}.sass"
        for k in ("add_f4", "add_scalar")
        for a in ("sm_80", "sm_90a")
    ]


def test_listing_comparison_shows_a_diff(project: pytest.Pytester) -> None:
    write(
        project,
        "test_cmp.py",
        """
        def test_compare(sassview_kernel):
            k = sassview_kernel("vecadd.cu", kernel="add_f4")
            assert k.normalized() == "add_f4:\\n  EXIT ;\\n"
    """,
    )
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*the listings differ:", "*--- right", "*+++ left", "*+  LDC R0, *"]
    )


def test_kernel_py_declarations_and_variants(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "kernels.py",
        '''
        import sassview as sv

        SAXPY = r"""
        __global__ void saxpy(float a, const float* __restrict__ x, float* __restrict__ y, int n) {
          int i = blockIdx.x * blockDim.x + threadIdx.x;
        #pragma unroll UNROLL
          for (int k = 0; k < n; ++k) y[i * n + k] = a * x[i * n + k] + y[i * n + k];
        }
        """
        sv.cuda(SAXPY, arch="sm_90a", variants={"UNROLL": [1, 4]})
    ''',
    )
    write(
        pytester,
        "test_kpy.py",
        """
        def test_unrolled_variant(sassview_kernel):
            k = sassview_kernel("kernels.py", kernel="saxpy", variant={"UNROLL": 4})
            k.assert_unrolled(line=8, factor=4)

        def test_rolled_variant(sassview_kernel):
            k = sassview_kernel("kernels.py", kernel="saxpy", variant={"UNROLL": 1})
            k.assert_unrolled(line=8, factor=1)

        def test_ambiguous(sassview_kernel):
            sassview_kernel("kernels.py", kernel="saxpy")
    """,
    )
    result = run(pytester)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*sassview: kernels.py (sm_90a): kernels.py: 2 kernels match*"])


def test_missing_frontend_skips_with_the_reason(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "conftest.py",
        """
        import sys
        sys.modules["triton"] = None  # as if triton were not installed
    """,
    )
    write(
        pytester,
        "kernels.py",
        """
        import triton
        import sassview as sv
    """,
    )
    write(
        pytester,
        "test_tr.py",
        """
        def test_triton_kernel(sassview_kernel):
            sassview_kernel("kernels.py", kernel="add_kernel").assert_no_spills()
    """,
    )
    result = run(pytester, "-rs", subprocess=True)
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        ["*SKIPPED*kernels.py needs triton, which is not installed (pip install triton)*"]
    )


def test_compile_errors_fail_the_test_with_the_compilers_words(pytester: pytest.Pytester) -> None:
    write(pytester, "bad.cu", "__global__ void broken(float* p) { p[0] = undefined_thing; }\n")
    write(
        pytester,
        "test_bad.py",
        """
        def test_bad(sassview_kernel):
            sassview_kernel("bad.cu")
    """,
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*sassview: bad.cu (sm_90a):*", "*undefined_thing*"])
    assert "Traceback" not in result.stdout.str()


def test_marker_keywords_are_checked(pytester: pytest.Pytester) -> None:
    write(
        pytester,
        "test_m.py",
        """
        import pytest

        @pytest.mark.sassview(archs="sm_80")
        def test_typo(sassview_kernel):
            pass
    """,
    )
    result = run(pytester)
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*@pytest.mark.sassview takes keywords*archs*"])


def test_the_example_file_passes_as_shipped(pytester: pytest.Pytester) -> None:
    for source in EXAMPLES.glob("*.cu"):
        (pytester.path / source.name).symlink_to(source)
    (pytester.path / "test_kernels.py").write_text((EXAMPLES / "test_kernels.py").read_text())
    first = run(pytester, "--sassview-update")
    first.assert_outcomes(passed=11)
    run(pytester).assert_outcomes(passed=11)


def test_ids_that_differ_only_in_dropped_characters_get_snapshots_of_their_own(
    project: pytest.Pytester,
) -> None:
    """ "a b" and "a_b" clean to one name: a digest of the id as it was keeps them apart,
    and a clean id keeps its plain name."""
    write(
        project,
        "test_snap.py",
        """
        import pytest

        KERNELS = {"a b": "add_f4", "a_b": "add_scalar", "a/b": "add_scalar"}

        @pytest.mark.parametrize("label", list(KERNELS))
        def test_listing(sassview_kernel, label):
            sassview_kernel("vecadd.cu", kernel=KERNELS[label]).snapshot(name="k")
    """,
    )
    run(project, "--sassview-update").assert_outcomes(passed=3)
    again = run(project)  # each compared with its own file: none overwritten by another
    again.assert_outcomes(passed=3)
    assert "written" not in again.stdout.str()
    names = sorted(p.name for p in (project.path / "__snapshots__" / "test_snap").iterdir())
    assert len(names) == 3 and "test_listing-a_b.k.sm_90a.sass" in names
    assert all(n.startswith("test_listing-a_b") for n in names)


def test_snapshots_written_by_xdist_workers_are_reported(project: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    write(
        project,
        "test_snap.py",
        """
        import pytest

        @pytest.mark.parametrize("name", ["add_f4", "add_scalar"])
        def test_listing(sassview_kernel, name):
            sassview_kernel("vecadd.cu", kernel=name).snapshot()
    """,
    )
    result = run(project, "-n", "2", "--sassview-update", subprocess=True)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "*sassview snapshots*",
            "written: *test_listing-add_f4.add_f4.sm_90a.sass",
            "written: *test_listing-add_scalar.add_scalar.sm_90a.sass",
            "2 written, 0 updated",
        ]
    )


def test_the_example_test_file_passes_on_its_first_run(project: pytest.Pytester) -> None:
    """examples/test_kernels.py copied beside the kernels, as its docstring says to: no
    snapshot exists yet, and the run still passes, naming the one it recorded."""
    (project.path / "test_kernels.py").write_text((EXAMPLES / "test_kernels.py").read_text())
    result = run(project)
    result.assert_outcomes(passed=11)
    result.stdout.fnmatch_lines(
        ["written: *test_listing_snapshot.add_f4.sm_90a.sass", "1 written, 0 updated"]
    )
    assert run(project).ret == 0  # and the next run compares with it


def test_workers_sharing_a_kernel_build_it_once_and_the_controller_sums_up(
    project: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two xdist workers, each running every test (`--dist each`) on one kernel and an empty
    cache: one compile and one disassembly in all (the second worker waits for the first or
    finds its entries), and the controller's summary adds both workers' figures."""
    pytest.importorskip("xdist")
    write(
        project,
        "test_shared.py",
        """
        def test_registers(sassview_kernel):
            sassview_kernel("vecadd.cu", kernel="add_f4").assert_max_registers(64)
    """,
    )
    monkeypatch.setenv("SASSVIEW_CACHE_DIR", str(tmp_path / "fresh"))
    result = project.runpytest_subprocess(
        "-p", "no:cacheprovider", "-n", "2", "--dist", "each", "-v"
    )
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "sassview: 2 kernel files loaded, 2 kernels inspected;"
            " cache: 2 built, 2 read (* after waiting*)"
        ]
    )


def test_a_failure_quotes_a_hint_with_its_standing(pytester: pytest.Pytester) -> None:
    """A knob a hint names (PAD=1) reads in the failure as check prints it: untried
    (steer/standing.py, issue #33 item 4), never as a bare fix."""
    pad = Path(__file__).parent / "data" / "try" / "transpose_pad.cu"
    (pytester.path / "transpose_pad.cu").symlink_to(pad)
    write(
        pytester,
        "test_k.py",
        """
        def test_conflict_free(sassview_kernel):
            sassview_kernel("transpose_pad.cu").assert_no_bank_conflicts()
    """,
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*BankConflictFound*",
            "*finding: line 16: shared load is a 32-way bank conflict*",
            "*hint: pad the row*[[]untried: `sassview try` (or `check --try`) compiles PAD=1*",
        ]
    )
