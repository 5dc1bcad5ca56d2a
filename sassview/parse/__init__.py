"""Readers of compiler listings (PTX, SASS, line tables) into the records of `sassview.ir`."""


def forget_memos() -> None:
    """Empty the readers' memo tables (decoded instruction forms, operands, inline chains,
    PTX mnemonics), as in a new process. They only ever speed up a later parse; benchmarks
    call this so a repeated parse costs what the first one did."""
    from sassview.parse import ptx_lex, sass, sass_operands, sass_text

    for table in (
        sass._templates,
        sass._operand_lists,
        sass_operands._cache,
        sass_operands._registers,
        sass_text._chains,
        sass_text._frame_locs,
        ptx_lex._mnemonics,
    ):
        table.clear()
