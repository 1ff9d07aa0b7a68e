"""nn modules and optimisers: init, parameters, state dicts, training runs, and updates checked by hand."""

import numpy as np
import pytest

import autograd.functional as F
from autograd import Parameter, Tensor, nn, optim
from autograd.nn import MLP, SGD, Adam, AdamW, Embedding, Linear, ReLU, Sequential, Tanh, mse_loss


# ---- training runs ------------------------------------------------------------------------------
def test_api_seed_training_loop_fits_a_sine():
    np.random.seed(0)
    rng = np.random.default_rng(0)
    model = Sequential(Linear(1, 16, rng=rng), ReLU(), Linear(16, 1, rng=rng))
    opt = SGD(model.parameters(), lr=0.05)
    x = Tensor(np.random.randn(100, 1))
    y = Tensor(np.sin(x.data))
    losses = []
    for _ in range(500):
        opt.zero_grad()
        loss = mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.1 * losses[0], (losses[0], losses[-1])
    assert losses[-1] < 0.02, losses[-1]
    assert np.all(np.isfinite(losses))


def make_moons(n, noise, rng):
    """Two interleaving half circles (as scikit-learn's make_moons), labels 0 and 1."""
    n_top = n // 2
    t_top = rng.uniform(0, np.pi, n_top)
    t_bottom = rng.uniform(0, np.pi, n - n_top)
    top = np.stack([np.cos(t_top), np.sin(t_top)], axis=1)
    bottom = np.stack([1 - np.cos(t_bottom), 0.5 - np.sin(t_bottom)], axis=1)
    x = np.concatenate([top, bottom]) + noise * rng.standard_normal((n, 2))
    y = np.concatenate([np.zeros(n_top), np.ones(n - n_top)])
    return x, y


def test_mlp_classifies_two_moons():
    rng = np.random.default_rng(1)
    x, y = make_moons(200, 0.15, rng)
    model = MLP([2, 16, 16, 1], rng=rng)
    opt = optim.Adam(model.parameters(), lr=0.02)
    inputs, targets = Tensor(x), Tensor(y[:, None])
    first = None
    for _ in range(250):
        opt.zero_grad()
        loss = F.binary_cross_entropy_with_logits(model(inputs), targets)
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
    accuracy = np.mean((model(inputs).data[:, 0] > 0) == (y == 1))
    assert accuracy > 0.95, accuracy
    assert loss.item() < 0.2 * first


def test_cross_entropy_training_on_three_classes():
    rng = np.random.default_rng(2)
    centers = np.array([[0.0, 3.0], [3.0, -2.0], [-3.0, -2.0]])
    labels = rng.integers(0, 3, 150)
    x = centers[labels] + 0.5 * rng.standard_normal((150, 2))
    model = MLP([2, 8, 3], activation="tanh", rng=rng)
    opt = nn.SGD(model.parameters(), lr=0.5, momentum=0.9)
    for _ in range(60):
        opt.zero_grad()
        loss = nn.cross_entropy(model(Tensor(x)), labels)
        loss.backward()
        opt.step()
    assert np.mean(model(Tensor(x)).data.argmax(axis=1) == labels) > 0.97


# ---- modules ------------------------------------------------------------------------------------
def test_linear_init_bounds_and_shapes():
    layer = Linear(400, 500, rng=np.random.default_rng(0))
    bound = 1 / np.sqrt(400)
    assert layer.weight.shape == (500, 400) and layer.bias.shape == (500,)
    for p in (layer.weight, layer.bias):
        assert isinstance(p, Parameter) and p.requires_grad and p.dtype == np.float64
        assert p.data.min() >= -bound and p.data.max() <= bound
    # A uniform init fills the range (not e.g. a normal with that std, or U(-1, 1)).
    assert layer.weight.data.min() < -0.999 * bound and layer.weight.data.max() > 0.999 * bound
    assert layer.bias.data.min() < -0.98 * bound and layer.bias.data.max() > 0.98 * bound
    assert abs(layer.weight.data.std() - bound / np.sqrt(3)) < 0.01 * bound
    assert Linear(3, 2, bias=False).bias is None
    assert len(Linear(3, 2, bias=False).parameters()) == 1


