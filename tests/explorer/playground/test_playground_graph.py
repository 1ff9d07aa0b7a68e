"""The training step as a graph (explorer/playground/step_graph.py): the fixed points, the engine's forward and
backward against NumPy written out by hand, the layout made once per shape, the texts each frame sends,
and the step as an Expression Explorer program whose optimiser update equals the engine's."""

import copy
import json

import numpy as np
import pytest

from autograd import Tensor, expr
from autograd.graph import trace
from explorer import numbers
from explorer.playground import catalogue, training
from explorer.playground import step_graph as pg
from explorer.playground.settings import TrainConfig
from explorer.program import view_data as graph_data
from language.messages import MAX_CHARS
from tests.support.dot_lines import node_lines
from tests.support.playground_by_hand import numpy_step


def trained(config: TrainConfig, steps: int = 30) -> training.TrainState:
    state = training.new_state(config)
    training.step(state, steps)
    return state


# ----------------------------------------------------------------------------- the points


def test_fixed_batch_takes_every_class_in_turn_and_stays_fixed():
    two = trained(TrainConfig())
    rows = pg.fixed_batch(two)
    assert len(rows) == pg.POINTS and len(set(rows.tolist())) == pg.POINTS
    assert two.y_train[rows].tolist() == [0, 1, 0, 1]
    training.step(two, 50)
    np.testing.assert_array_equal(pg.fixed_batch(two), rows)  # the same points at every step of the run
    three = trained(TrainConfig(dataset="three blobs", hidden=(5,)))
    assert three.y_train[pg.fixed_batch(three)].tolist() == [0, 1, 2, 0]


def test_fixed_batch_spreads_regression_points_along_x():
    state = trained(TrainConfig(dataset="sine", hidden=(6,)))
    x = state.X_train[pg.fixed_batch(state), 0]
    assert np.all(np.diff(x) > 0)  # left to right
    ranks = np.searchsorted(np.sort(state.X_train[:, 0]), x) / len(x) / len(state.y_train) * len(x)
    np.testing.assert_allclose(ranks, [0.125, 0.375, 0.625, 0.875], atol=0.02)


# ----------------------------------------------------------------------------- the engine's step




@pytest.mark.parametrize("config", [
    TrainConfig(hidden=(8, 8), activation="tanh"),
    TrainConfig(dataset="sine", hidden=(5, 3), activation="relu"),
], ids=["tanh-bce", "relu-mse"])
def test_the_step_graph_is_the_engines_forward_and_backward(config):
    state = trained(config)
    before = [None if p.grad is None else p.grad.copy() for p in state.model.parameters()]
    graph = pg.step_graph(state)
    want = numpy_step(state)
    nodes = {node.name: node for node in graph.nodes if node.name}
    for name, (data, grad) in want.items():
        if name.startswith("z"):  # the unnamed linear op before an activation
            linear = graph.nodes[nodes[f"h{name[1:]}"].parents[0]]
            assert linear.op == "linear"
            node = linear
        else:
            node = nodes[name]
        np.testing.assert_allclose(node.data, data, rtol=1e-12, atol=1e-14, err_msg=name)
        if grad is None:
            assert node.kind == "const" and node.grad is None and not node.requires_grad, name
        else:
            np.testing.assert_allclose(node.grad, grad, rtol=1e-10, atol=1e-14, err_msg=name)
    kinds = {name: node.kind for name, node in nodes.items()}
    assert kinds["X"] == kinds["y"] == "const" and kinds["loss"] == "output"
    assert {kinds[f"{k}{i}"] for k in "Wb" for i in (1, 2, 3)} == {"param"}
    after = [None if p.grad is None else p.grad.copy() for p in state.model.parameters()]
    assert all((a is None and b is None) or np.array_equal(a, b) for a, b in zip(before, after))  # model untouched


def test_the_step_graph_prints_small_data_whole():
    # issue 29: the step graph is compact (a sparkline for big arrays), yet X of (4, 2) is printed number by number,
    # in the box's usual font, as the Explorer prints it; the hidden layer's (4, 8) activations stay a sparkline
    state = trained(TrainConfig(), steps=1)
    graph = pg.step_graph(state)
    x = next(n for n in graph.nodes if n.name == "X")
    assert x.shape == (4, 2)
    line = node_lines(pg.layout(state)["dot"])[f"n{x.id}"]
    assert "▁" not in line and line.count("<br") >= 4 and 'point-size="12"><font' not in line
    texts = graph_data.value_texts(graph, compact=True)
    assert texts[str(x.id)]["d"] == numbers.value_lines(x.data), "and retexted with its numbers"
    wide = next(n for n in graph.nodes if n.data.size > 8 and n.data.ndim == 2)
    assert len(texts[str(wide.id)]["d"]) == 1 and texts[str(wide.id)]["d"][0][0] in "▁▂▃▄▅▆▇█"


