"""autograd.nn.init against PyTorch's formulas (worked out by hand here), large draws, in-place fills and seeds."""

import math

import numpy as np
import pytest

import autograd.nn.init as init_module
from autograd import Parameter, Tensor, nn
from autograd.nn import init

N = 200_000  # draws in a "large" tensor: a sample std is then within ~0.5 % of the true one


def param(*shape, dtype=np.float64):
    return Parameter(np.full(shape, 7.0, dtype=dtype))


def rng(seed=0):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------------------------- gains


@pytest.mark.parametrize(("name", "param_", "gain"), [
    ("linear", None, 1.0),
    ("conv1d", None, 1.0),
    ("conv2d", None, 1.0),
    ("conv3d", None, 1.0),
    ("conv_transpose2d", None, 1.0),
    ("sigmoid", None, 1.0),
    ("tanh", None, 5 / 3),
    ("relu", None, 2**0.5),
    ("leaky_relu", None, (2 / (1 + 0.01**2)) ** 0.5),
    ("leaky_relu", 0.2, (2 / 1.04) ** 0.5),
    ("leaky_relu", 0, 2**0.5),
    ("leaky_relu", 5**0.5, (2 / 6) ** 0.5),
    ("selu", None, 0.75),
])
def test_gains_are_pytorchs_table(name, param_, gain):
    assert init.calculate_gain(name, param_) == pytest.approx(gain, rel=1e-15)


def test_bad_gain_arguments_say_what_is_wrong():
    with pytest.raises(ValueError, match="Unsupported nonlinearity gelu"):
        init.calculate_gain("gelu")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)
    with pytest.raises(ValueError, match="not a valid number"):
        init.calculate_gain("leaky_relu", "0.1")


# ----------------------------------------------------------------------------------------------- fans


@pytest.mark.parametrize(("shape", "fans"), [
    ((5, 3), (3, 5)),  # Linear: (out, in)
    ((8, 4, 3, 3), (36, 72)),  # Conv2d: (out, in, kh, kw), receptive field 9
    ((6, 2, 5), (10, 30)),  # Conv1d
    ((1, 1), (1, 1)),
])
def test_fans_follow_pytorchs_rule(shape, fans):
    assert init_module._calculate_fan_in_and_fan_out(param(*shape)) == fans
    assert init_module._calculate_correct_fan(param(*shape), "fan_in") == fans[0]
    assert init_module._calculate_correct_fan(param(*shape), "FAN_OUT") == fans[1]


def test_a_vector_has_no_fans():
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(param(4))
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.kaiming_normal_(param(4))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(param(3, 3), mode="fan_avg")


# ------------------------------------------------------------------------- bounds and spreads by hand
# Each case: the function, its arguments, the shape, and (kind, the bound or std worked out by hand).

CASES = {
    "uniform_(-2, 3)": (init.uniform_, {"a": -2.0, "b": 3.0}, (400, 500), ("uniform", -2.0, 3.0)),
    "normal_(1, 0.5)": (init.normal_, {"mean": 1.0, "std": 0.5}, (400, 500), ("normal", 1.0, 0.5)),
    # a = 1 · √(6 / (300 + 700)) = √0.006
    "xavier_uniform_": (init.xavier_uniform_, {}, (700, 300), ("uniform", -(0.006**0.5), 0.006**0.5)),
    # gain 5/3 for tanh: a = 5/3 · √(6 / 1000)
    "xavier_uniform_ tanh gain": (init.xavier_uniform_, {"gain": 5 / 3}, (700, 300),
                                  ("uniform", -5 / 3 * 0.006**0.5, 5 / 3 * 0.006**0.5)),
    # std = √(2 / (300 + 700)) = √0.002
    "xavier_normal_": (init.xavier_normal_, {}, (700, 300), ("normal", 0.0, 0.002**0.5)),
    # conv: fan_in = 100·3·3 = 900, fan_out = 250·9 = 2250: std = 2 · √(2 / 3150)
    "xavier_normal_ conv gain 2": (init.xavier_normal_, {"gain": 2.0}, (250, 100, 3, 3),
                                   ("normal", 0.0, 2 * (2 / 3150) ** 0.5)),
    # relu: gain √2, fan_in 400: b = √3 · √2 / √400 = √6 / 20
    "kaiming_uniform_ relu": (init.kaiming_uniform_, {"nonlinearity": "relu"}, (500, 400),
                              ("uniform", -(6**0.5) / 20, 6**0.5 / 20)),
    # default leaky_relu with a = 0: the same gain √2; mode fan_out: fan 500, b = √6 / √500
    "kaiming_uniform_ fan_out": (init.kaiming_uniform_, {"mode": "fan_out"}, (500, 400),
                                 ("uniform", -((6 / 500) ** 0.5), (6 / 500) ** 0.5)),
    # a = √5 (PyTorch's Linear): gain √(2/6), b = √3 · √(1/3) / √400 = 1/20
    "kaiming_uniform_ a=√5": (init.kaiming_uniform_, {"a": 5**0.5}, (500, 400), ("uniform", -1 / 20, 1 / 20)),
    # relu, fan_in 400: std = √2 / 20
    "kaiming_normal_ relu": (init.kaiming_normal_, {"nonlinearity": "relu"}, (500, 400), ("normal", 0.0, 2**0.5 / 20)),
    # leaky_relu slope 0.2, fan_out 500: std = √(2 / 1.04) / √500
    "kaiming_normal_ leaky fan_out": (init.kaiming_normal_, {"a": 0.2, "mode": "fan_out"}, (500, 400),
                                      ("normal", 0.0, (2 / 1.04 / 500) ** 0.5)),
    # tanh, fan_in 400: std = 5/3 / 20
    "kaiming_normal_ tanh": (init.kaiming_normal_, {"nonlinearity": "tanh"}, (500, 400), ("normal", 0.0, 5 / 3 / 20)),
}


