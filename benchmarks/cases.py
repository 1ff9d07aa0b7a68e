"""The benchmark cases: the same computation written with the engine, by hand in NumPy, and in PyTorch."""

import time

import numpy as np

from autograd import Tensor, nn, optim
from autograd import functional as F

try:  # optional oracle column; only torch==2.13.0 (CPU) is ever installed here
    import torch
except ImportError:  # pragma: no cover - depends on the machine
    torch = None


def torch_version():
    return torch.__version__ if torch is not None else None


# ---- per-op overhead ---------------------------------------------------------------------------
CHAIN_BLOCKS = 333  # mul, add, relu per block: 999 ops


def numpy_chain_grad(x0, w):
    """The chain's forward and backward written by hand in NumPy: the grad of sum(relu(h * w + w) ...) by x0."""
    saved = []
    h = x0
    for _ in range(CHAIN_BLOCKS):
        z = h * w + w
        saved.append(z)
        h = np.maximum(z, 0)
    g = np.ones_like(h)
    for z in reversed(saved):
        g = g * (z > 0) * w
    return g


def chain_impls():
    rng = np.random.default_rng(0)
    x0, w = rng.standard_normal(4), rng.standard_normal(4)

    def engine():
        x = Tensor(x0, requires_grad=True)
        wt = Tensor(w)
        h = x
        for _ in range(CHAIN_BLOCKS):
            h = (h * wt + wt).relu()
        h.sum().backward()
        return x.grad

    def numpy():
        return numpy_chain_grad(x0, w)

    impls = {"engine": engine, "numpy": numpy}
    np.testing.assert_allclose(engine(), numpy())
    if torch is not None:
        xt0, wt0 = torch.tensor(x0), torch.tensor(w)

        def torch_eager():
            x = xt0.clone().requires_grad_(True)
            h = x
            for _ in range(CHAIN_BLOCKS):
                h = torch.relu(h * wt0 + wt0)
            h.sum().backward()
            return x.grad

        impls["torch"] = torch_eager
    return impls



def chain_modes_impls():
    """The same 1,000-op chain differentiated both ways, each as the engine and by hand in NumPy: the JVP
    (forward mode, autograd.func.jvp: the chain's forward, then its tangent v pushed through in op order) and
    the VJP (reverse mode: the forward, then backward()). Each gives one number: d(sum h)/dx · v."""
    from autograd import func

    rng = np.random.default_rng(0)
    x0, w, v = rng.standard_normal(4), rng.standard_normal(4), rng.standard_normal(4)
    wt = Tensor(w)

    def chain(x):
        h = x
        for _ in range(CHAIN_BLOCKS):
            h = (h * wt + wt).relu()
        return h.sum()

    def engine_jvp():
        return func.jvp(chain, (Tensor(x0),), (v,))[1].item()

    def engine_vjp():
        x = Tensor(x0, requires_grad=True)
        chain(x).backward()
        return float(x.grad @ v)

    def numpy_jvp():
        h, t = x0, v
        for _ in range(CHAIN_BLOCKS):
            z = h * w + w
            t = t * w * (z > 0)
            h = np.maximum(z, 0)
        return float(t.sum())

    def numpy_vjp():
        return float(numpy_chain_grad(x0, w) @ v)

    impls = {"engine JVP": engine_jvp, "engine VJP": engine_vjp, "numpy JVP": numpy_jvp, "numpy VJP": numpy_vjp}
    values = [fn() for fn in impls.values()]
    np.testing.assert_allclose(values, values[0], rtol=1e-12)  # the meeting point: J·v = (1ᵀJ)·v
    if torch is not None:
        from torch.func import jvp as torch_jvp
        from torch.func import vjp as torch_vjp

        xt0, wt0, vt = torch.tensor(x0), torch.tensor(w), torch.tensor(v)

        def torch_chain(x):
            h = x
            for _ in range(CHAIN_BLOCKS):
                h = torch.relu(h * wt0 + wt0)
            return h.sum()

        impls["torch JVP"] = lambda: torch_jvp(torch_chain, (xt0,), (vt,))[1].item()
        one = torch.tensor(1.0, dtype=torch.float64)
        impls["torch VJP"] = lambda: float(torch_vjp(torch_chain, xt0)[1](one)[0] @ vt)
        np.testing.assert_allclose(impls["torch JVP"](), values[0], rtol=1e-12)
    return impls

