"""A playground network as a function of one flat weight vector: its loss for many weight vectors at once, its
gradient, its Hessian-vector products and its per-example gradients.

The flat vector is a replay frame's `params` (explorer/playground/training.py: each Linear layer's W (out, in)
row by row, then its b, layer after layer). The loss is the training loss the curves show (the mean over the
training points, without L2: the optimiser adds that).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from autograd import Tensor, func, no_grad
from explorer.playground import catalogue, training

#: How the Hessian-vector products are computed, as the page names it.
FINITE_DIFFERENCES = "finite differences of the gradient"
EXACT = "the engine's exact autograd.func.hvp"
HVP_STEP = 1e-5  # the central difference's step, relative to the weights' norm (float64: error ~ step² and 1e-16/step)
CHUNK_ELEMENTS = 4_000_000  # activations a batched forward pass holds at once (weight sets × points × width)


@dataclass(frozen=True)
class Net:
    """What the loss depends on besides the weights: the layout, the activation, the loss, the points."""

    sizes: tuple[int, ...]
    activation: str
    task: str
    loss: str  # the setting's name: "cross-entropy" or "MSE"
    inputs: np.ndarray  # (N, d): the network's input columns (normalised coordinates, then features)
    labels: np.ndarray  # (N,): class numbers, or the targets of a regression

    @property
    def n_params(self) -> int:
        return sum(o * i + o for i, o in zip(self.sizes[:-1], self.sizes[1:]))

    @property
    def width(self) -> int:
        return self.sizes[-1]

    def layers(self) -> list[tuple[int, int, int]]:
        """(start in the flat vector, out, in) of each Linear layer's W; its b follows W."""
        out, start = [], 0
        for n_in, n_out in zip(self.sizes[:-1], self.sizes[1:]):
            out.append((start, n_out, n_in))
            start += n_out * n_in + n_out
        return out


def net_of(state: training.TrainState, X: np.ndarray | None = None, y: np.ndarray | None = None) -> Net:
    """The run's network on its training points (or on the raw points X with labels y)."""
    X = state.X_train if X is None else X
    y = state.y_train if y is None else y
    return Net(tuple(state.model.sizes), state.config.activation, state.task, state.config.loss,
               training.model_inputs(state, X).astype(np.float64), np.asarray(y))


