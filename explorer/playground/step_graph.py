"""One training step as a graph: the Training Playground's live step-graph panel and "Show this step's graph".

- `fixed_batch(state)`: the few training points (at most POINTS) every step graph of a run is made on.
- `step_graph(state, params)`: the engine's forward and backward pass of one step on those points, traced:
  X and y are data (constants, no grad), each layer's W and b are parameters with grads, then
  ``h1 = act(linear(X, W1, b1))``, ..., ``out = linear(...)``, ``loss``. `params` are a Frame's (the
  weights at that frame's step); by default the model's as they are now.
- `layout(state)`: the graph view's data for it, laid out once per network shape and settings: every
  box is sized for the widest value of its shape, so any step's numbers retext it in place.
- `values(graph)` / `frame_values(graph)`: the boxes' texts for the graph view (on a full page run,
  with tooltips; in each live frame, only what changes).
- `step_program(state)`: the same step as an Expression Explorer program, X and y as data, the
  optimiser's update last.
"""

from __future__ import annotations

import numpy as np

from autograd import Parameter, Tensor, nn, optim
from autograd import functional as F
from autograd.graph import Graph, order, trace
from explorer.playground import training
from explorer.program import view_data as graph_data
from language.messages import MAX_CHARS

POINTS = 4  # training points in a step graph


# ----------------------------------------------------------------------------- the step on the engine


def fixed_batch(state: training.TrainState) -> np.ndarray:
    """Indices of the training points of the run's step graphs (the same for the whole run): for
    classification the first point of each class in turn, so that every class shows; for regression
    points spread along x."""
    n = len(state.y_train)
    size = min(POINTS, n)
    if state.task == "regression":
        order = np.argsort(state.X_train[:, 0], kind="stable")
        return order[((np.arange(size) + 0.5) * n / size).astype(int)]
    queues = [list(np.flatnonzero(state.y_train == c)) for c in range(state.n_classes)]
    picks: list[int] = []
    while len(picks) < size:
        for queue in queues:
            if queue and len(picks) < size:
                picks.append(int(queue.pop(0)))
    return np.array(picks, dtype=np.int64)


def _layer_params(state: training.TrainState, params: np.ndarray | None) -> list[tuple[np.ndarray, np.ndarray]]:
    """(W, b) of each Linear layer: from a Frame's flat parameters (see training.flat_params) or the model's."""
    linears = state.linears()
    if params is None:
        return [(layer.weight.data, layer.bias.data) for layer in linears]
    out, at = [], 0
    for layer in linears:
        shape, width = layer.weight.data.shape, layer.bias.data.size
        end = at + shape[0] * shape[1]
        out.append((params[at:end].reshape(shape), params[end : end + width]))
        at = end + width
    return out


def step_graph(state: training.TrainState, params: np.ndarray | None = None) -> Graph:
    """The engine's forward and backward pass of one step on `fixed_batch`, traced (see the module
    docstring). The model is not touched: its parameters are copied."""
    loss, uses, _ = step_loss(state, params)
    with training.one_blas_thread(), np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        loss.backward()
    return trace(loss, uses=uses)


def step_loss(state: training.TrainState, params: np.ndarray | None = None) -> tuple:
    """(loss, uses, the parameters in the model's order): step_graph's forward pass, not yet backpropagated
    (explorer/playground/step_memory.py goes on to an optimiser step)."""
    x, layers, finish, made = step_layers(state, params)
    with training.one_blas_thread(), np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for layer in layers:
            x = layer(x)
        loss, uses = finish(x)
    return loss, uses, made


def step_layers(state: training.TrainState, params: np.ndarray | None = None) -> tuple:
    """step_loss's pieces, (X, layers, finish, the parameters): each layer a function of the tensor before it (a
    Linear, F.linear on copies of its parameters, and the activation after it), ``finish(out)`` -> (loss, uses).
    step_memory runs the layers in blocks through autograd.checkpoint."""
    rows = fixed_batch(state)
    X = Tensor(training.model_inputs(state, state.X_train[rows]))
    X.name = "X"
    groups: list[list] = []
    for layer in state.model.layers:  # a Linear and what follows it up to the next
        if isinstance(layer, nn.Linear) or not groups:
            groups.append([])
        groups[-1].append(layer)
    made, layers = [], []
    for k, (group, (w, b)) in enumerate(zip(groups, _layer_params(state, params)), 1):
        W, B = Parameter(np.array(w, dtype=np.float64)), Parameter(np.array(b, dtype=np.float64))
        W.name, B.name = f"W{k}", f"b{k}"
        made += [W, B]
        layers.append(_layer(W, B, group[1:], k, last=k == len(groups)))

    def finish(x):
        criterion = state.criterion
        targets = criterion.targets(state.y_train[rows])
        # NOTE: class numbers stay integers (cross_entropy's labels): a Tensor of data all the same, drawn as y
        targets = Tensor(targets, dtype=targets.dtype if targets.dtype.kind in "iu" else None)
        targets.name = "y"
        loss = criterion.compare(x, targets)
        loss.name = "loss"
        # the labels cross_entropy reads are data, not a parent it differentiates: drawn beside it (graph.order)
        return loss, {t: (targets,) for t in order(loss) if t.op == "cross_entropy"}

    return X, layers, finish, made


