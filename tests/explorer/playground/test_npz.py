"""explorer/playground/npz.py: an uncompressed .npz that np.load reads as np.savez's, each .npy header kept by dtype
and shape (a header kept for another shape or dtype would read back wrong here)."""

import io
import zipfile

import numpy as np
import pytest

from explorer.playground import npz

ARRAYS = {
    "f8": np.arange(12, dtype=np.float64).reshape(3, 4) / 7,
    "f8_other_shape": np.arange(12, dtype=np.float64).reshape(4, 3) / 7,
    "f4": np.arange(12, dtype=np.float32).reshape(3, 4),
    "i8": np.arange(5, dtype=np.int64),
    "u1": np.frombuffer(b"{\"a\": 1}", dtype=np.uint8),
    "text": np.array("a text, héé"),
    "empty": np.zeros((0, 105)),
    "scalar": np.array(3.5),
    "fortran": np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    "strided": np.arange(20.0)[::3],
    "big_endian": np.arange(4, dtype=">f8"),
}


def read(blob: bytes) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(blob), allow_pickle=False) as found:
        return {key: found[key] for key in found.files}


def test_np_load_reads_every_array_as_it_was_twice_over():
    for _ in range(2):  # the second time from the kept headers
        back = read(npz.npz(ARRAYS))
        assert back.keys() == ARRAYS.keys()
        for key, a in ARRAYS.items():
            assert back[key].shape == a.shape and back[key].dtype == a.dtype, key
            np.testing.assert_array_equal(back[key], a)


def test_the_same_arrays_give_the_same_bytes_and_an_npy_given_as_bytes_goes_in_as_it_is():
    assert npz.npz(ARRAYS) == npz.npz(dict(ARRAYS))
    made = npz.npy(ARRAYS["f8"])
    assert read(npz.npz({"x": made}))["x"].tolist() == ARRAYS["f8"].tolist()
    out = io.BytesIO()
    np.lib.format.write_array(out, ARRAYS["f8"])
    assert made == out.getvalue(), "the .npy numpy itself writes"


def test_members_are_stored_not_deflated():
    with zipfile.ZipFile(io.BytesIO(npz.npz(ARRAYS))) as archive:
        assert {i.compress_type for i in archive.infolist()} == {zipfile.ZIP_STORED}


def test_an_array_of_objects_is_refused():
    with pytest.raises(ValueError):
        npz.npy(np.array([{"a": 1}], dtype=object))