# ---- MLP training steps ------------------------------------------------------------------------
def _moons(n, rng):
    t = rng.uniform(0, np.pi, n)
    upper = rng.random(n) < 0.5
    x = np.where(upper, np.cos(t), 1 - np.cos(t))
    y = np.where(upper, np.sin(t), 0.5 - np.sin(t))
    return np.stack([x, y], axis=1) + 0.1 * rng.standard_normal((n, 2)), upper.astype(np.float64)


def _mlp_impls(sizes, x, y, loss, lr, optimizer="sgd"):
    """Engine, hand-written NumPy and PyTorch versions of one training step of a ReLU MLP.

    `loss` is "mse", "bce" (with logits) or "ce" (softmax cross-entropy); `optimizer` "sgd" or "adam".
    The NumPy version is what a person writes by hand: the forward, the backward, and the update
    parameter by parameter.
    """
    rng = np.random.default_rng(1)
    model = nn.MLP(sizes, rng=rng)
    if optimizer == "adam":
        opt = optim.Adam(model.parameters(), lr=lr)
    else:
        opt = optim.SGD(model.parameters(), lr=lr)
    xt = Tensor(x)
    labels = y.astype(np.int64) if loss == "ce" else None
    yt = Tensor(y)

    def engine():
        opt.zero_grad()
        out = model(xt)
        if loss == "ce":
            value = F.cross_entropy(out, labels)
        elif loss == "bce":
            value = F.binary_cross_entropy_with_logits(out, yt)
        else:
            value = F.mse_loss(out, yt)
        value.backward()
        opt.step()
        return value

    params = [p.data.copy() for p in model.parameters()]  # W1, b1, W2, b2, ...
    moments = [[np.zeros_like(p), np.zeros_like(p)] for p in params]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    steps = [0]
    n = len(x)
    onehot = np.eye(sizes[-1])[labels] if loss == "ce" else None

    def update(i, grad):
        if optimizer != "adam":
            params[i] -= lr * grad
            return
        m, v = moments[i]
        m *= beta1
        m += (1 - beta1) * grad
        v *= beta2
        v += (1 - beta2) * grad * grad
        t = steps[0]
        denom = np.sqrt(v) / np.sqrt(1 - beta2**t) + eps
        params[i] -= lr / (1 - beta1**t) * m / denom

    def numpy():
        acts, pre = [x], []
        h = x
        for i in range(0, len(params), 2):
            z = h @ params[i].T + params[i + 1]
            pre.append(z)
            h = np.maximum(z, 0) if i + 2 < len(params) else z
            acts.append(h)
        if loss == "ce":
            shifted = h - h.max(axis=1, keepdims=True)
            e = np.exp(shifted)
            probs = e / e.sum(axis=1, keepdims=True)
            value = -np.mean(np.log(probs[np.arange(n), labels]))
            g = (probs - onehot) / n
        elif loss == "bce":
            value = np.mean(np.maximum(h, 0) - h * y + np.log1p(np.exp(-np.abs(h))))
            g = (1 / (1 + np.exp(-h)) - y) / n
        else:
            diff = h - y
            value = np.mean(diff * diff)
            g = diff * (2 / diff.size)
        steps[0] += 1
        for i in range(len(params) - 2, -1, -2):
            dw = g.T @ acts[i // 2]
            db = g.sum(axis=0)
            if i > 0:
                g = (g @ params[i]) * (pre[i // 2 - 1] > 0)
            update(i, dw)
            update(i + 1, db)
        return value

    v_engine, v_numpy = engine(), numpy()
    np.testing.assert_allclose(v_engine.item(), v_numpy, rtol=1e-10)
    for p, q in zip(model.parameters(), params):
        np.testing.assert_allclose(p.data, q, rtol=1e-9, atol=1e-12)
    impls = {"engine": engine, "numpy": numpy}
    if torch is not None:
        tparams = [torch.tensor(p.data, requires_grad=True) for p in model.parameters()]
        tx, ty = torch.tensor(x), torch.tensor(y)
        tlabels = torch.tensor(labels) if loss == "ce" else None
        if optimizer == "adam":
            topt = torch.optim.Adam(tparams, lr=lr)
        else:
            topt = torch.optim.SGD(tparams, lr=lr)

        def torch_eager():
            topt.zero_grad()
            h = tx
            for i in range(0, len(tparams), 2):
                h = torch.nn.functional.linear(h, tparams[i], tparams[i + 1])
                if i + 2 < len(tparams):
                    h = torch.relu(h)
            if loss == "ce":
                value = torch.nn.functional.cross_entropy(h, tlabels)
            elif loss == "bce":
                value = torch.nn.functional.binary_cross_entropy_with_logits(h, ty)
            else:
                value = torch.nn.functional.mse_loss(h, ty)
            value.backward()
            topt.step()
            return value

        impls["torch"] = torch_eager
    return impls


def _playground_data():
    x, y = _moons(200, np.random.default_rng(0))
    return x, y[:, None]


def playground_impls(optimizer="sgd", loss="mse"):
    """The playground's step: MLP 2-16-16-1 (ReLU), 200 two-moons points, full batch, float64."""
    x, y = _playground_data()
    lr = 0.1 if optimizer == "sgd" else 0.01
    return _mlp_impls([2, 16, 16, 1], x, y, loss, lr=lr, optimizer=optimizer)


def playground_engine():
    return playground_impls()["engine"]


def large_impls():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 784))
    y = rng.integers(0, 10, 256).astype(np.float64)
    return _mlp_impls([784, 512, 256, 10], x, y, "ce", lr=0.01)


# ---- deep graphs -------------------------------------------------------------------------------
def deep_chain_seconds(n):
    x = Tensor(np.ones(1), requires_grad=True)
    start = time.perf_counter()
    h = x
    for _ in range(n):
        h = h * 1.0
    h.backward()
    elapsed = time.perf_counter() - start
    assert x.grad[0] == 1.0
    return elapsed


# ---- presentation ------------------------------------------------------------------------------
def presentation_lines(quick=False):
    """DOT generation, the stepwise backward's cost and the live redraw rate."""
    lines = []
    from autograd.graph import backward_steps

    def program():
        a = Tensor(np.random.default_rng(0).standard_normal((8, 8)), requires_grad=True)
        h = a
        for _ in range(100):
            h = (h * 0.9 + a).tanh()
        return h.sum()

    rounds = 3 if quick else 10
    plain = min(_timed(lambda: program().backward()) for _ in range(rounds))
    stepped = min(_timed(lambda: backward_steps(program())) for _ in range(rounds))
    lines.append(
        f"stepwise backward (301-node graph, forward included): {stepped * 1e3:.2f} ms vs backward() "
        f"{plain * 1e3:.2f} ms ({stepped / plain:.2f}x)"
    )
    from benchmarks import graphs

    timing = graphs.bench_dot(2000, repeat=3 if quick else 10)
    lines.append(
        f"DOT for a 2,000-node graph: {timing['full_ms']:.1f} ms in full, {timing['summarised_ms']:.1f} ms "
        "summarised to 200 nodes (target < 50 ms)"
    )
    from benchmarks import live_redraw

    r = live_redraw.measure(live_redraw.TrainConfig(), seconds=0.5 if quick else 2.0, graph=True)
    lines.append(
        f"live playground, server side (defaults, step graph open): {r['update_ms']:.1f} ms per live update "
        f"({r['steps_per_update']:.0f} steps), {r['payload_bytes'] / 1024:.1f} KiB per message, "
        f"{r['frame_bytes'] / 1024:.2f} KiB per frame"
    )
    return lines


def _timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start