def test_linear_forward_backward():
    rng = np.random.default_rng(3)
    layer = Linear(3, 2, rng=rng)
    x = Tensor(rng.standard_normal((4, 3)), requires_grad=True)
    out = layer(x)
    assert out.shape == (4, 2)
    np.testing.assert_allclose(out.data, x.data @ layer.weight.data.T + layer.bias.data, rtol=1e-14)
    g = rng.standard_normal((4, 2))
    out.backward(g)
    np.testing.assert_allclose(layer.weight.grad, g.T @ x.data, rtol=1e-13)
    np.testing.assert_allclose(layer.bias.grad, g.sum(axis=0), rtol=1e-13)
    np.testing.assert_allclose(x.grad, g @ layer.weight.data, rtol=1e-13)


def test_linear_init_is_deterministic_with_rng():
    a = Linear(5, 4, rng=np.random.default_rng(7))
    b = Linear(5, 4, rng=np.random.default_rng(7))
    assert np.array_equal(a.weight.data, b.weight.data) and np.array_equal(a.bias.data, b.bias.data)


def test_mlp_parameters_order_and_count():
    model = MLP([2, 16, 16, 1], rng=np.random.default_rng(0))
    params = model.parameters()
    assert [p.shape for p in params] == [(16, 2), (16,), (16, 16), (16,), (1, 16), (1,)]
    linears = [layer for layer in model.layers if isinstance(layer, Linear)]
    assert len(linears) == 3
    expected = [t for layer in linears for t in (layer.weight, layer.bias)]
    assert all(p is q for p, q in zip(params, expected))
    assert [type(layer).__name__ for layer in model.layers] == ["Linear", "ReLU", "Linear", "ReLU", "Linear"]
    assert sum(p.size for p in params) == 2 * 16 + 16 + 16 * 16 + 16 + 16 + 1
    tanh = MLP([3, 4, 2], activation="tanh")
    assert [type(layer).__name__ for layer in tanh.layers] == ["Linear", "Tanh", "Linear"]
    assert isinstance(MLP([3, 4, 2], activation="linear").layers[1], nn.Identity)
    with pytest.raises(ValueError, match="activation"):
        MLP([2, 3], activation="swish")
    with pytest.raises(ValueError):
        MLP([2])


def test_activation_modules():
    x = Tensor(np.array([-2.0, 0.0, 1.5]))
    assert set(nn.ACTIVATIONS) == {"relu", "tanh", "sigmoid", "gelu", "silu", "linear"}
    for name, method in [("relu", "relu"), ("tanh", "tanh"), ("sigmoid", "sigmoid"), ("gelu", "gelu"),
                         ("silu", "silu")]:
        module = nn.ACTIVATIONS[name]()
        assert np.array_equal(module(x).data, getattr(x, method)().data)
    assert nn.ACTIVATIONS["linear"]()(x) is x
    assert isinstance(nn.ACTIVATIONS["gelu"](), nn.GELU) and isinstance(nn.ACTIVATIONS["silu"](), nn.SiLU)


def test_zero_grad():
    model = MLP([2, 3, 1], rng=np.random.default_rng(0))
    model(Tensor(np.ones((4, 2)))).sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())
    model(Tensor(np.ones((4, 2)))).sum().backward()
    opt = optim.SGD(model.parameters(), lr=0.1)
    opt.zero_grad()
    assert all(p.grad is None for p in model.parameters())


def test_train_eval_flags():
    model = Sequential(Linear(2, 3), ReLU(), Sequential(Linear(3, 1)))
    assert model.training and all(m.training for m in model.layers)
    assert model.eval() is model
    assert not model.training
    assert not any(m.training for m in model.layers) and not model.layers[2].layers[0].training
    assert model.train() is model
    assert model.training and model.layers[2].layers[0].training


