"""Test-wide settings."""

import os

# numba's "compiling ... (first use)" line would land in whichever test first compiles a kernel;
# tests/test_numba_cache.py checks it in processes of its own.
os.environ.setdefault("FOLKCARDS_COMPILE_NOTICE", "0")
