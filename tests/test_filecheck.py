"""FileCheck semantics, directive by directive, against what LLVM FileCheck does.

Each expectation follows LLVM's documentation (llvm.org/docs/CommandGuide/FileCheck.html) and
FileCheck.cpp: where a result might surprise, the test name says why. No compiler needed.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sassview.testing.filecheck import (
    CheckFileError,
    FileCheckFailure,
    Options,
    filecheck,
    parse_checks,
    run_filecheck,
)
from sassview.testing.filecheck.pattern import translate_regex


def passes(checks: str, text: str, **options: object) -> None:
    result = run_filecheck(checks, text, options=Options(**options))  # type: ignore[arg-type]
    assert result.ok, result.report()


def fails(checks: str, text: str, **options: object) -> str:
    result = run_filecheck(checks, text, options=Options(**options))  # type: ignore[arg-type]
    assert not result.ok, f"expected a failure of\n{checks}\non\n{text}"
    return result.report()


def bad_checks(checks: str, **options: object) -> str:
    with pytest.raises(CheckFileError) as caught:
        parse_checks(checks, options=Options(**options))  # type: ignore[arg-type]
    return str(caught.value)


# -- CHECK ---------------------------------------------------------------------------------


def test_check_matches_in_order_anywhere_in_a_line() -> None:
    passes("CHECK: foo\nCHECK: bar", "xx foo yy\nzz bar\n")
    fails("CHECK: bar\nCHECK: foo", "foo\nbar\n")


def test_next_check_searches_from_the_end_of_the_previous_match_even_on_the_same_line() -> None:
    passes("CHECK: a\nCHECK: b", "a b\n")
    fails("CHECK: b\nCHECK: a", "a b\n")


def test_blank_runs_are_one_space_unless_strict() -> None:
    passes("CHECK: LDG.E   R2,  [R4]", "LDG.E\tR2, \t [R4]\n")
    fails("CHECK: LDG.E R2", "LDG.E\tR2\n", strict_whitespace=True)
    passes("CHECK: LDG.E\tR2", "LDG.E\tR2\n", strict_whitespace=True)


def test_pattern_blanks_at_both_ends_are_dropped() -> None:
    passes("CHECK:     foo   \n", "xfoox\n")


def test_prefix_must_begin_a_word() -> None:
    report = bad_checks("XCHECK: foo\nMY-CHECK: bar\nCHECK_X: baz")
    assert "no check strings found with prefix 'CHECK:'" in report
    passes("// CHECK: foo\n;CHECK: bar", "foo bar")


def test_a_prefix_followed_by_no_known_suffix_is_not_a_directive() -> None:
    passes("CHECK-FOO: nothing\nCHECK: real", "real")


def test_comments_hide_directives() -> None:
    passes("COM: CHECK: missing\nRUN: CHECK: missing too\nCHECK: here", "here")


def test_literal_modifier_matches_brackets_as_text() -> None:
    passes("CHECK{LITERAL}: [[x]] {{y}}", "a [[x]] {{y}} b")
    passes("CHECK-NEXT{LITERAL}: [[z]]".replace("CHECK-NEXT", "CHECK: a\nCHECK-NEXT"), "a\n[[z]]")


def test_custom_prefixes_and_unused_ones() -> None:
    passes("SM90: foo\nCHECK: bar", "foo bar", prefixes=("SM90", "CHECK"))
    assert "no check strings found with prefix 'SM80:'" in bad_checks(
        "SM90: foo", prefixes=("SM90", "SM80")
    )
    assert "must start with a letter" in bad_checks("CHECK: x", prefixes=("A B",))
    assert "must be unique" in bad_checks("CHECK: x", prefixes=("CHECK", "CHECK"))


# -- malformed check files ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("checks", "message"),
    [
        ("CHECK:", "found empty check string with prefix 'CHECK:'"),
        ("CHECK: a\nCHECK-EMPTY: b", "found non-empty check string for empty check"),
        ("CHECK-NEXT: a", "found 'CHECK-NEXT' without previous 'CHECK: line"),
        ("CHECK-SAME: a", "found 'CHECK-SAME' without previous 'CHECK: line"),
        ("CHECK-NOT: x\nCHECK-EMPTY:", "found 'CHECK-EMPTY' without previous 'CHECK: line"),
        ("CHECK_NEXT: a", "misspelled directive 'CHECK_NEXT:'"),
        ("CHECK-NOT-NEXT: a", "unsupported -NOT combo on prefix 'CHECK'"),
        ("CHECK-COUNT-0: a", "invalid count in -COUNT specification on prefix 'CHECK'"),
        ("CHECK-COUNT-x: a", "invalid count in -COUNT specification"),
        ("CHECK: {{abc", "found start of regex string with no end '}}'"),
        ("CHECK: {{a(b}}", "invalid regex"),
        ("CHECK: [[X", "Invalid substitution block, no ]] found"),
        ("CHECK: [[1X:a]]", "invalid variable name"),
        ("CHECK: [[X Y:a]]", "unexpected whitespace"),
        ("CHECK: [[X+1]]", "invalid name in string variable use"),
        ("CHECK: [[@FOO]]", "invalid pseudo numeric variable '@FOO'"),
        ("CHECK: [[#X]]", "numeric substitution blocks ([[#...]]) are not supported"),
        ("CHECK-LABEL: [[X:a]]", "found 'CHECK-LABEL:' with variable definition or use"),
        ("CHECK: {{[[:nope:]]}}", "invalid regex: unknown character class"),
        ("nothing here", "no check strings found with prefix 'CHECK:'"),
    ],
)
def test_malformed_check_files_are_rejected_with_llvms_message(checks: str, message: str) -> None:
    assert message in bad_checks(checks)


def test_check_file_errors_point_at_the_line_and_column() -> None:
    report = bad_checks("CHECK: ok\n  CHECK-NEXT: {{x")
    assert report.startswith("<checks>:2:15: error: found start of regex string with no end")
    assert report.splitlines()[1:] == ["  CHECK-NEXT: {{x", "              ^"]


# -- CHECK-NEXT / CHECK-SAME / CHECK-EMPTY ---------------------------------------------------


def test_next_must_be_on_the_following_line() -> None:
    passes("CHECK: a\nCHECK-NEXT: b\nCHECK-NEXT: c", "a\nb\nc\n")
    report = fails("CHECK: a\nCHECK-NEXT: c", "a\nb\nc\n")
    assert "CHECK-NEXT: is not on the line after the previous match" in report
    assert "note: 'next' match was here" in report
    assert "note: previous match ended here" in report
    assert "<input>:2:1: note: non-matching line after previous match is here" in report


def test_next_takes_the_first_match_then_checks_its_line() -> None:
    # Line 2 holds a "b" on the right line, but FileCheck takes the first "b" after "a".
    report = fails("CHECK: a\nCHECK-NEXT: b", "a b\nb\n")
    assert "CHECK-NEXT: is on the same line as previous match" in report
    report = fails("CHECK: a\nCHECK-NEXT: b", "a\nx\nb\nb\n")
    assert "CHECK-NEXT: is not on the line after the previous match" in report


def test_same_must_stay_on_the_line() -> None:
    passes("CHECK: a\nCHECK-SAME: b\nCHECK-SAME: c", "a b c\n")
    report = fails("CHECK: a\nCHECK-SAME: b", "a\nb\n")
    assert "CHECK-SAME: is not on the same line as the previous match" in report


def test_empty_means_the_next_line_is_empty() -> None:
    passes("CHECK: a\nCHECK-EMPTY:\nCHECK-NEXT: b", "a\n\nb\n")
    report = fails("CHECK: a\nCHECK-EMPTY:", "a\nx\n\nb\n")
    assert "CHECK-EMPTY: is not on the line after the previous match" in report
    fails("CHECK: a\nCHECK-EMPTY:", "a\nx\ny\n")


# -- CHECK-NOT ------------------------------------------------------------------------------


def test_not_between_two_checks_looks_only_between_their_matches() -> None:
    checks = "CHECK: LDG\nCHECK-NOT: STL\nCHECK: EXIT"
    passes(checks, "STL\nLDG\nFADD\nEXIT\nSTL\n")
    report = fails(checks, "LDG\nSTL\nEXIT\n")
    assert "<checks>:2:12: error: CHECK-NOT: excluded string found in input" in report
    assert "<input>:2:1: note: found here" in report
    assert "STL\n^~~" in report


def test_not_before_the_first_check_covers_the_start_of_the_input() -> None:
    passes("CHECK-NOT: x\nCHECK: a", "a x")
    fails("CHECK-NOT: x\nCHECK: a", "x a")


def test_not_after_the_last_check_covers_the_rest_of_the_input() -> None:
    passes("CHECK: a\nCHECK-NOT: x", "x a b")
    fails("CHECK: a\nCHECK-NOT: x", "a b x")


def test_not_alone_covers_everything() -> None:
    passes("CHECK-NOT: STL", "LDG\nEXIT\n")
    fails("CHECK-NOT: STL", "LDG\nSTL\n")


def test_every_excluded_string_is_reported() -> None:
    report = fails("CHECK: a\nCHECK-NOT: x\nCHECK-NOT: y\nCHECK: b", "a x y b")
    assert report.count("excluded string found in input") == 2


def test_not_between_next_checks_still_applies() -> None:
    fails("CHECK: a\nCHECK-NOT: z\nCHECK-NEXT: b", "a z\nb\n")
    passes("CHECK: a\nCHECK-NOT: z\nCHECK-NEXT: b", "a\nb z\n")


# -- CHECK-DAG ------------------------------------------------------------------------------


def test_dag_matches_in_any_order() -> None:
    passes("CHECK-DAG: b\nCHECK-DAG: a\nCHECK: c", "a\nb\nc\n")
    passes("CHECK-DAG: a\nCHECK-DAG: b\nCHECK: c", "b\na\nc\n")


def test_dag_matches_may_not_overlap() -> None:
    fails("CHECK-DAG: a\nCHECK-DAG: a", "a\n")
    passes("CHECK-DAG: a\nCHECK-DAG: a", "a a\n")
    # "b" first matches inside "ab", is discarded, and is found again after it.
    passes("CHECK-DAG: ab\nCHECK-DAG: b", "ab b")
    fails("CHECK-DAG: ab\nCHECK-DAG: b", "ab")


def test_the_check_after_a_dag_group_starts_after_its_furthest_match() -> None:
    fails("CHECK-DAG: a\nCHECK-DAG: c\nCHECK: b", "a b c")
    passes("CHECK-DAG: a\nCHECK-DAG: c\nCHECK: b", "c a b")


def test_not_between_dag_groups_splits_them() -> None:
    # LLVM's example: BEFORE must come before AFTER, with no NOT between them.
    checks = "CHECK-DAG: BEFORE\nCHECK-NOT: NOT\nCHECK-DAG: AFTER"
    passes(checks, "BEFORE AFTER")
    passes(checks, "NOT BEFORE AFTER NOT")
    fails(checks, "BEFORE NOT AFTER")
    report = fails(checks, "AFTER BEFORE")
    assert "CHECK-DAG: expected string not found in input" in report


def test_dag_variables_defined_in_one_line_are_used_by_the_next() -> None:
    # LLVM's example: the use may come before the definition in the input.
    checks = "CHECK-DAG: vmov.32 [[REG2:d[0-9]+]][0]\nCHECK-DAG: vmov.32 [[REG2]][1]"
    passes(checks, "vmov.32 d0[1]\nvmov.32 d0[0]\n")
    fails(checks, "vmov.32 d1[1]\nvmov.32 d0[0]\n")


def test_not_before_a_dag_group_ends_at_the_groups_first_match() -> None:
    checks = "CHECK: start\nCHECK-NOT: x\nCHECK-DAG: a\nCHECK-DAG: b"
    passes(checks, "start b a x")
    fails(checks, "start x b a")


# -- CHECK-LABEL ----------------------------------------------------------------------------


def test_labels_cut_the_input_into_regions() -> None:
    checks = "CHECK-LABEL: f1:\nCHECK: y\nCHECK-LABEL: f2:"
    fails(checks, "f1:\nx\nf2:\ny\n")  # y belongs to f2's region
    passes(checks, "f1:\ny\nf2:\n")


def test_each_region_reports_its_own_failure() -> None:
    checks = "CHECK-LABEL: f1:\nCHECK: a\nCHECK-LABEL: f2:\nCHECK: b\nCHECK-LABEL: f3:\nCHECK: c"
    report = fails(checks, "f1:\nx\nf2:\nx\nf3:\nc\n")
    assert report.count("error: CHECK: expected string not found in input") == 2


def test_a_missing_label_stops_everything() -> None:
    report = fails("CHECK-LABEL: f1:\nCHECK: a\nCHECK-LABEL: f9:\nCHECK: b", "f1:\nzz\nf2:\nb")
    assert "CHECK-LABEL: expected string not found in input" in report
    assert "error: CHECK: expected" not in report


def test_var_scope_clears_local_variables_at_labels() -> None:
    checks = "CHECK: [[L:[a-z]+]] [[$G:[0-9]+]]\nCHECK-LABEL: f:\nCHECK: [[L]] [[$G]]"
    passes(checks, "ab 12\nf:\nab 12\n")
    report = fails(checks, "ab 12\nf:\nab 12\n", enable_var_scope=True)
    assert "undefined variable: L" in report


# -- CHECK-COUNT ---------------------------------------------------------------------------


def test_count_matches_n_times_in_a_row() -> None:
    passes("CHECK-COUNT-3: FADD", "FADD FADD\nFFMA\nFADD\n")
    report = fails("CHECK-COUNT-3: FADD", "FADD\nFADD\n")
    assert "CHECK-COUNT: expected string not found in input (3 out of 3)" in report
    passes("CHECK-COUNT-2: a\nCHECK-NEXT: b", "a\na\nb\n")


# -- patterns -------------------------------------------------------------------------------


def test_regex_blocks_and_alternation_stay_grouped() -> None:
    passes("CHECK: R{{[0-9]+}}, 0x10", "IMAD R12, 0x10")
    passes("CHECK: abc{{x|z}}def", "abczdef")
    fails("CHECK: abc{{x|z}}def", "abcx")


def test_posix_classes_are_understood() -> None:
    passes("CHECK: R{{[[:digit:]]+}}", "R42")
    assert translate_regex("[[:alpha:]_]") == "[a-zA-Z_]"


def test_regexes_do_not_cross_lines_unless_asked() -> None:
    fails("CHECK: a{{.*}}b", "a\nb")
    fails("CHECK: a{{[^x]*}}b", "a\nb")  # POSIX REG_NEWLINE: [^x] never matches a newline
    passes("CHECK: a{{\\n}}b", "a\nb")


def test_anchors_match_at_line_ends() -> None:
    passes("CHECK: {{^}}foo{{$}}", "xfoo\nfoo bar\nfoo\n")
    fails("CHECK: {{^}}foo{{$}}", "xfoo\nfoo bar\n")


def test_variables_are_defined_then_substituted_literally() -> None:
    checks = "CHECK: LDG.E [[R:R[0-9]+]],\nCHECK: FADD {{.*}}, [[R]]"
    passes(checks, "LDG.E R3, [R2]\nFADD R9, R4, R3\n")
    report = fails(checks, "LDG.E R3, [R2]\nFADD R9, R4, R5\n")
    assert 'note: with "R" equal to "R3"' in report


def test_a_variable_used_on_its_own_line_is_a_backreference() -> None:
    passes("CHECK: [[X:[a-z]+]] [[X]]", "ab cd ab ab\n")
    fails("CHECK: [[X:[a-z]+]] = [[X]]", "ab = cd\n")


def test_later_definitions_replace_earlier_ones() -> None:
    passes("CHECK: [[X:[0-9]+]]\nCHECK: [[X:[a-z]+]]\nCHECK: use [[X]]", "1 q use q")


def test_undefined_variables_are_errors() -> None:
    report = fails("CHECK: [[NOPE]]", "anything")
    assert "<checks>:1:10: error: undefined variable: NOPE" in report


def test_bracketed_definitions_keep_their_brackets() -> None:
    passes("CHECK: [[A:desc\\[UR[0-9]+\\]]]", "desc[UR4]")
    passes("CHECK: [[B:[[:alpha:]]+]] end", "xyz end")
    passes("CHECK: [[[X:[0-9]]]]", "a[7]")  # an extra [ is literal


def test_line_pseudo_variable() -> None:
    passes("CHECK: at [[@LINE]]\nCHECK: at [[@LINE-1]] [[@LINE+3]]", "at 1 ... at 1 5")


def test_command_line_defines() -> None:
    passes("CHECK: [[ARCH]]", "sm_90a", defines=(("ARCH", "sm_90a"),))


def test_implicit_check_not_applies_everywhere() -> None:
    report = fails("CHECK: a\nCHECK: b", "a STL b", implicit_check_not=("STL",))
    assert "command line:1:22: error: IMPLICIT-CHECK-NOT: excluded string found in input" in report
    fails("CHECK: a", "a STL", implicit_check_not=("STL",))


def test_ignore_case_and_full_lines() -> None:
    passes("CHECK: ldg.e", "LDG.E", ignore_case=True)
    passes("CHECK: EXIT ;", "  EXIT ;  \n", match_full_lines=True)
    fails("CHECK: EXIT", "  @P0 EXIT ;\n", match_full_lines=True)


def test_empty_input_is_an_error_unless_allowed() -> None:
    assert "'<input>' is empty." in fails("CHECK-NOT: x", "")
    passes("CHECK-NOT: x", "", allow_empty=True)


# -- messages -------------------------------------------------------------------------------


def test_not_found_says_where_scanning_started_and_the_likely_intended_line() -> None:
    text = "  /*00d0*/  LDG.E R3, [R2.64] ;\n  /*00e0*/  LDG.E R4, [R4.64] ;\n"
    report = fails("CHECK: LDG.E R3\nCHECK: LDG.E.128 R4", text)
    lines = report.splitlines()
    assert lines[0] == "<checks>:2:8: error: CHECK: expected string not found in input"
    assert lines[1:3] == ["CHECK: LDG.E.128 R4", "       ^"]
    # Columns are in the text as written, blanks and all (matching ran on collapsed blanks).
    assert lines[3] == "<input>:1:21: note: scanning from here"
    assert "<input>:2:13: note: possible intended match here" in report
    assert "Input was (<input>):" in report
    assert re.search(r"^  > 1: ", report, re.M) and re.search(r"^  \? 2: ", report, re.M)


def test_check_text_can_be_placed_inside_a_bigger_file() -> None:
    result = run_filecheck(
        "CHECK: nope",
        "text",
        checks_name="test_k.py",
        checks_first_line=40,
        checks_column_offset=8,
        input_name="k.sass",
    )
    assert result.report().startswith("test_k.py:40:16: error: CHECK: expected string")


def test_filecheck_raises_an_assertion_error_with_the_report() -> None:
    with pytest.raises(FileCheckFailure) as caught:
        filecheck("CHECK: b", "a")
    assert isinstance(caught.value, AssertionError)
    assert "scanning from here" in str(caught.value)
    filecheck("CHECK: a", "a")


# -- properties -----------------------------------------------------------------------------

_WORDS = st.text(alphabet="ab", min_size=1, max_size=3)


@given(st.lists(_WORDS, max_size=5), st.text(alphabet="ab \n", max_size=30))
def test_plain_checks_pass_exactly_when_the_strings_occur_in_order(
    patterns: list[str], text: str
) -> None:
    pos, expected = 0, True
    for p in patterns:
        k = text.find(p, pos)
        if k == -1:
            expected = False
            break
        pos = k + len(p)
    checks = "\n".join(f"CHECK: {p}" for p in patterns) or "CHECK-NOT: zzz"
    result = run_filecheck(checks, text, options=Options(allow_empty=True))
    assert result.ok == expected, result.report()


@given(st.lists(_WORDS, min_size=1, max_size=4), st.text(alphabet="ab \n", max_size=30))
def test_not_alone_passes_exactly_when_no_pattern_occurs(patterns: list[str], text: str) -> None:
    checks = "\n".join(f"CHECK-NOT: {p}" for p in patterns)
    result = run_filecheck(checks, text, options=Options(allow_empty=True))
    assert result.ok == (not any(p in text for p in patterns))


# -- sassview filecheck (the command line) --------------------------------------------------

DATA = Path(__file__).parent / "data" / "filecheck"
VECADD = Path(__file__).parents[1] / "examples" / "vecadd.cu"


def sassview_cli(*args: str | Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sassview", *map(str, args)],
        capture_output=True,
        text=True,
        input=stdin,
        timeout=300,
    )


@pytest.mark.compile
def test_cli_passes_with_exit_0_for_each_arch() -> None:
    done = sassview_cli("filecheck", DATA / "vecadd.checks", VECADD, "--arch", "sm_80,sm_90a")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


@pytest.mark.compile
def test_cli_failure_is_exit_1_with_llvm_messages_on_stderr() -> None:
    done = sassview_cli("filecheck", DATA / "wide.checks", VECADD, "-k", "add_scalar")
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert (
        lines[0] == f"{DATA / 'wide.checks'}:2:8: error: CHECK: expected string not found in input"
    )
    assert "vecadd.cu.sm_90a.add_scalar.sass:1:1: note: scanning from here" in done.stderr
    assert "note: possible intended match here" in done.stderr


@pytest.mark.compile
def test_cli_checks_ptx_with_its_own_line_numbers() -> None:
    done = sassview_cli("filecheck", DATA / "ptx.checks", VECADD, "--on", "ptx")
    assert done.returncode == 0, done.stderr
    done = sassview_cli("filecheck", DATA / "wide.checks", VECADD, "--on", "ptx", "-k", "add_f4")
    assert done.returncode == 1
    assert re.search(r"vecadd\.cu\.sm_90a\.add_f4\.ptx:\d+:\d+: note: scanning from", done.stderr)


@pytest.mark.compile
def test_cli_bad_input_is_exit_2() -> None:
    malformed = sassview_cli("filecheck", DATA / "malformed.checks", VECADD)
    assert malformed.returncode == 2
    assert "malformed.checks:2:13: error: found start of regex string with no end '}}'" in (
        malformed.stderr
    )
    missing = sassview_cli("filecheck", DATA / "vecadd.checks", "nowhere.cu")
    assert missing.returncode == 2 and missing.stderr.startswith("error: nowhere.cu: no such file")
    no_checks = sassview_cli("filecheck", DATA / "absent.checks", VECADD)
    assert no_checks.returncode == 2 and "cannot read the check file" in no_checks.stderr
    unknown = sassview_cli("filecheck", DATA / "vecadd.checks", VECADD, "-k", "nope")
    assert unknown.returncode == 2 and "no kernel named 'nope'" in unknown.stderr


def test_cli_reads_text_from_stdin_like_filecheck() -> None:
    ok = sassview_cli("filecheck", DATA / "wide.checks", "-", stdin="LDG.E.128 R4\n")
    assert ok.returncode == 0, ok.stderr
    bad = sassview_cli("filecheck", DATA / "wide.checks", "-", stdin="LDG.E R4\n")
    assert bad.returncode == 1 and "<stdin>:1:1: note: scanning from here" in bad.stderr