def test_a_frames_parameters_give_that_frames_graph():
    state = trained(TrainConfig(), steps=5)
    early = training.frame(state)
    training.step(state, 40)
    graph = pg.step_graph(state, early.params)
    want = numpy_step(state, early.params)
    loss = graph.nodes[graph.output]
    assert loss.data == pytest.approx(want["loss"][0], rel=1e-12)
    assert loss.data != pytest.approx(pg.step_graph(state).nodes[-1].data, rel=1e-6)


# ----------------------------------------------------------------------------- what the view is sent


def test_the_layout_is_made_once_per_shape_and_fits_every_step():
    state = trained(TrainConfig(), steps=1)
    first = pg.layout(state)
    training.step(state, 200)
    assert pg.layout(state)["key"] == first["key"]  # other numbers: the same DOT
    other_points = trained(TrainConfig(dataset="circles"), steps=3)
    assert pg.layout(other_points)["key"] == first["key"]
    assert pg.layout(trained(TrainConfig(hidden=(8, 4)), steps=1))["key"] != first["key"]
    # Every cell is as many lines as its shape prints (one, or a small array whole: X), each sized for the widest
    # its shape prints: the texts of any step fit.
    wide = graph_data.widest(pg.step_graph(state))
    laid = graph_data.value_texts(wide, compact=True, tips=False)
    rng = np.random.default_rng(0)
    params = training.flat_params(state)
    for scale in (1e-7, 1.0, 3e4, 1e300):
        graph = pg.step_graph(state, params + scale * rng.standard_normal(params.size))
        with np.errstate(over="ignore"):
            shown = graph_data.value_texts(graph, compact=True, tips=False)
        for box, texts in shown.items():
            for part in ("d", "g"):
                if part in texts:
                    assert len(texts[part]) == len(laid[box][part]), (box, texts[part])
                    assert all(len(a) <= len(b) for a, b in zip(texts[part], laid[box][part])), \
                        (scale, box, texts[part], laid[box][part])
    assert any(len(texts[part]) > 1 for texts in shown.values() for part in ("d", "g") if part in texts)


def test_frames_send_what_changes_and_full_runs_everything():
    state = trained(TrainConfig())
    graph = pg.step_graph(state)
    full, frame = pg.values(graph), pg.frame_values(graph)
    consts = {str(n.id) for n in graph.nodes if n.kind == "const"}
    assert consts and consts <= set(full) and not consts & set(frame)
    assert all("tip" in v for v in full.values()) and not any("tip" in v for v in frame.values())
    for box, texts in frame.items():
        assert texts["d"] == full[box]["d"] and texts.get("g") == full[box].get("g")
    loss = str(graph.output)
    assert frame[loss] == {"d": [numbers.fmt_number(graph.nodes[graph.output].data)], "g": ["1"]}
    assert len(json.dumps(frame)) < 2_500  # bytes a frame adds at the defaults


# ----------------------------------------------------------------------------- the program


CONFIGS = [
    TrainConfig(),
    TrainConfig(dataset="two moons", hidden=(4, 3), activation="relu", optimizer="momentum", l2=0.01),
    TrainConfig(dataset="three blobs", hidden=(5,), activation="gelu", optimizer="Adam", lr=0.03, l2=0.001),
    TrainConfig(dataset="sine", hidden=(6,), activation="linear", optimizer="AdamW", lr=0.01, l2=0.03),
    TrainConfig(dataset="two moons", hidden=(3,), loss="MSE", optimizer="SGD", l2=0.003),
    TrainConfig(dataset="three blobs", hidden=(3,), loss="MSE", optimizer="Adam"),
]
IDS = ["sgd-bce", "momentum-l2", "adam-cross-entropy", "adamw-mse", "sgd-l2-mse-of-probability", "adam-mse-of-softmax"]


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_the_program_is_the_panels_graph_with_x_and_y_as_data(config):
    state = trained(config)
    text = pg.step_program(state)
    result = expr.evaluate(text)
    result.output.backward()
    program = trace(result.output, uses=result.uses)
    panel = pg.step_graph(state)
    assert [(n.name, n.op, n.shape, n.parents, n.data_parents) for n in program.nodes] == [
        (n.name, n.op, n.shape, n.parents, n.data_parents) for n in panel.nodes]
    for mine, theirs in zip(program.nodes, panel.nodes):
        assert mine.kind == {"param": "input"}.get(theirs.kind, theirs.kind)  # the language has no Parameter
        np.testing.assert_allclose(mine.data, theirs.data, rtol=2e-3, atol=2e-3, err_msg=mine.name or mine.op)
    assert set(result.inputs) == {f"{k}{i}" for k in "Wb" for i in range(1, len(state.linears()) + 1)}
    assert "X" not in result.inputs and not result.variables["X"].requires_grad


