"""`sassview mcp`: the Model Context Protocol server for kernel-writing agents.

An agent asks what `check` would say, and gets facts: the `check --json` document with its
`schema_version`, one-line verdicts (`UNROLL-OK line 9 x4`, `LDG128-FAIL line 12 32-bit`), the
kernels a file holds, SASS and PTX listings as resources, `diff`, `try`, the pytest matchers'
assertions, and notes on findings and opcodes.

Safe by construction (docs/mcp.md): every path is confined to the client's roots (else the
server's `--root` directories, else its working directory); source text is written to a scratch
directory of the server's own and removed after; every call runs sassview in a child process
with arguments as a list (no shell) and a deadline, killed with its whole process group when
it passes; compiler options are limited to ones that neither name files nor run programs.

Modules: `server` (the tools and resources, thin), `requests` (what a call asks, checked and
turned into a command line), `confine` (roots), `child` (the child and its deadline), `worker`
(what a child computes with the Python API: kernels, listings, assertions), `verdicts`,
`explain` (finding kinds and opcodes).
"""