def test_state_dict_round_trip():
    a = MLP([2, 4, 1], rng=np.random.default_rng(0))
    b = MLP([2, 4, 1], rng=np.random.default_rng(1))
    x = Tensor(np.random.default_rng(2).standard_normal((5, 2)))
    state = a.state_dict()
    assert list(state) == ["layers.0.weight", "layers.0.bias", "layers.2.weight", "layers.2.bias"]
    assert all(isinstance(v, np.ndarray) for v in state.values())
    assert not np.array_equal(a(x).data, b(x).data)
    b.load_state_dict(state)
    assert np.array_equal(a(x).data, b(x).data)
    # The state is a copy: training `a` afterwards changes neither `state` nor `b`.
    before = state["layers.0.weight"].copy()
    a.parameters()[0].data += 1.0
    assert np.array_equal(state["layers.0.weight"], before)
    assert np.array_equal(b.parameters()[0].data, before)
    state["layers.0.weight"][0, 0] = 123.0
    assert b.parameters()[0].data[0, 0] != 123.0


def test_load_state_dict_errors():
    model = MLP([2, 4, 1], rng=np.random.default_rng(0))
    state = model.state_dict()
    missing = dict(state)
    del missing["layers.2.bias"]
    with pytest.raises(KeyError, match=r"layers\.2\.bias"):
        model.load_state_dict(missing)
    extra = dict(state, **{"layers.9.weight": np.zeros(1)})
    with pytest.raises(KeyError, match=r"layers\.9\.weight"):
        model.load_state_dict(extra)
    wrong = dict(state, **{"layers.0.weight": np.zeros((2, 4))})
    with pytest.raises(ValueError, match=r"layers\.0\.weight.*\(2, 4\).*\(4, 2\)"):
        model.load_state_dict(wrong)
    assert np.array_equal(model.layers[0].weight.data, state["layers.0.weight"])


def test_embedding_forward_and_backward_with_repeated_indices():
    emb = Embedding(5, 3, rng=np.random.default_rng(0))
    assert emb.weight.shape == (5, 3) and emb.parameters() == [emb.weight]
    idx = np.array([1, 3, 1, 1])
    out = emb(idx)
    assert out.shape == (4, 3)
    assert np.array_equal(out.data, emb.weight.data[idx])
    g = np.arange(12.0).reshape(4, 3)
    out.backward(g)
    expected = np.zeros((5, 3))
    expected[1] = g[0] + g[2] + g[3]
    expected[3] = g[1]
    assert np.array_equal(emb.weight.grad, expected)
    emb.zero_grad()
    out = emb(Tensor(np.array([[0, 0], [4, 0]])))  # 2-D indices, as a Tensor
    assert out.shape == (2, 2, 3)
    out.sum().backward()
    assert np.array_equal(emb.weight.grad[:, 0], [3.0, 0.0, 0.0, 0.0, 1.0])


def test_nn_exposes_the_seed_names():
    from autograd.nn import Adam, AdamW, cross_entropy

    assert nn.SGD is optim.SGD and Adam is optim.Adam and AdamW is optim.AdamW
    assert nn.mse_loss is F.mse_loss and cross_entropy is F.cross_entropy
    assert np.isclose(mse_loss(Tensor([1.0, 3.0]), Tensor([0.0, 0.0])).item(), 5.0)


# ---- optimisers against updates computed by hand (PyTorch's equations) ----------------------------
def _problem():
    rng = np.random.default_rng(42)
    start = [rng.standard_normal(3), rng.standard_normal((2, 2))]
    grads = [[rng.standard_normal(3), rng.standard_normal((2, 2))] for _ in range(3)]
    return start, grads


def _run(make_opt, start, grads, between=None):
    params = [Parameter(p.copy()) for p in start]
    opt = make_opt(params)
    history = []
    for k, step_grads in enumerate(grads):
        if between is not None:
            between(opt, k)
        for p, g in zip(params, step_grads):
            p.grad = None if g is None else g.copy()
        opt.step()
        history.append([p.data.copy() for p in params])
    return history


def _sgd_by_hand(start, grads, lrs, momentum=0.0, weight_decay=0.0, nesterov=False, dampening=0.0):
    params = [p.copy() for p in start]
    bufs = [None] * len(params)
    history = []
    for lr, step_grads in zip(lrs, grads):
        for i, g in enumerate(step_grads):
            g = g + weight_decay * params[i]
            if momentum != 0:
                if bufs[i] is None:
                    bufs[i] = g.copy()
                else:
                    bufs[i] = momentum * bufs[i] + (1 - dampening) * g
                g = g + momentum * bufs[i] if nesterov else bufs[i]
            params[i] = params[i] - lr * g
        history.append([p.copy() for p in params])
    return history