@pytest.mark.parametrize("name", CASES)
def test_large_draws_have_the_formulas_spread(name):
    fn, kwargs, shape, (kind, p, q) = CASES[name]
    w = param(*shape)
    fn(w, **kwargs, generator=rng(1))
    x = w.data
    assert x.size >= N
    if kind == "uniform":
        lo, hi = p, q
        assert x.min() >= lo and x.max() <= hi, f"{name}: draws outside [{lo}, {hi}]"
        # the extremes of 200k uniform draws come within 0.01 % of the bound
        assert x.min() < lo + 1e-4 * (hi - lo) and x.max() > hi - 1e-4 * (hi - lo), f"{name}: bound too wide"
        assert x.mean() == pytest.approx((lo + hi) / 2, abs=0.005 * (hi - lo))
        assert x.std() == pytest.approx((hi - lo) / 12**0.5, rel=0.01)
    else:
        mean, std = p, q
        assert x.mean() == pytest.approx(mean, abs=0.01 * std)
        assert x.std() == pytest.approx(std, rel=0.01)
        # a normal's 4-sigma tail holds ~0.006 % of the draws: a uniform or a wrong std would fail this
        assert np.mean(np.abs(x - mean) > 3 * std) == pytest.approx(0.0027, abs=0.0006)


def _schemes(kind):
    return [n for n in CASES if CASES[n][3][0] == kind and n.startswith(("xavier", "kaiming"))]


@pytest.mark.parametrize("name", _schemes("uniform"))
def test_the_uniform_schemes_draw_exactly_uniform_bound(name):
    """The same generator state gives uniform(−bound, bound) of the hand-computed bound (to rounding)."""
    fn, kwargs, shape, (_, lo, hi) = CASES[name]
    w = param(*shape)
    fn(w, **kwargs, generator=rng(3))
    np.testing.assert_allclose(w.data, rng(3).uniform(lo, hi, size=shape), rtol=0, atol=1e-14 * hi)


@pytest.mark.parametrize("name", _schemes("normal"))
def test_the_normal_schemes_draw_exactly_normal_std(name):
    fn, kwargs, shape, (_, mean, std) = CASES[name]
    w = param(*shape)
    fn(w, **kwargs, generator=rng(3))
    np.testing.assert_allclose(w.data, rng(3).normal(mean, std, size=shape), rtol=0, atol=1e-14 * std)


# ------------------------------------------------------------------------------------ in-place fills


@pytest.mark.parametrize("fill", [
    lambda w: init.zeros_(w),
    lambda w: init.ones_(w),
    lambda w: init.constant_(w, 0.25),
    lambda w: init.uniform_(w, generator=rng()),
    lambda w: init.normal_(w, generator=rng()),
    lambda w: init.xavier_uniform_(w, generator=rng()),
    lambda w: init.xavier_normal_(w, generator=rng()),
    lambda w: init.kaiming_uniform_(w, generator=rng()),
    lambda w: init.kaiming_normal_(w, generator=rng()),
])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fills_in_place_and_returns_the_tensor(fill, dtype):
    w = param(6, 5, dtype=dtype)
    array = w.data
    w.grad = np.ones((6, 5))
    out = fill(w)
    assert out is w
    assert w.data is array, "the Parameter's array was replaced, not filled"
    assert w.data.dtype == dtype and w.data.shape == (6, 5)
    assert not np.any(w.data == 7.0), "some of the old values are left"
    assert w.grad is not None and np.all(w.grad == 1), "an init touches the data only"


def test_constant_fills():
    w = param(3, 2)
    assert np.all(init.zeros_(w).data == 0)
    assert np.all(init.ones_(w).data == 1)
    assert np.all(init.constant_(w, -1.5).data == -1.5)
    b = param(4)
    assert np.all(init.constant_(b, 3.0).data == 3.0)  # 1-D tensors are fine where no fan is needed


def test_an_init_records_no_graph_and_a_trained_parameter_still_learns():
    layer = nn.Linear(3, 2, rng=rng())
    init.xavier_normal_(layer.weight, generator=rng(5))
    init.zeros_(layer.bias)
    out = layer(Tensor(np.ones((4, 3)))).sum()
    out.backward()
    np.testing.assert_allclose(layer.weight.grad, np.full((2, 3), 4.0))


def test_not_a_tensor_is_refused():
    with pytest.raises(TypeError, match="expected a Tensor"):
        init.zeros_(np.zeros(3))


