"""Loop census: one entry per loop statement per inline context (`entry.LoopEntry`), measured
from the SASS CFG and the inline chains (`census`, for CUDA C++, with its parts `tree`,
`listing`, `weights`, `measure` and `ratios`; `python`, its form for Triton and the CuTe DSL;
`files` reads the sources, `findings` words what the entries say, `across` compares the archs
of one run)."""
