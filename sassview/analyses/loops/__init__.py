"""Loop census: one entry per loop statement per inline context (`entry.LoopEntry`), measured
from the SASS CFG and the inline chains (`census`, for CUDA C++; `files` reads the sources,
`findings` words what the entries say)."""