def unflatten(net: Net, params: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """(W, b) of each layer from flat vectors (P,) or stacked ones (K, P): W (…, out, in), b (…, out)."""
    lead = params.shape[:-1]
    pairs = []
    for start, n_out, n_in in net.layers():
        w_end = start + n_out * n_in
        pairs.append((params[..., start:w_end].reshape(*lead, n_out, n_in), params[..., w_end:w_end + n_out]))
    return pairs


def _activate(name: str, z: np.ndarray) -> np.ndarray:
    """The engine's own activation on an array (elementwise: any shape), so the pictures match training."""
    with no_grad():
        return catalogue.ACTIVATIONS[name]()(Tensor(z)).data


def _log_sigmoid_pair(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log σ(z), log σ(−z)), stable at ±1000."""
    soft = np.log1p(np.exp(-np.abs(z)))
    return -(np.maximum(-z, 0) + soft), -(np.maximum(z, 0) + soft)


def example_losses(net: Net, out: np.ndarray) -> np.ndarray:
    """Each point's loss from the network's outputs (…, N, K): (…, N). Their mean over N is the engine's loss
    (catalogue.criterion; tests/explorer/playground/landscape checks every task, loss and width)."""
    y = net.labels
    if net.task == "regression":
        return (out[..., 0] - y) ** 2
    if net.loss == "cross-entropy":
        if net.width == 1:
            z = out[..., 0]
            return np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z)))
        top = out.max(axis=-1, keepdims=True)
        log_z = np.log(np.exp(out - top).sum(axis=-1)) + top[..., 0]
        return log_z - np.take_along_axis(out, y.reshape((1,) * (out.ndim - 2) + (-1, 1)), axis=-1)[..., 0]
    if net.loss == "MSE":
        if net.width == 1:
            p = np.exp(_log_sigmoid_pair(out[..., 0])[0])
            return (p - y) ** 2
        e = np.exp(out - out.max(axis=-1, keepdims=True))
        p = e / e.sum(axis=-1, keepdims=True)
        return ((p - np.eye(net.width)[y]) ** 2).mean(axis=-1)
    raise ValueError(f"no batched form of the loss {net.loss!r} for {net.task}")


def forward(net: Net, params: np.ndarray) -> np.ndarray:
    """The network's outputs for stacked weight vectors (K, P): (K, N, width), by batched matrix products."""
    a = net.inputs
    pairs = unflatten(net, params)
    for k, (W, b) in enumerate(pairs):
        a = np.matmul(a, np.swapaxes(W, -1, -2)) + b[:, None, :]
        if k < len(pairs) - 1:
            a = _activate(net.activation, a)
    return a


def losses(net: Net, params: np.ndarray) -> np.ndarray:
    """The training loss at each of the stacked weight vectors (K, P): (K,), a few batched passes (in chunks that
    hold at most CHUNK_ELEMENTS activations). Non-finite where the network overflows."""
    params = np.atleast_2d(np.asarray(params, dtype=np.float64))
    per = max(1, CHUNK_ELEMENTS // max(1, len(net.inputs) * max(net.sizes)))
    out = np.empty(len(params))
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for lo in range(0, len(params), per):
            out[lo:lo + per] = example_losses(net, forward(net, params[lo:lo + per])).mean(axis=-1)
    return out


# ----------------------------------------------------------------------------- the engine


def loss_tensor(net: Net, flat: Tensor, keep: list | None = None) -> Tensor:
    """The training loss as the engine computes it, of one flat weight Tensor (the function an exact HVP
    differentiates twice). `keep`, if given, collects each layer's (input, pre-activation) Tensors."""
    a: Tensor = Tensor(net.inputs)
    layers = net.layers()
    for k, (start, n_out, n_in) in enumerate(layers):
        w_end = start + n_out * n_in
        W = flat[start:w_end].reshape(n_out, n_in)
        z = a @ W.T + flat[w_end:w_end + n_out]
        if keep is not None:
            keep.append((a, z))
        a = catalogue.ACTIVATIONS[net.activation]()(z) if k < len(layers) - 1 else z
    return catalogue.criterion(net.task, net.loss, net.width)(a, net.labels)


def gradient(net: Net, params: np.ndarray) -> tuple[float, np.ndarray]:
    """(loss, its gradient) at one flat weight vector, by the engine's backward()."""
    flat = Tensor(np.asarray(params, dtype=np.float64), requires_grad=True)
    loss = loss_tensor(net, flat)
    loss.backward()
    return float(loss.data), flat.grad.copy()


@dataclass(frozen=True)
class Hvp:
    """H·v and how it was computed (FINITE_DIFFERENCES or EXACT)."""

    value: np.ndarray
    method: str


def hvp(net: Net, params: np.ndarray, v: np.ndarray) -> Hvp:
    """The Hessian of the training loss at `params` times `v`, exact: the engine's `autograd.func.hvp`
    (reverse over reverse: the gradient recorded as a graph of its own, then differentiated along v)."""
    params = np.asarray(params, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    if not np.any(v):
        return Hvp(np.zeros_like(params), EXACT)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        _, (hv,) = func.hvp(lambda w: loss_tensor(net, w), (Tensor(params),), (Tensor(v),))
    return Hvp(np.asarray(hv.data, dtype=np.float64), EXACT)


def hvp_by_differences(net: Net, params: np.ndarray, v: np.ndarray) -> Hvp:
    """H·v by central differences of the engine's gradient, (g(w + εv) − g(w − εv)) / 2ε: the check of `hvp`
    (tests), and what the panel used before the engine had exact HVPs."""
    params = np.asarray(params, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    size = float(np.linalg.norm(v))
    if size == 0:
        return Hvp(np.zeros_like(params), FINITE_DIFFERENCES)
    eps = HVP_STEP * max(1.0, float(np.linalg.norm(params))) / size
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        plus, minus = gradient(net, params + eps * v)[1], gradient(net, params - eps * v)[1]
    return Hvp((plus - minus) / (2 * eps), FINITE_DIFFERENCES)


@dataclass(frozen=True)
class PerExample:
    """Each training point's own gradient, from one backward, kept as its factors: for each Linear layer the
    layer's inputs a (N, in) and δ (N, out), point i's gradient being dWᵢ = δᵢ ⊗ aᵢ and dbᵢ = δᵢ. The full
    (N, P) matrix is built only when asked for (`grads`): its norms and batch means come from the factors."""

    factors: tuple[tuple[np.ndarray, np.ndarray], ...]
    batch_grad: np.ndarray  # the engine's gradient of the mean loss, as backward() left it
    losses: np.ndarray  # each point's loss (N,)

    @property
    def grads(self) -> np.ndarray:
        """(N, P): row i is point i's gradient, in the flat layout."""
        n = len(self.losses)
        blocks = []
        for a, d in self.factors:
            blocks += [np.einsum("no,ni->noi", d, a).reshape(n, -1), d]
        return np.concatenate(blocks, axis=1)

    def layer_norms(self) -> np.ndarray:
        """(N, layers): the norm of each point's gradient on each layer's W and b, ‖δᵢ‖·√(‖aᵢ‖² + 1) (the norm of
        an outer product is the product of the norms)."""
        return np.column_stack([np.linalg.norm(d, axis=1) * np.sqrt((a * a).sum(axis=1) + 1) for a, d in self.factors])

    @property
    def norms(self) -> np.ndarray:
        return np.sqrt((self.layer_norms() ** 2).sum(axis=1))

    def mean_grad(self, rows: np.ndarray) -> np.ndarray:
        """The gradient of the mean loss over the points `rows` (the batch gradient), in the flat layout."""
        parts = []
        for a, d in self.factors:
            parts += [(d[rows].T @ a[rows]).ravel() / len(rows), d[rows].mean(axis=0)]
        return np.concatenate(parts)


def per_example(net: Net, params: np.ndarray) -> PerExample:
    """Per-example gradients from one backward (BackPACK's trick): a Linear layer's z = a Wᵀ + b gets from the
    mean loss dz = δ / N, so point i's own gradient is dWᵢ = N · dzᵢ ⊗ aᵢ and dbᵢ = N · dzᵢ."""
    flat = Tensor(np.asarray(params, dtype=np.float64), requires_grad=True)
    keep: list = []
    loss = loss_tensor(net, flat, keep)
    loss.backward()
    n = len(net.inputs)
    factors = tuple((a.data, z.grad * n) for a, z in keep)
    with no_grad(), np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        each = example_losses(net, keep[-1][1].data)
    return PerExample(factors, flat.grad.copy(), each)
