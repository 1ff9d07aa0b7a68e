"""Special functions NumPy lacks, vectorised and accurate to float64: erf and erfc."""

import functools
import math

import numpy as np

# NOTE: the method. erf and erfc are evaluated through two smooth helpers, each tabulated on first use
# as piecewise polynomials (interpolated at Chebyshev points from Python's math.erf/math.erfc, which
# are correctly rounded to within an ulp or two):
#   small(x) = erf(x) / x                 on [0, 1)   -> erf = x·small,       erfc = 1 − erf
#   scaled(x) = exp(x²)·erfc(x) (erfcx)   on [1, 6.5) -> erfc = scaled·e^(−x²), erf = 1 − erfc
# Beyond 6.5, erfc < 4e-20 and a short continued fraction gives it. Neither formula subtracts
# nearly equal numbers, so both functions keep float64 relative precision everywhere, and
# evaluating a table is a dozen NumPy operations however large the array.

_DEGREE = 12
_SPLIT = 1.0
_TABLE_END = 6.5
_FRACTION_DEPTH = 24  # enough for x >= 6.5
_ONE_OVER_SQRT_PI = 0.5641895835477563


class _PiecewisePolynomial:
    """fn on [lo, hi) as one polynomial of `degree` per interval of `width`, in monomials of t ∈ [-1, 1]."""

    def __init__(self, fn, lo, hi, width, degree=_DEGREE):
        self.lo, self.width = lo, width
        self.count = round((hi - lo) / width)
        nodes = np.cos(np.pi * (np.arange(degree + 1) + 0.5) / (degree + 1))
        rows = []
        for i in range(self.count):
            center = lo + (i + 0.5) * width
            values = [fn(center + t * width / 2) for t in nodes]
            cheb = np.polynomial.chebyshev.chebfit(nodes, values, degree)
            poly = np.polynomial.chebyshev.cheb2poly(cheb)
            rows.append(np.pad(poly, (0, degree + 1 - len(poly))))
        self.coeffs = np.array(rows).T.copy()  # (degree + 1, intervals), lowest power first

    def __call__(self, x):
        u = (x - self.lo) / self.width
        index = np.clip(np.floor(u).astype(np.intp), 0, self.count - 1)
        t = 2.0 * (u - index) - 1.0
        acc = np.take(self.coeffs[-1], index)
        for row in self.coeffs[-2::-1]:
            acc *= t
            acc += np.take(row, index)
        return acc


def _erf_over_x(v):
    return math.erf(v) / v if v else 2.0 / math.sqrt(math.pi)


def _erfcx(v):
    return math.erfc(v) * math.exp(v * v)


# NOTE: the tables are fitted on first use, not at import: fitting takes ~20 ms, and most programs
# (and every process that only imports autograd) never call erf.
@functools.cache
def _small():
    return _PiecewisePolynomial(_erf_over_x, 0.0, _SPLIT, width=0.25)


@functools.cache
def _scaled():
    return _PiecewisePolynomial(_erfcx, _SPLIT, _TABLE_END, width=0.25)


def _exp_minus_square(x):
    # NOTE: exp(-x²) with x² split as hi² + (x − hi)(x + hi), hi = x rounded to 1/16: hi² is exact,
    # so the rounding error of x² (1e-13 relative in the result at x = 26) never enters.
    # Beyond x = 40 exp(-x²) is 0 in float64 (exp(-1600) underflows), and there the split's second factor
    # could overflow (x = 1e8 + 0.04: exp(-hi²) = 0 times exp(4.5e6) = inf gave nan): x is capped at 40.
    x = np.minimum(x, 40.0)
    hi = np.round(x * 16.0) / 16.0
    return np.exp(-hi * hi) * np.exp(-(x - hi) * (x + hi))


def _erfc_positive(x):
    """erfc for finite x >= _SPLIT."""
    out = np.empty_like(x)
    near = x < _TABLE_END
    xn = x[near]
    out[near] = _scaled()(xn) * _exp_minus_square(xn)
    if near.all():
        return out
    xf = x[~near]
    tail = np.zeros_like(xf)
    for k in range(_FRACTION_DEPTH, 0, -1):
        tail = (k / 2.0) / (xf + tail)
    out[~near] = _ONE_OVER_SQRT_PI * _exp_minus_square(xf) / (xf + tail)
    return out


def _float(x):
    x = np.asarray(x)
    return x if x.dtype.kind == "f" else x.astype(np.float64)


def _regions(x):
    ax = np.abs(x)
    small = ax < _SPLIT
    finite = np.isfinite(x)
    return ax, small, ~small & finite, ~finite


def erf(x):
    """Error function, elementwise, to float64 precision (relative error ~1e-16)."""
    x = _float(x)
    ax, small, big, special = _regions(x)
    out = np.empty_like(x)
    xs = x[small]
    out[small] = xs * _small()(np.abs(xs))
    out[big] = np.sign(x[big]) * (1.0 - _erfc_positive(ax[big]))
    out[special] = np.sign(x[special])  # ±1 at ±inf, nan at nan
    return out


def erfc(x):
    """Complementary error function 1 − erf(x), elementwise, without cancellation for large x."""
    x = _float(x)
    ax, small, big, special = _regions(x)
    out = np.empty_like(x)
    xs = x[small]
    out[small] = 1.0 - xs * _small()(np.abs(xs))
    tail = _erfc_positive(ax[big])
    out[big] = np.where(x[big] > 0, tail, 2.0 - tail)
    out[special] = 1.0 - np.sign(x[special])  # 0 at +inf, 2 at -inf, nan at nan
    return out