def test_bad_ranges_are_refused():
    with pytest.raises(ValueError, match="a <= b"):
        init.uniform_(param(3), 1.0, 0.0)
    with pytest.raises(ValueError, match="std >= 0"):
        init.normal_(param(3), 0.0, -1.0)


def test_zero_element_tensors_are_left_alone_with_a_warning():
    w = Parameter(np.empty((0, 3)))
    with pytest.warns(UserWarning, match="zero-element"):
        assert init.kaiming_uniform_(w) is w
    with pytest.warns(UserWarning, match="zero-element"):
        init.xavier_normal_(w)


# ---------------------------------------------------------------------------------------- generators


@pytest.mark.parametrize("fn", [init.uniform_, init.normal_, init.xavier_uniform_, init.xavier_normal_,
                                init.kaiming_uniform_, init.kaiming_normal_])
def test_the_generator_makes_it_reproducible(fn):
    a, b, c = param(8, 5), param(8, 5), param(8, 5)
    fn(a, generator=rng(11))
    fn(b, generator=rng(11))
    fn(c, generator=rng(12))
    np.testing.assert_array_equal(a.data, b.data)
    assert not np.array_equal(a.data, c.data)
    g = rng(11)
    fn(a, generator=g)
    fn(b, generator=g)  # the generator moves on: the second fill differs
    assert not np.array_equal(a.data, b.data)


def test_an_integer_seed_is_a_generator_too():
    a, b = param(4, 4), param(4, 4)
    init.kaiming_normal_(a, generator=3)
    init.kaiming_normal_(b, generator=rng(3))
    np.testing.assert_array_equal(a.data, b.data)


# ------------------------------------------------------------------------ PyTorch's default Linear init


def test_linear_is_initialised_as_pytorchs_linear():
    """reset_parameters: W = kaiming_uniform_(a=√5) = U(−1/√in, 1/√in), then b = U(−1/√in, 1/√in)."""
    layer = nn.Linear(400, 300, rng=rng(4))
    g = rng(4)
    bound = 1 / math.sqrt(400)
    np.testing.assert_allclose(layer.weight.data, g.uniform(-bound, bound, (300, 400)), rtol=0, atol=1e-14 * bound)
    np.testing.assert_allclose(layer.bias.data, g.uniform(-bound, bound, 300), rtol=0, atol=1e-14 * bound)
    assert np.abs(layer.weight.data).max() <= bound and np.abs(layer.weight.data).max() > 0.999 * bound
    layer.reset_parameters(rng(4))
    np.testing.assert_allclose(layer.weight.data[0], rng(4).uniform(-bound, bound, 400), rtol=0, atol=1e-14 * bound)


def test_the_module_is_reachable_the_ways_pytorch_users_write_it():
    import autograd.nn.init as by_import

    assert nn.init is init is by_import
    assert set(init.__all__) >= {
        "zeros_", "ones_", "constant_", "normal_", "uniform_", "xavier_uniform_", "xavier_normal_",
        "kaiming_uniform_", "kaiming_normal_", "calculate_gain",
    }


# ----------------------------------------------------------------------- PyTorch itself, where installed


def _torch():
    return pytest.importorskip("torch")


def test_gains_match_torch():
    torch = _torch()
    for name, p in [("linear", None), ("sigmoid", None), ("tanh", None), ("relu", None), ("selu", None),
                    ("leaky_relu", None), ("leaky_relu", 0.3), ("conv2d", None)]:
        assert init.calculate_gain(name, p) == torch.nn.init.calculate_gain(name, p)


@pytest.mark.parametrize("name", CASES)
def test_spreads_match_torchs_draws(name):
    """The same scheme in torch (its own generator): the same bounds, and spreads within sampling error."""
    torch = _torch()
    fn, kwargs, shape, _ = CASES[name]
    ours = param(*shape)
    fn(ours, **kwargs, generator=rng(2))
    theirs = torch.empty(shape, dtype=torch.float64)
    getattr(torch.nn.init, fn.__name__)(theirs, **kwargs, generator=torch.Generator().manual_seed(2))
    theirs = theirs.numpy()
    assert ours.data.std() == pytest.approx(theirs.std(), rel=0.02)
    assert ours.data.mean() == pytest.approx(theirs.mean(), abs=0.02 * theirs.std())
    if "uniform" in name:
        assert np.abs(ours.data).max() == pytest.approx(np.abs(theirs).max(), rel=1e-3)


def test_linear_bounds_match_torchs_linear():
    torch = _torch()
    torch.manual_seed(0)  # NOTE: unseeded, the max of torch's 300 bias draws fell under 0.99 of the bound ~5% of runs
    theirs = torch.nn.Linear(400, 300, dtype=torch.float64)
    ours = nn.Linear(400, 300, rng=rng())
    for a, b in [(ours.weight.data, theirs.weight.detach().numpy()), (ours.bias.data, theirs.bias.detach().numpy())]:
        assert np.abs(a).max() == pytest.approx(np.abs(b).max(), rel=0.01)
        assert a.std() == pytest.approx(b.std(), rel=0.1)
