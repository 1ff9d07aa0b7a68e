"""Arrays as the bytes of an uncompressed .npz (what ``np.savez`` writes, read back by ``np.load``), made cheaply.

A playing run's snapshot is written once a second (explorer/playground/snapshot.py, with the model file inside it:
model_files.to_npz): ``np.savez`` spent more on its per-array detour (a zip member opened as a file, the .npy header
worked out again for every array) than on the bytes. Here each .npy is its header, kept by dtype and shape, and the
array's bytes; the members are dated 1980-01-01 (zip's first day), so the same arrays give the same bytes.
"""

from __future__ import annotations

import io
import zipfile
from functools import lru_cache

import numpy as np

DATED = (1980, 1, 1, 0, 0, 0)


@lru_cache(maxsize=256)
def _header(descr: str, shape: tuple[int, ...]) -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": descr, "fortran_order": False, "shape": shape})
    return out.getvalue()


def npy(a: np.ndarray) -> bytes:
    """The .npy file of `a` (a plain array of numbers or text: no objects), C order."""
    a = np.asarray(a)
    if not a.flags.c_contiguous:
        a = np.ascontiguousarray(a)  # NOTE: only then: it makes a 0-d array (a text) one of shape (1,)
    if a.dtype.hasobject:
        raise ValueError("an array of Python objects has no .npy without pickle")
    return _header(np.lib.format.dtype_to_descr(a.dtype), a.shape) + a.tobytes()


def npz(members: dict[str, np.ndarray | bytes]) -> bytes:
    """An uncompressed .npz of `members` (name -> array, or an .npy's bytes already made)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for name, value in members.items():
            archive.writestr(zipfile.ZipInfo(f"{name}.npy", DATED), value if isinstance(value, bytes) else npy(value))
    return out.getvalue()