def _layer(W, B, after, k, last):
    """Layer k: F.linear with W and B, then the modules `after` it (its activation), naming what it makes."""

    def layer(x):
        x = F.linear(x, W, B)  # what nn.Linear.forward runs, on copies of its parameters
        if last:
            x.name = "out"
        for module in after:
            x = module(x)
            x.name = f"h{k}"
        return x

    return layer


# ----------------------------------------------------------------------------- for the graph view


def layout(state: training.TrainState) -> dict:
    """The graph view's data for the run's step graph: its DOT depends on the network's shape and the
    settings alone (graph_data.widest), so it is laid out once and every step retexts it."""
    with np.errstate(over="ignore"):  # the widest numbers' norms overflow (the tooltips say inf until retexted)
        return graph_data.view_data(graph_data.widest(step_graph(state)), compact=True)


def values(graph: Graph) -> dict:
    """Every box's texts, with tooltips: what a full page run sends."""
    with np.errstate(over="ignore", invalid="ignore"):  # a diverging run's numbers are shown as they are
        return graph_data.value_texts(graph, compact=True)


def frame_values(graph: Graph) -> dict:
    """What changes from frame to frame: the boxes that are not data (X and y stay), without tooltips
    (the view's tooltip then shows the cells' lines)."""
    with np.errstate(over="ignore", invalid="ignore"):
        texts = graph_data.value_texts(graph, compact=True, tips=False)
    return {box: text for box, text in texts.items() if graph.nodes[int(box)].kind != "const"}


# ----------------------------------------------------------------------------- the program


def _num(v: float, digits: int) -> str:
    text = f"{float(v):.{digits}g}"
    return "0" if text == "-0" else text


def _literal(a: np.ndarray, digits: int) -> str:
    a = np.asarray(a)
    if a.ndim == 0:
        return _num(a, digits)
    if a.ndim == 1:
        return "[" + ", ".join(_num(v, digits) for v in a) + "]"
    return "[" + ", ".join(_literal(row, digits) for row in a) + "]"


def _data(a: np.ndarray, digits: int) -> str:
    return f"tensor({_literal(a, digits)}, requires_grad=False)"


def describe_optimizer(opt) -> str:
    """The optimiser and its settings, as the program's comment names them."""
    if isinstance(opt, optim.Adam):
        name = "AdamW" if opt.decoupled else "Adam"
        text = f"{name}, learning rate {opt.lr:g}, betas ({opt.betas[0]:g}, {opt.betas[1]:g}), eps {opt.eps:g}"
    else:
        text = f"SGD, learning rate {opt.lr:g}"
        if opt.momentum:
            text += f", {'Nesterov ' if opt.nesterov else ''}momentum {opt.momentum:g}"
    if opt.weight_decay:
        decoupled = isinstance(opt, optim.Adam) and opt.decoupled
        text += f", {'decoupled ' if decoupled else ''}weight decay (L2) {opt.weight_decay:g}"
    return text


