"""Interventions on a node (explorer/program/intervene.py): the gradient's prediction of an override against the
actual change (O(t²): halving t cuts the gap about 4x), grads scaled and clipped by hooks against hand computations,
detach and straight-through against PyTorch, and the link's text."""

import numpy as np
import pytest

from autograd.expr import evaluate
from autograd.graph import trace
from explorer.graph import dot
from explorer.program import intervene as iv
from explorer.program import view_data
from explorer.program.presets import PRESETS
from language import compile_program

SQUARE = "x = [0.5, -1.5, 2.0]\nh = x * x\nL = (h * 3).sum()"


def _named_intermediates(text):
    result = compile_program(text).run()
    return [name for name, t in result.variables.items() if t.parents and t.requires_grad and np.any(t.data)]


CASES = [(preset, name) for preset, (_, text) in PRESETS.items() for name in _named_intermediates(text)[:3]]


@pytest.mark.parametrize(("preset", "name"), CASES, ids=[f"{p}-{n}" for p, n in CASES])
def test_prediction_is_first_order_exact(preset, name):
    text = PRESETS[preset][1]
    item = iv.Intervention(name, "scale", 1.5)
    big, small = iv.gap(text, item, 0.02), iv.gap(text, item, 0.01)
    scale = abs(iv.predict(text, item).output) + 1.0
    if big < 1e-9 * scale:  # the output is linear in this node: the prediction is exact
        assert small < 1e-9 * scale
        return
    assert 3.0 < big / small < 5.0, (big, small)


def test_prediction_and_actual_at_the_end_of_the_path():
    p = iv.predict(SQUARE, iv.Intervention("h", "scale", 2.0))
    x = np.array([0.5, -1.5, 2.0])
    assert p.predicted == pytest.approx(3 * np.sum(x * x))  # g = 3, Δh = h
    assert p.actual == pytest.approx(3 * np.sum(x * x))  # L is linear in h: exact
    assert p.ts[0] == 0 and p.actual_path[0] == 0 and len(p.ts) == len(p.actual_path) == len(p.predicted_path)


def test_a_saturating_tanh_breaks_the_prediction():
    text = "z = [3.0]\nh = z * 1\nL = tanh(h).sum()"
    p = iv.predict(text, iv.Intervention("h", "scale", 2.0))
    assert p.predicted > 5 * p.actual > 0  # tanh'(3) is tiny, but so is the true change, and more so
    assert iv.predict(text, iv.Intervention("h", "zero")).actual == pytest.approx(-np.tanh(3.0))


def test_scale_and_clip_the_grad_by_hand():
    x = np.array([0.5, -1.5, 2.0])
    r = iv.run(SQUARE, [iv.Intervention("h", "scale_grad", 2.0)])
    np.testing.assert_allclose(r.variables["x"].grad, 2 * 3 * 2 * x)  # dL/dh = 3, scaled by 2, times dh/dx = 2x
    np.testing.assert_allclose(r.variables["h"].grad, 6.0 * np.ones(3))
    r = iv.run(SQUARE, [iv.Intervention("h", "clip_grad", 1.0)])
    np.testing.assert_allclose(r.variables["x"].grad, 1.0 * 2 * x)  # 3 clipped to 1
    plain = iv.run(SQUARE)
    np.testing.assert_allclose(plain.variables["x"].grad, 3 * 2 * x)


def test_detach_cuts_the_edge_and_the_grad():
    r = iv.run(SQUARE, [iv.Intervention("h", "detach")])
    np.testing.assert_array_equal(r.variables["x"].grad, np.zeros(3))
    text = iv.program_text(SQUARE, [iv.Intervention("h", "detach")])
    assert "h = h.detach()" in text
    out = evaluate(text).output
    out.backward()
    drawing = dot.to_dot(trace(out))
    assert 'class="cut"' in drawing and "✂" in drawing
    assert 'class="cut"' not in dot.to_dot(trace(evaluate(SQUARE).output))


def test_straight_through_sends_the_grad_on_as_the_identity():
    text = "w = [0.8, -1.6, 2.3]\nr = round(w)\nL = (r * r * w).sum()"
    w = np.array([0.8, -1.6, 2.3])
    q = np.round(w)
    plain = iv.run(text)
    np.testing.assert_allclose(plain.variables["w"].grad, q * q)  # round's own grad is 0
    r = iv.run(text, [iv.Intervention("r", "straight")])
    np.testing.assert_allclose(r.variables["w"].grad, q * q + 2 * q * w)
    np.testing.assert_allclose(r.variables["r"].grad, 2 * q * w)  # what arrived at r
    # the same as the straight-through preset's form
    ste = iv.run("w = [0.8, -1.6, 2.3]\nr = w + (round(w) - w).detach()\nL = (r * r * w).sum()")
    np.testing.assert_allclose(r.variables["w"].grad, ste.variables["w"].grad)


def test_detach_and_straight_through_against_pytorch():
    torch = pytest.importorskip("torch")
    text = PRESETS["straight-through estimator"][1]
    ours = iv.run(text, [iv.Intervention("y", "straight")])
    x = torch.tensor([[0.5, -1.2, 2.0], [1.5, 0.3, -0.7]], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([0.8, -1.6, 2.3], dtype=torch.float64, requires_grad=True)
    q = w + (torch.round(w) - w).detach()
    z = x @ q
    y = z + (torch.tanh(z) - z).detach()  # y's backward replaced by the identity
    ((y - 0.5) ** 2).mean().backward()
    np.testing.assert_allclose(ours.variables["w"].grad, w.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours.variables["x"].grad, x.grad.numpy(), rtol=1e-12)
    ours = iv.run(text, [iv.Intervention("q", "detach")])
    x.grad = w.grad = None
    q = (w + (torch.round(w) - w).detach()).detach()
    ((torch.tanh(x @ q) - 0.5) ** 2).mean().backward()
    np.testing.assert_allclose(ours.variables["x"].grad, x.grad.numpy(), rtol=1e-10)
    assert w.grad is None and not ours.variables["w"].grad.any()  # None in PyTorch, zeros here


def test_the_legend_says_what_a_cut_edge_is():
    out = evaluate(PRESETS["straight-through estimator"][1]).output
    out.backward()
    keys = [e["key"] for e in view_data._legend(trace(out), dot.plan(trace(out)), states=False)]
    assert "cut" in keys


def test_the_link_text_round_trips_and_says_what_is_wrong():
    items = [iv.Intervention("h", "scale_grad", 2.5), iv.Intervention("q", "detach")]
    assert iv.read_list(iv.write_list(items)) == (items, [])
    found, problems = iv.read_list("h:scale:2,h:explode,1x:zero,q:set:abc,q:zero")
    assert found == [iv.Intervention("h", "scale", 2.0), iv.Intervention("q", "zero")]
    assert len(problems) == 3 and "explode" in problems[0] and "abc" in problems[2]
    found, problems = iv.read_list("h:scale:1e400,h:set:nan," + "h:zero" * 2000)
    assert found == [] and len(problems) == 3 and all(len(p) < 300 for p in problems)


def test_bad_interventions_say_why():
    with pytest.raises(ValueError, match="never assigns"):
        iv.run(SQUARE, [iv.Intervention("nope", "detach")])
    with pytest.raises(ValueError, match="input"):
        iv.run(SQUARE, [iv.Intervention("x", "straight")])
    with pytest.raises(ValueError):
        iv.Intervention("h", "clip_grad", -1.0)