def _adam_by_hand(start, grads, lrs, betas=(0.9, 0.999), eps=1e-8, weight_decays=None, decoupled=False):
    beta1, beta2 = betas
    params = [p.copy() for p in start]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    t = [0] * len(params)
    history = []
    for k, (lr, step_grads) in enumerate(zip(lrs, grads)):
        wd = weight_decays[k] if weight_decays else 0.0
        for i, g in enumerate(step_grads):
            if g is None:
                continue  # no grad: no update, and no step counted
            if decoupled:
                params[i] = params[i] * (1 - lr * wd)
            else:
                g = g + wd * params[i]
            t[i] += 1
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v[i] = beta2 * v[i] + (1 - beta2) * g * g
            m_hat = m[i] / (1 - beta1 ** t[i])
            v_hat = v[i] / (1 - beta2 ** t[i])
            params[i] = params[i] - lr * m_hat / (np.sqrt(v_hat) + eps)
        history.append([p.copy() for p in params])
    return history


def _assert_history(actual, expected):
    assert len(actual) == len(expected)
    for k, (got_step, want_step) in enumerate(zip(actual, expected)):
        for i, (got, want) in enumerate(zip(got_step, want_step)):
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=f"step {k + 1}, param {i}")
    # The updates are not trivial: every step moved every parameter.
    for a, b in zip(actual, actual[1:]):
        assert all(not np.array_equal(p, q) for p, q in zip(a, b))


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"momentum": 0.9},
        {"momentum": 0.9, "nesterov": True},
        {"weight_decay": 0.1},
        {"momentum": 0.8, "weight_decay": 0.05, "nesterov": True},
        {"momentum": 0.9, "dampening": 0.3},
    ],
    ids=["plain", "momentum", "nesterov", "weight_decay", "nesterov+wd", "dampening"],
)
def test_sgd_matches_hand_computed_updates(kwargs):
    start, grads = _problem()
    actual = _run(lambda ps: optim.SGD(ps, lr=0.1, **kwargs), start, grads)
    _assert_history(actual, _sgd_by_hand(start, grads, [0.1, 0.1, 0.1], **kwargs))


def test_sgd_lr_change_between_steps_takes_effect():
    start, grads = _problem()

    def change(opt, k):
        if k == 2:
            opt.lr = 0.01

    actual = _run(lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9), start, grads, change)
    _assert_history(actual, _sgd_by_hand(start, grads, [0.1, 0.1, 0.01], momentum=0.9))


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"betas": (0.8, 0.99), "eps": 1e-6}, {"weight_decay": 0.1}],
    ids=["default", "betas+eps", "l2"],
)
def test_adam_matches_hand_computed_updates(kwargs):
    start, grads = _problem()
    actual = _run(lambda ps: optim.Adam(ps, lr=0.01, **kwargs), start, grads)
    wd = kwargs.get("weight_decay", 0.0)
    expected = _adam_by_hand(
        start, grads, [0.01] * 3, betas=kwargs.get("betas", (0.9, 0.999)), eps=kwargs.get("eps", 1e-8),
        weight_decays=[wd] * 3,
    )
    _assert_history(actual, expected)


@pytest.mark.parametrize("weight_decay", [None, 0.1], ids=["default wd 1e-2", "wd 0.1"])
def test_adamw_matches_hand_computed_updates(weight_decay):
    start, grads = _problem()
    kwargs = {} if weight_decay is None else {"weight_decay": weight_decay}
    actual = _run(lambda ps: optim.AdamW(ps, lr=0.01, **kwargs), start, grads)
    wd = 1e-2 if weight_decay is None else weight_decay
    _assert_history(actual, _adam_by_hand(start, grads, [0.01] * 3, weight_decays=[wd] * 3, decoupled=True))


@pytest.mark.parametrize("cls", [optim.Adam, optim.AdamW])
def test_adam_lr_and_weight_decay_changes_take_effect(cls):
    start, grads = _problem()

    def change(opt, k):
        if k == 1:
            opt.lr = 0.05
        if k == 2:
            opt.lr = 0.002
            opt.weight_decay = 0.3

    actual = _run(lambda ps: cls(ps, lr=0.01, weight_decay=0.1), start, grads, change)
    expected = _adam_by_hand(
        start, grads, [0.01, 0.05, 0.002], weight_decays=[0.1, 0.1, 0.3], decoupled=cls is optim.AdamW
    )
    _assert_history(actual, expected)