def test_the_multi_class_step_graph_draws_its_labels_y_as_data():
    """Issue 17 item 3: cross_entropy's integer labels are a grey y box, its edge into the loss named y (the
    formula's onehot(y)), in the panel's graph and in the Explorer's graph of the step's program."""
    state = trained(TrainConfig(dataset="three blobs", hidden=(5,)))
    graph = pg.step_graph(state)
    y = next(n for n in graph.nodes if n.name == "y")
    loss = next(n for n in graph.nodes if n.op == "cross_entropy")
    assert y.kind == "const" and y.dtype == "int64" and y.grad is None
    np.testing.assert_array_equal(y.data, state.y_train[pg.fixed_batch(state)])
    assert loss.data_parents == (y.id,) and (y.id, loss.id) in graph.edges
    assert loss.formula == "dZ = (softmax(Z) − onehot(y)) · G / N"
    dot = pg.layout(state)["dot"]
    assert f'n{y.id} -> n{loss.id} [id="e{loss.id}.1", class="data", style=dashed, xlabel="y"]' in dot
    assert f"n{y.id} [label=<" in dot and "<b>y</b>" in dot
    assert str(y.id) not in pg.frame_values(graph), "data: the same in every frame"


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_the_programs_update_is_what_the_optimiser_does(config):
    state = trained(config, steps=3)  # the optimisers with state have some by now
    text = pg.step_program(state)
    result = expr.evaluate(text)
    # The engine: a copy of the model and of the optimiser's state, one step on the same points.
    model = copy.deepcopy(state.model)
    opt = catalogue.OPTIMIZERS[config.optimizer](model.parameters(), state.optimizer.lr, state.optimizer.weight_decay)
    opt.load_state_dict(state.optimizer.state_dict())
    model.zero_grad()  # the copy kept the last training step's grads
    rows = pg.fixed_batch(state)
    loss = state.loss(model(Tensor(training.model_inputs(state, state.X_train[rows]))), state.y_train[rows])
    loss.backward()
    before = [p.data.copy() for p in model.parameters()]
    opt.step()
    names = [f"{k}{i}" for i in range(1, len(state.linears()) + 1) for k in "Wb"]
    for name, old, p in zip(names, before, model.parameters()):
        change = result.variables[f"{name}_new"].data - result.variables[name].data
        np.testing.assert_allclose(change, p.data - old, rtol=3e-3, atol=1e-9, err_msg=name)
    assert text.rstrip().endswith("\nloss") and result.output is result.variables["loss"]


def test_the_first_steps_update_has_no_old_state():
    state = training.new_state(TrainConfig(optimizer="Adam"))
    text = pg.step_program(state)
    assert "W1_m = (1 - 0.9) * W1_grad" in text and "0.9 ** 1)" in text
    state = training.new_state(TrainConfig(optimizer="momentum"))
    assert "W1_v = W1_grad  # the momentum buffer starts as the grad" in pg.step_program(state)


def test_a_program_too_long_for_its_update_leaves_it_out_and_a_huge_one_says_so():
    state = trained(TrainConfig(hidden=(24, 24), optimizer="Adam"), steps=2)
    text = pg.step_program(state)
    assert len(text) <= MAX_CHARS and "is left out" in text and "_new" not in text
    expr.evaluate(text)
    with pytest.raises(ValueError, match=r"^This network has \d+ weights: too many to show"):  # a sentence (item 15)
        pg.step_program(training.new_state(TrainConfig(hidden=(64,) * 8)))
