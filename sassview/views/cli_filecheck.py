"""`sassview filecheck CHECKS PATH`: LLVM FileCheck over what the compiler made of PATH.

PATH is anything sassview reads (.cu, .ptx, .cubin, kernel.py), compiled for each `--arch`; the
input checked is its SASS listing (`--on sass`, the default: one `name:` label per kernel, so
CHECK-LABEL picks kernels) or its PTX (`--on ptx`), for one kernel with `--kernel`. PATH `-`
checks text from stdin, like FileCheck itself; CHECKS `-` reads the checks from stdin, and
`--check-string 'CHECK: LDG.E.128'` (repeatable, one line each) gives them on the command line
in place of CHECKS. `--print-listing` prints what is checked, to write checks against.

Exit codes: 0 every check passed; 1 a check failed (LLVM-style messages on stderr); 2 bad
input — a malformed check file, a missing file, a compile error.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import NoReturn

import click

from sassview.errors import SassviewError
from sassview.views.variant_limit import MAX_VARIANTS_HELP, variant_guard


def _error(message: str, hint: str = "") -> NoReturn:
    click.echo(f"error: {message}", err=True)
    if hint:
        click.echo(f"hint: {hint}", err=True)
    sys.exit(2)


@click.command("filecheck")
@click.argument("paths", nargs=-1, required=True, metavar="[CHECKS] PATH")
@click.option(
    "--check-string",
    "check_strings",
    multiple=True,
    help="A check line, in place of a CHECKS file (repeat for more lines).",
)
@click.option(
    "--arch",
    "-a",
    "archs",
    multiple=True,
    help="Target(s), e.g. sm_90a or sm_80,sm_90a (each is checked).",
)
@click.option("--kernel", "-k", help="Check only this kernel's listing.")
@click.option(
    "--on",
    type=click.Choice(["sass", "ptx"]),
    default="sass",
    show_default=True,
    help="Which listing to check.",
)
@click.option(
    "--check-prefix",
    "--check-prefixes",
    "prefixes",
    multiple=True,
    help="Directive prefix(es) instead of CHECK (comma-separated or repeated).",
)
@click.option(
    "--implicit-check-not",
    "implicit",
    multiple=True,
    help="A pattern that must not match between any two checks.",
)
@click.option("--strict-whitespace", is_flag=True, help="Do not collapse runs of blanks.")
@click.option("--match-full-lines", is_flag=True, help="Patterns must match whole lines.")
@click.option("--ignore-case", is_flag=True, help="Match case-insensitively.")
@click.option("--enable-var-scope", is_flag=True, help="CHECK-LABEL clears local variables.")
@click.option(
    "-D", "variables", multiple=True, help="Define a variable for the checks: -D VAR=VALUE."
)
@click.option("-X", "--option", "options", multiple=True, help="Extra compiler option.")
@click.option("--print-listing", is_flag=True, help="Print the listing checked, on stdout.")
@click.option("--max-variants", type=click.IntRange(min=1), help=MAX_VARIANTS_HELP)
def filecheck(
    paths: tuple[str, ...],
    check_strings: tuple[str, ...],
    archs: tuple[str, ...],
    kernel: str | None,
    on: str,
    prefixes: tuple[str, ...],
    implicit: tuple[str, ...],
    strict_whitespace: bool,
    match_full_lines: bool,
    ignore_case: bool,
    enable_var_scope: bool,
    variables: tuple[str, ...],
    options: tuple[str, ...],
    print_listing: bool,
    max_variants: int | None,
) -> None:
    """Check the SASS (or PTX) of PATH against the FileCheck directives in CHECKS (a file, `-`
    for stdin, or --check-string lines)."""
    from sassview.testing.filecheck import CheckFileError, Options, parse_checks, run_filecheck

    checks_name, check_text = _check_text(paths, check_strings)
    path = Path(paths[-1])

    defines = []
    for item in variables:
        name, eq, value = item.partition("=")
        if not eq or not name:
            _error(f"-D {item}: expected VAR=VALUE")
        defines.append((name, value))
    opts = Options(
        prefixes=tuple(p for group in prefixes for p in group.split(",") if p) or ("CHECK",),
        strict_whitespace=strict_whitespace,
        match_full_lines=match_full_lines,
        ignore_case=ignore_case,
        implicit_check_not=implicit,
        enable_var_scope=enable_var_scope,
        defines=tuple(defines),
    )
    try:
        parsed = parse_checks(check_text, name=checks_name, options=opts)
    except CheckFileError as exc:
        click.echo(str(exc), err=True)
        sys.exit(2)
    failed = False
    for name, text, first_line in _inputs(path, archs, kernel, on, options, max_variants):
        if print_listing:
            click.echo(text, nl=False)
        result = run_filecheck(
            parsed, text, options=opts, input_name=name, input_first_line=first_line
        )
        if not result.ok:
            failed = True
            click.echo(result.report(), err=True)
    sys.exit(1 if failed else 0)


def _check_text(paths: tuple[str, ...], strings: tuple[str, ...]) -> tuple[str, str]:
    """(name for messages, text) of the checks: --check-string lines, stdin, or a file."""
    want = 1 if strings else 2
    if len(paths) != want:
        usage = (
            "--check-string TEXT PATH" if strings else "CHECKS PATH (or --check-string TEXT PATH)"
        )
        _error(f"filecheck takes {usage}; got {len(paths)} argument(s)", "e.g. " + _EXAMPLE)
    if strings:
        return "<check-string>", "\n".join(strings) + "\n"
    checks = paths[0]
    if checks == "-":
        if paths[1] == "-":
            _error("CHECKS and PATH cannot both be stdin (-)", "give one of them as a file")
        return "<stdin>", sys.stdin.read()
    try:
        return checks, Path(checks).read_text(encoding="utf-8")
    except OSError as exc:
        hint = "check the path"
        if _DIRECTIVE.search(checks) or any(c.isspace() for c in checks):  # text, not a path
            hint = f"to give checks as text: --check-string {checks!r} PATH, or `-` for stdin"
        _error(f"{checks}: cannot read the check file ({exc.strerror})", hint)


_DIRECTIVE = re.compile(r"\b[A-Z][A-Z0-9_-]*:")  # CHECK:, CHECK-NEXT:, MYPREFIX:
_EXAMPLE = "sassview filecheck --check-string 'CHECK: LDG.E.128' examples/vecadd.cu"


def _inputs(
    path: Path,
    archs: tuple[str, ...],
    kernel: str | None,
    on: str,
    options: tuple[str, ...],
    max_variants: int | None,
) -> list[tuple[str, str, int]]:
    """(input name, text, number of its first line) for each program (architecture)."""
    if str(path) == "-":
        return [("<stdin>", sys.stdin.read(), 1)]
    from sassview.api import load
    from sassview.report.listing import program_listing, ptx_listing, sass_listing
    from sassview.views.user_output import user_output_to_stderr

    out = []
    try:
        if not path.exists():
            _error(f"{path}: no such file", "check the path")
        with user_output_to_stderr():  # a kernel.py's prints must not reach --print-listing
            programs = load(
                path,
                arch=[a for x in archs for a in x.split(",")] or None,
                options=[o.lstrip("=") for o in options],
                allow=variant_guard(max_variants, path.name),
            )
        for program in programs:
            k = program.kernel(kernel) if kernel else None
            label = f"{path.name}.{program.arch}" + (f".{k.name}" if k else "")
            if program.artifacts.label and program.artifacts.variant:
                label += f"[{program.artifacts.label}]"
            if on == "ptx":
                try:
                    text, first = ptx_listing(program, k)
                except LookupError as exc:
                    _error(str(exc), "check the SASS instead (--on sass)")
            else:
                text = sass_listing(k) if k else program_listing(program)
                first = 1
            out.append((f"{label}.{on}", text, first))
    except SassviewError as exc:
        _error(exc.message + (f"\n{exc.detail.rstrip()}" if exc.detail else ""), exc.hint)
    return out