def test_params_without_grad_are_skipped():
    start, grads = _problem()
    grads[0][1] = None  # the second parameter has no grad at step 1
    actual = _run(lambda ps: optim.Adam(ps, lr=0.01), start, grads)
    assert np.array_equal(actual[0][1], start[1])  # untouched
    expected = _adam_by_hand(start, grads, [0.01] * 3)
    for k in range(3):
        for i in range(2):
            np.testing.assert_allclose(actual[k][i], expected[k][i], rtol=0, atol=1e-12)
    # SGD with momentum: a skipped step neither moves the parameter nor touches its buffer.
    actual = _run(lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9), start, grads)
    assert np.array_equal(actual[0][1], start[1])
    expected_second = _sgd_by_hand([start[1]], [[g[1]] for g in grads[1:]], [0.1, 0.1], momentum=0.9)
    np.testing.assert_allclose(actual[2][1], expected_second[1][0], rtol=0, atol=1e-12)


def test_optimizer_argument_errors():
    p = Parameter(np.zeros(2))
    with pytest.raises(ValueError, match="empty"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="learning rate"):
        optim.SGD([p], lr=-1.0)
    with pytest.raises(ValueError, match="Nesterov"):
        optim.SGD([p], lr=0.1, nesterov=True)


def test_optimizer_with_real_backward():
    w = Parameter(np.array([1.0, -2.0]))
    opt = optim.SGD([w], lr=0.25)
    loss = (w * w).sum()
    loss.backward()
    opt.step()
    assert np.array_equal(w.data, [0.5, -1.0])  # w − 0.25 · 2w


# ---- the flat buffers behind the updates ---------------------------------------------------------------
def _model_and_data(seed=5):
    rng = np.random.default_rng(seed)
    return MLP([3, 8, 8, 2], rng=rng), Tensor(rng.standard_normal((16, 3))), rng.integers(0, 2, 16)


def _train(model, opt, x, y, steps):
    for _ in range(steps):
        opt.zero_grad()
        nn.cross_entropy(model(x), y).backward()
        opt.step()


def _weights(model):
    return [p.data.copy() for p in model.parameters()]


@pytest.mark.parametrize("make", [
    lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01),
    lambda ps: optim.Adam(ps, lr=0.01),
    lambda ps: optim.AdamW(ps, lr=0.01, weight_decay=0.1),
], ids=["sgd", "adam", "adamw"])
def test_rebinding_parameter_data_between_steps_is_picked_up(make):
    model, x, y = _model_and_data()
    reference, _, _ = _model_and_data()
    opt, ref_opt = make(model.parameters()), make(reference.parameters())
    _train(model, opt, x, y, 3)
    _train(reference, ref_opt, x, y, 3)
    # load_state_dict rebinds every p.data; user code may rebind one. The reference changes in place.
    model.load_state_dict(model.state_dict())
    first = model.parameters()[0]
    first.data = first.data * 0.5
    reference.parameters()[0].data *= 0.5
    _train(model, opt, x, y, 4)
    _train(reference, ref_opt, x, y, 4)
    for got, want in zip(_weights(model), _weights(reference)):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_an_optimiser_copied_with_its_model_keeps_training_its_own_copy():
    import copy
    import pickle

    model, x, y = _model_and_data()
    opt = optim.Adam(model.parameters(), lr=0.01)
    _train(model, opt, x, y, 2)
    for clone in (copy.deepcopy, lambda obj: pickle.loads(pickle.dumps(obj))):
        model2, opt2 = clone((model, opt))
        before = _weights(model2)
        _train(model2, opt2, x, y, 3)
        assert all(not np.array_equal(a, b) for a, b in zip(before, _weights(model2)))  # the copy trains
    expected, _, _ = _model_and_data()
    _train(expected, optim.Adam(expected.parameters(), lr=0.01), x, y, 5)
    for got, want in zip(_weights(model2), _weights(expected)):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    _train(model, opt, x, y, 3)  # the original is untouched by its copies and goes on alike
    for got, want in zip(_weights(model), _weights(expected)):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_parameters_of_two_dtypes_are_updated_each_in_its_own():
    a = Parameter(np.array([1.0, 2.0], dtype=np.float32))
    b = Parameter(np.array([[3.0]]))
    opt = optim.SGD([a, b], lr=0.5, momentum=0.5)
    for _ in range(2):
        a.grad, b.grad = np.ones(2, dtype=np.float32), np.ones((1, 1))
        opt.step()
    assert a.data.dtype == np.float32 and b.data.dtype == np.float64
    np.testing.assert_allclose(a.data, [1.0 - 0.5 - 0.75, 2.0 - 0.5 - 0.75])
    np.testing.assert_allclose(b.data, [[3.0 - 0.5 - 0.75]])


