"""Re-record the hopper corpus (tests/test_loop_hopper.py) as record_shapes2.py records its own:

    python tests/data/loops/record_hopper.py

hopper.<arch>.{ptx,cubin,log,sass.txt} for sm_80 and sm_90a (no -D), and the rolled builds
the census asks for (hopper.rolled<P><tag>.<arch>.{ptx,cubin}).
"""

from __future__ import annotations

from record_shapes2 import record

if __name__ == "__main__":
    record("hopper", ())
