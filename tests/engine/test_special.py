"""special.py: the vectorised erf and erfc against math.erf and math.erfc."""

import math

import numpy as np
import pytest

from autograd.special import erf, erfc

GRID = np.concatenate([
    np.linspace(-30.0, 30.0, 60001),
    [1e-300, -1e-300, 5e-324, 1e-20, -1e-8, 0.5, 1.0, 1.5],
    np.nextafter(2.0, [0.0, 3.0]), [2.0, -2.0], np.nextafter(-2.0, [0.0, -3.0]),  # the method switch at |x| = 2
])


def relative_error(got, ref):
    return np.abs(got - ref) / np.abs(ref)


def test_erf_matches_math_erf():
    ref = np.array([math.erf(v) for v in GRID])
    got = erf(GRID)
    assert got.shape == GRID.shape and got.dtype == np.float64
    nonzero = ref != 0
    rel = relative_error(got[nonzero], ref[nonzero])
    worst = int(np.argmax(rel))
    assert rel.max() < 2e-15, f"erf relative error {rel.max():.3g} at x = {GRID[nonzero][worst]!r}"
    assert np.array_equal(got[~nonzero], ref[~nonzero])


def test_erfc_matches_math_erfc_where_representable():
    ref = np.array([math.erfc(v) for v in GRID])
    got = erfc(GRID)
    assert got.shape == GRID.shape and got.dtype == np.float64
    normal = ref > 1e-300
    rel = relative_error(got[normal], ref[normal])
    worst = int(np.argmax(rel))
    assert rel.max() < 1e-14, f"erfc relative error {rel.max():.3g} at x = {GRID[normal][worst]!r}"
    assert np.all(np.abs(got[~normal] - ref[~normal]) < 1e-300)  # underflows to (almost) 0 as well
    assert np.all(got >= 0) and np.all(got <= 2)


def test_erfc_without_cancellation_in_the_tail():
    # 1 - erf(x) would be 0 here; erfc keeps the tiny value.
    for x in (6.0, 10.0, 26.0):
        assert erfc(np.array(x)) > 0
        assert abs(erfc(np.array(x)) - math.erfc(x)) / math.erfc(x) < 1e-13


def test_symmetries():
    x = np.linspace(-8, 8, 1601)
    assert np.array_equal(erf(-x), -erf(x))
    np.testing.assert_allclose(erfc(x) + erfc(-x), 2.0, rtol=0, atol=4e-16)
    small = np.abs(x) < 1.0
    np.testing.assert_allclose(erf(x[small]) + erfc(x[small]), 1.0, rtol=0, atol=4e-16)


def test_nan_and_infinities():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0])
    with np.errstate(all="raise"):
        e = erf(x)
        c = erfc(x)
    assert np.isnan(e[0]) and np.isnan(c[0])
    assert e[1] == 1.0 and e[2] == -1.0
    assert c[1] == 0.0 and c[2] == 2.0
    assert e[3] == 0.0 and c[3] == 1.0 and c[4] == 1.0
    assert np.signbit(e[4]) and not np.signbit(e[3])  # erf(-0) = -0 like math.erf
    assert np.isnan(erf(np.full(3, np.nan))).all()


def test_python_input_is_float64():
    assert erf(0.5).dtype == np.float64 and erfc(0.5).dtype == np.float64
    assert abs(float(erf(0.5)) - math.erf(0.5)) < 4e-16
    assert abs(float(erfc(2.5)) - math.erfc(2.5)) < 4e-15 * math.erfc(2.5)
    assert erf([0.0, 1.0]).dtype == np.float64 and erfc([[0.5]]).shape == (1, 1)


def test_shapes_and_dtypes():
    assert erf(np.float64(0.5)).shape == () and abs(float(erf(np.float64(0.5))) - math.erf(0.5)) < 4e-16
    assert erfc(np.zeros((2, 0))).shape == (2, 0)
    grid = np.linspace(-3, 3, 12).reshape(3, 4)
    assert erf(grid).shape == (3, 4)
    assert np.array_equal(erf(grid), erf(grid.ravel()).reshape(3, 4))
    f32 = np.linspace(-3, 3, 7, dtype=np.float32)
    assert erf(f32).dtype == np.float32 and erfc(f32).dtype == np.float32
    np.testing.assert_allclose(erf(f32), [math.erf(v) for v in f32.astype(float)], rtol=1e-6)
    source = np.array([0.3, 2.5])
    erf(source)
    erfc(source)
    assert np.array_equal(source, [0.3, 2.5])  # the input is not modified


def test_huge_finite_arguments_give_the_limits_not_nan():
    """exp(-x²)'s split once overflowed for large x just below a sixteenth (1e8 + 0.04: 0 × inf = nan),
    which made GELU of a deep N(0, 1) network nan."""
    x = np.array([1e8 + 0.04, 2.5e4 + 0.04, 1e300, 39.99, 40.0, 40.04, 27.3])
    with np.errstate(over="raise", invalid="raise"):  # underflow to 0 is the right answer here
        c = erfc(x)
        e = erf(-x)
        back = erfc(-x)
    assert c.tolist() == [math.erfc(v) for v in x]  # all 0: below float64's smallest number
    assert e.tolist() == [-1.0] * len(x) and back.tolist() == [2.0] * len(x)
    assert erfc(np.array([26.5]))[0] == pytest.approx(math.erfc(26.5), rel=1e-13)  # the split still matters here