def _update_lines(opt, name: str, entry: dict, digits: int) -> list[str]:
    """The optimiser's update of parameter `name` (its grad written out as `<name>_grad`), exactly the
    arithmetic of autograd.optim's `_update`, with the state `entry` it holds before this step."""
    lr, wd, t = repr(opt.lr), repr(opt.weight_decay), int(entry.get("step", 0)) + 1
    g = f"{name}_grad"
    lines = []
    decoupled = isinstance(opt, optim.Adam) and opt.decoupled
    if opt.weight_decay and not decoupled:
        lines.append(f"{name}_g = {g} + {wd} * {name}  # L2: weight decay added to the grad")
        g = f"{name}_g"
    if isinstance(opt, optim.Adam):
        b1, b2 = repr(opt.betas[0]), repr(opt.betas[1])
        old_m = f"{b1} * {_data(entry['m'], digits)} + " if t > 1 else ""
        old_v = f"{b2} * {_data(entry['v'], digits)} + " if t > 1 else ""
        lines.append(f"{name}_m = {old_m}(1 - {b1}) * {g}")
        lines.append(f"{name}_v = {old_v}(1 - {b2}) * {g} * {g}")
        start = f"{name} * (1 - {lr} * {wd})" if decoupled and opt.weight_decay else name
        lines.append(f"{name}_new = {start} - {name}_m / (sqrt({name}_v) / sqrt(1 - {b2} ** {t}) + {opt.eps!r})"
                     f" * ({lr} / (1 - {b1} ** {t}))")
        return lines
    if opt.momentum:
        mu = repr(opt.momentum)
        if t == 1:
            lines.append(f"{name}_v = {g}  # the momentum buffer starts as the grad")
        else:
            keep = "" if opt.dampening == 0 else f"(1 - {opt.dampening!r}) * "
            lines.append(f"{name}_v = {mu} * {_data(entry['momentum'], digits)} + {keep}{g}")
        g = f"{g} + {mu} * {name}_v" if opt.nesterov else f"{name}_v"
        g = f"({g})" if opt.nesterov else g
    lines.append(f"{name}_new = {name} - {lr} * {g}")
    return lines


def step_program(state: training.TrainState) -> str:
    """One training step on `fixed_batch` as a program in the expression language (autograd.expr): X and
    y as data (`requires_grad=False`), the weights as inputs in nn.Linear's (out, in) layout, each layer
    the fused `linear` op training runs, the activations, the loss, then the optimiser's update of every
    weight, computed from the grads backward() gives (written out, since a program cannot read `.grad`)
    and the optimiser's state at this step; the output is the loss.

    Numbers are rounded to fit the language's MAX_CHARS (10,000 characters); a network too big for its update to
    fit leaves the update out (and says so); one too big even then raises ValueError.
    """
    graph = step_graph(state)
    nodes = {node.name: node for node in graph.nodes if node.name}
    c = state.config
    criterion = state.criterion
    linears = len(state.linears())
    opt = state.optimizer
    saved = opt.state_dict()["state"]
    names = [f"{kind}{k}" for k in range(1, linears + 1) for kind in ("W", "b")]  # model.parameters() order
    sizes = "-".join(map(str, state.model.sizes))
    rows = fixed_batch(state)
    for with_update in (True, False):
        for digits in (4, 3, 2):
            lines = [
                f"# One training step of the playground's {sizes} MLP ({c.activation}) at step {state.step}, on the",
                f"# {len(rows)} training points of its step graph; loss: {state.loss_name}.",
                "# X and y are data (requires_grad=False: no grad); the weights W and biases b are the inputs.",
                f"X = {_data(nodes['X'].data, digits)}",
                f"y = {_data(criterion.targets(state.y_train[rows]), digits)}",
            ]
            for name in names:
                lines.append(f"{name} = {_literal(nodes[name].data, digits)}")
            h = "X"
            act = None if c.activation == "linear" else c.activation
            for k in range(1, linears + 1):
                expr = f"linear({h}, W{k}, b{k})"
                if k < linears:
                    lines.append(f"h{k} = {act}({expr})" if act else f"h{k} = {expr}")
                    h = f"h{k}"
                else:
                    lines.append(f"out = {expr}")
            lines.append(f"loss = {criterion.program}")
            if with_update:
                lines += [
                    f"# Last, the optimiser's update ({describe_optimizer(opt)}) of every W and b.",
                    "# A program cannot read .grad, so each grad is written out as data: what backward() gives",
                    "# for the loss above (the grads in the graph).",
                ]
                for i, name in enumerate(names):
                    lines.append(f"{name}_grad = {_data(nodes[name].grad, digits)}")
                    lines += _update_lines(opt, name, saved.get(i, {}), digits)
                lines.append("# The output, where backward() starts: the loss. (End with W1_new to see its graph.)")
            else:
                lines.append(f"# The optimiser's update ({describe_optimizer(opt)}) is left out: with it the program")
                lines.append(f"# would be over the Explorer's {MAX_CHARS:,} characters.")
            lines.append("loss")
            text = "\n".join(lines) + "\n"
            if len(text) <= MAX_CHARS:
                return text
    raise ValueError(
        f"This network has {sum(p.data.size for p in state.model.parameters())} weights: too many to "
        f"show as a program under {MAX_CHARS:,} characters. Use smaller hidden layers "
        "(e.g. 2 layers of 8) to see a step's graph."
    )