def test_a_momentum_buffer_starts_at_each_parameters_own_first_grad():
    start, grads = _problem()
    grads[0][0] = None  # the first parameter has its first grad at step 2
    actual = _run(lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9), start, grads)
    first = _sgd_by_hand([start[0]], [[g[0]] for g in grads[1:]], [0.1, 0.1], momentum=0.9)
    np.testing.assert_allclose(actual[2][0], first[1][0], rtol=0, atol=1e-12)
    second = _sgd_by_hand([start[1]], [[g[1]] for g in grads], [0.1] * 3, momentum=0.9)
    np.testing.assert_allclose(actual[2][1], second[2][0], rtol=0, atol=1e-12)


def test_a_grad_of_the_wrong_shape_is_refused_clearly():
    p = Parameter(np.zeros((2, 3)))
    opt = optim.Adam([p])
    p.grad = np.ones(6)
    with pytest.raises(ValueError, match=r"shape \(2, 3\) has a grad of shape \(6,\)"):
        opt.step()
    q = Parameter(np.zeros(2))
    opt = optim.SGD([q], lr=0.1)
    q.data = np.zeros(3)
    q.grad = np.ones(3)
    with pytest.raises(ValueError, match="new optimiser"):
        opt.step()


@pytest.mark.parametrize(
    "make",
    [
        lambda ps: SGD(ps, lr=0.1, momentum=0.9, nesterov=True),
        lambda ps: Adam(ps, lr=0.01),
        lambda ps: AdamW(ps, lr=0.01, weight_decay=0.1),
    ],
)
def test_optimizer_state_dict_continues_exactly(make):
    """An optimiser restored from state_dict() on copied parameters takes the very same next steps."""
    rng = np.random.default_rng(3)
    x = Tensor(rng.standard_normal((16, 3)))
    y = Tensor(rng.standard_normal((16, 1)))

    def train(model, opt, steps, skip_bias_at=None):
        for k in range(steps):
            opt.zero_grad()
            mse_loss(model(x), y).backward()
            if k == skip_bias_at:
                model.layers[-1].bias.grad = None  # one parameter out of step, as PyTorch allows
            opt.step()

    model = Sequential(Linear(3, 4, rng=rng), Tanh(), Linear(4, 1, rng=rng))
    opt = make(model.parameters())
    train(model, opt, 3, skip_bias_at=1)
    saved = opt.state_dict()
    assert sorted(saved["state"]) == list(range(4))
    assert saved["state"][3]["step"] == 2 and saved["state"][0]["step"] == 3

    twin = Sequential(Linear(3, 4, rng=rng), Tanh(), Linear(4, 1, rng=rng))
    twin.load_state_dict(model.state_dict())
    twin_opt = make(twin.parameters())
    twin_opt.load_state_dict(saved)
    train(model, opt, 4)
    train(twin, twin_opt, 4)
    for (name, a), b in zip(model.state_dict().items(), twin.state_dict().values()):
        np.testing.assert_array_equal(a, b, err_msg=name)


def test_optimizer_load_state_dict_refuses_a_wrong_shape():
    model = Sequential(Linear(3, 4), Tanh(), Linear(4, 1))
    opt = Adam(model.parameters())
    with pytest.raises(ValueError, match="shape"):
        opt.load_state_dict({"state": {0: {"step": 1, "m": np.zeros((2, 2)), "v": np.zeros((4, 3))}}})
