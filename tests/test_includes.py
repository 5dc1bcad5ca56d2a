"""The NVRTC include scan lists a superset of the files a compile reads: each case is a way the
old scan (one textual pass, first match wins) missed a header and served a stale result."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sassview.frontends.includes import MAX_FALLBACK_FILES, local_includes


def _tree(tmp: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_text(text)
    return tmp


def _present(
    source: str,
    tmp: Path,
    include_dirs: Sequence[Path] = (),
    *,
    defines: Sequence[str] = (),
    pre_includes: Sequence[Path] = (),
) -> set[str]:
    """The files found, relative to `tmp`."""
    scan = local_includes(
        source.encode(), tmp, include_dirs, defines=defines, pre_includes=pre_includes
    )
    return {str(Path(p).relative_to(tmp)) for p in scan.present()}


def test_include_through_a_macro_is_followed(tmp_path: Path) -> None:
    _tree(tmp_path, {"tile.h": "#define T 1\n"})
    assert _present('#define HEADER "tile.h"\n#include HEADER\n', tmp_path) == {"tile.h"}


def test_include_through_a_define_on_the_command_line_is_followed(tmp_path: Path) -> None:
    _tree(tmp_path, {"cfg/a.h": ""})
    found = _present("#include CONFIG\n", tmp_path, defines=['CONFIG="cfg/a.h"'])
    assert found == {"cfg/a.h"}


def test_directive_split_by_a_continuation_is_read(tmp_path: Path) -> None:
    _tree(tmp_path, {"split.h": ""})
    assert _present('#include \\\n  "split.h"\n', tmp_path) == {"split.h"}


def test_directive_after_a_comment_is_read(tmp_path: Path) -> None:
    _tree(tmp_path, {"after.h": "", "commented.h": ""})
    source = '/**/ #include "after.h"\n// #include "commented.h"\n/* #include "commented.h" */\n'
    assert _present(source, tmp_path) == {"after.h"}


def test_angle_include_lists_every_directory_it_could_come_from(tmp_path: Path) -> None:
    # NVRTC looks <x.h> up in -I only; the old scan took the source's own directory first and
    # keyed on the wrong file. Both are listed now, so an edit of either changes the key.
    _tree(tmp_path, {"x.h": "local", "inc/x.h": "from -I"})
    assert _present("#include <x.h>\n", tmp_path, [tmp_path / "inc"]) == {"x.h", "inc/x.h"}


def test_absent_candidates_are_part_of_the_key(tmp_path: Path) -> None:
    # A header created later in front of the one in use changes what compiles.
    _tree(tmp_path, {"inc/x.h": ""})
    scan = local_includes(b'#include "x.h"\n', tmp_path, [tmp_path / "inc"])
    assert scan.files[str(tmp_path / "x.h")] is None
    assert scan.files[str(tmp_path / "inc" / "x.h")] == b""


def test_has_include_names_a_dependency(tmp_path: Path) -> None:
    _tree(tmp_path, {"opt.h": ""})
    assert _present('#if __has_include("opt.h")\n#endif\n', tmp_path) == {"opt.h"}


def test_computed_include_takes_every_header_of_the_search_dirs(tmp_path: Path) -> None:
    _tree(tmp_path, {"a.cuh": "", "sub/b.h": "", "notes.txt": ""})
    found = _present("#define STR(x) #x\n#include STR(a.cuh)\n", tmp_path)
    assert found == {"a.cuh", "sub/b.h"}


def test_computed_include_over_too_many_files_makes_the_scan_incomplete(tmp_path: Path) -> None:
    for i in range(MAX_FALLBACK_FILES + 1):
        (tmp_path / f"h{i}.h").write_text("")
    scan = local_includes(b"#include NOWHERE(x)\n", tmp_path, [])
    assert not scan.complete


def test_pre_include_is_scanned(tmp_path: Path) -> None:
    _tree(tmp_path, {"ctx.h": '#include "types.h"\n', "types.h": ""})
    found = _present("", tmp_path, pre_includes=[tmp_path / "ctx.h"])
    assert found == {"ctx.h", "types.h"}
