"""Keeps glibc from handing large NumPy buffers back to the OS after every training step."""

import ctypes
import ctypes.util
import os

# mallopt parameters from <malloc.h>
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3

_TRIM_THRESHOLD = 512 * 1024 * 1024
_MMAP_THRESHOLD = 32 * 1024 * 1024

#: Whether tune_malloc() has changed the allocator in this process (it is never called on import).
tuned = False


def tune_malloc():
    """Raises glibc's trim and mmap thresholds for this process; returns True if it did. Opt-in: call it
    once at start-up (app.py and benchmarks/run.py do); importing autograd never does.

    NOTE: a training step allocates and frees the same large arrays (activations, their grads)
    over and over. With glibc's defaults, arrays over the mmap threshold, and free memory at the
    top of the heap, go back to the OS on every free, so every step page-faults them in again:
    measured here, that made a 784-512-256-10 step 1.3x slower than hand-written NumPy in the same
    process instead of 1.05x. Keeping up to 512 MB of freed memory for reuse removes that cost.
    Set AUTOGRAD_KEEP_MALLOC=1 to leave the allocator alone. A no-op off glibc.
    """
    global tuned
    if tuned:  # NOTE: once is enough; app.py runs on every rerun, and find_library spawns ldconfig
        return True
    if os.environ.get("AUTOGRAD_KEEP_MALLOC"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    ok_trim = mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)
    ok_mmap = mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
    tuned = bool(ok_trim and ok_mmap)
    return tuned
