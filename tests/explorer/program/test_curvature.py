"""The Curvature tab's data (explorer/program/curvature.py, kinks.py, curvature_report.py): H·v three ways on every
preset, the Hessian against closed forms, the eigenvalues' signs, the kinks named, the hooks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from explorer.program import curvature as curv
from explorer.program import curvature_report, kinks, presets
from explorer.program.mode_cost import pass_operations
from language import compile_program
from tests.support.cost_markup import hooks

KINKED = {presets.KINK_PRESET: ["relu"], "straight-through estimator": ["detach"]}


@pytest.mark.parametrize("name", presets.names())
@pytest.mark.parametrize("direction", curv.DIRECTIONS)
def test_the_three_hvps_agree_on_every_preset(name, direction):
    c = curv.curvature(presets.program(name), direction=direction, element=1)
    assert not c.note
    rr, fr, fd = (c.way(w).value for w in (curv.REVERSE, curv.FORWARD, curv.FD))
    assert rr.shape == fr.shape == fd.shape == (c.n,)
    assert np.all(np.isfinite(rr))
    assert c.exact_agree, (name, c.difference(curv.REVERSE, curv.FORWARD))
    np.testing.assert_allclose(fr, rr, rtol=1e-9, atol=1e-9 * max(1.0, c.scale))
    if name in KINKED:  # finite differences step across relu's kink, or see round's steps past a detach: the note says
        assert [k.op for k in c.kinks] == KINKED[name]
        assert c.kinks[0].jumps == (name == presets.KINK_PRESET)
        if c.kinks[0].jumps:
            assert not c.fd_agree
    else:
        assert not c.kinks, name
        assert c.fd_agree, (name, c.difference(curv.REVERSE, curv.FD))
        np.testing.assert_allclose(fd, rr, rtol=1e-4, atol=1e-4 * max(1.0, c.scale))
    if c.hessian is not None:  # H·v is the Hessian's product with v, however it is computed
        np.testing.assert_allclose(c.hessian @ c.v, rr, rtol=1e-9, atol=1e-9 * max(1.0, c.scale))


def test_a_preset_over_64_input_numbers_says_why_its_hessian_is_not_drawn():
    c = curv.curvature(presets.program("transformer training step"))
    assert c.n > curv.MAX_HESSIAN
    assert c.hessian is None and c.eigenvalues is None
    assert c.hessian_note.startswith(f"The Hessian is not drawn: the inputs hold {c.n:,} numbers, more than the 64")
    assert "data-eigenvalues" not in curvature_report.curvature_html(c)


A = np.array([[2.0, 1.0, 0.0], [3.0, 1.0, 0.5], [0.0, -1.0, 4.0]])


def _quadratic(a: np.ndarray, x=(1.0, 2.0, -1.0)) -> str:
    return f"x = {list(x)}\nf = 0.5 * (x @ ({a.tolist()} @ x))"


def test_the_hessian_of_half_x_a_x_is_a_s_symmetric_part():
    c = curv.curvature(_quadratic(A))
    np.testing.assert_allclose(c.hessian, (A + A.T) / 2, rtol=0, atol=1e-12)
    assert c.asymmetry == 0.0
    np.testing.assert_allclose(c.eigenvalues, np.linalg.eigvalsh((A + A.T) / 2), atol=1e-12)
    np.testing.assert_allclose(c.way(curv.REVERSE).value, (A + A.T) / 2 @ c.v, atol=1e-12)


def test_a_direction_is_random_and_seeded_all_ones_or_one_basis_vector():
    text = _quadratic(A)
    rand = curv.curvature(text)
    assert np.isclose(np.linalg.norm(rand.v), 1.0) and np.array_equal(rand.v, curv.curvature(text).v)
    np.testing.assert_allclose(curv.curvature(text, direction=curv.ONES).way(curv.FORWARD).value,
                               (A + A.T) / 2 @ np.ones(3), atol=1e-12)
    basis = curv.curvature(text, direction=curv.BASIS, element=2)
    np.testing.assert_allclose(basis.way(curv.REVERSE).value, ((A + A.T) / 2)[:, 2], atol=1e-12)
    assert basis.element_names == ("x[0]", "x[1]", "x[2]")
    assert curv.curvature(text, direction=curv.BASIS, element=99).element == 0, "another program's pick"
    with pytest.raises(ValueError, match="unknown direction"):
        curv.direction_vector("sideways", 0, 3)


@pytest.mark.parametrize(("text", "kind", "signs"), [
    ("x = [0.0, 0.0]\nf = (x * x).sum()", curv.MINIMUM, (2, 0, 0)),
    ("x = [0.0, 0.0]\nf = -(x * x).sum()", curv.MAXIMUM, (0, 0, 2)),
    ("x = [0.0, 0.0]\nf = x[0] ** 2 - x[1] ** 2", curv.SADDLE, (1, 0, 1)),
    ("x = [1.0, 2.0]\nf = x.sum() * 3", curv.FLAT, (0, 2, 0)),
    ("x = [0.5, 0.5]\nf = (x[0] - x[1]) ** 2", curv.VALLEY, (1, 1, 0)),
    ("x = [0.5, 0.5]\nf = -(x[0] + x[1]) ** 2", curv.RIDGE, (0, 1, 1)),
    ("a = 1.0\nb = 2.0\nf = a * b", curv.SADDLE, (1, 0, 1)),
])
def test_the_eigenvalues_signs_are_classified(text, kind, signs):
    c = curv.curvature(text)
    assert c.kind == kind
    assert curv.sign_counts(c.eigenvalues) == signs
    said = curvature_report.eigen_text(c)
    assert curvature_report.KIND_WORDS[kind].capitalize() in said
    assert ("The gradient is 0 here" in said) == (c.gradient_norm == 0.0)


def test_a_stationary_point_is_said_to_be_one_and_a_sloped_point_not():
    assert "The gradient is 0 here" in curvature_report.eigen_text(curv.curvature("x = [0.0, 0.0]\nf = (x*x).sum()"))
    sloped = curvature_report.eigen_text(curv.curvature("x = [1.0, 0.0]\nf = (x*x).sum()"))
    assert "The gradient is not 0 here (‖∇f‖ = 2)" in sloped


#: One program per op with a kink: the kink's node is named `k`; off the kink, the same op has none.
KINK_PROGRAMS = {
    "relu": ("x = [0.0, 1.0]\nk = x.relu()\nf = (k * k).sum()", "x = [0.5, 1.0]\nk = x.relu()\nf = (k * k).sum()"),
    "abs": ("x = [1.0, 0.0]\nk = x.abs()\nf = (k * x).sum()", "x = [1.0, -2.0]\nk = x.abs()\nf = (k * x).sum()"),
    "sqrt": ("x = [0.0, 4.0]\nk = x.sqrt()\nf = k.sum()", "x = [1.0, 4.0]\nk = x.sqrt()\nf = k.sum()"),
    "clip": ("x = [-1.0, 0.5, 1.0]\nk = x.clip(-1.0, 1.0)\nf = (k * x).sum()",
             "x = [-0.9, 0.5, 0.9]\nk = x.clip(-1.0, 1.0)\nf = (k * x).sum()"),
    "maximum": ("a = [1.0, 2.0]\nb = [1.0, 0.0]\nk = maximum(a, b)\nf = (k * k).sum()",
                "a = [1.0, 2.0]\nb = [0.5, 0.0]\nk = maximum(a, b)\nf = (k * k).sum()"),
    "minimum": ("a = [1.0, 2.0]\nb = [1.0, 0.0]\nk = minimum(a, b)\nf = (k * k).sum()",
                "a = [1.0, 2.0]\nb = [0.5, 0.0]\nk = minimum(a, b)\nf = (k * k).sum()"),
    "max": ("x = [[3.0, 3.0], [1.0, 2.0]]\nk = x.max(axis=1)\nf = (k * k).sum()",
            "x = [[3.0, 2.5], [1.0, 2.0]]\nk = x.max(axis=1)\nf = (k * k).sum()"),
    "min": ("x = [1.0, 1.0, 2.0]\nk = x.min()\nf = k * k", "x = [1.0, 1.5, 2.0]\nk = x.min()\nf = k * k"),
    "pow": ("x = [0.0, 1.0]\nk = x ** 1.5\nf = k.sum()", "x = [0.0, 1.0]\nk = x ** 2\nf = k.sum()"),
    "round": ("x = [0.5, 1.0]\nk = x.round()\nf = (k * x).sum()", "x = [0.4, 1.0]\nk = x.round()\nf = (k * x).sum()"),
    "detach": ("x = [1.0, 2.0]\nk = (x * 2.0).detach()\nf = (x * k).sum()",
               "x = [1.0, 2.0]\nk = ones(2).detach()\nf = (x * k).sum()"),
}


def test_every_op_with_a_kink_has_a_program_here():
    assert set(KINK_PROGRAMS) == set(kinks.KINKS)


@pytest.mark.parametrize("op", sorted(KINK_PROGRAMS))
def test_a_node_on_its_op_s_kink_is_named_and_off_it_not(op):
    on, off = KINK_PROGRAMS[op]
    result = compile_program(on).run()
    found = kinks.kinks_at(result.output, result.uses)
    assert [(k.op, k.name) for k in found] == [(op, "k")]
    assert found[0].label.startswith(f"k ({op}, node ")
    c = curv.curvature(on)
    said = curvature_report.kinks_text(c)
    heading = ("**Not twice differentiable here.**" if found[0].jumps
               else "**The gradient is not the output's derivative.**")
    assert said.startswith(heading + " **k (" + op) and kinks.KINKS[op][1] in said
    off_result = compile_program(off).run()
    assert kinks.kinks_at(off_result.output, off_result.uses) == []
    assert curvature_report.kinks_text(curv.curvature(off)) == ""


def test_a_kink_counts_its_elements():
    result = compile_program("x = [0.0, 0.0, 1.0]\nf = x.relu().sum()").run()
    (kink,) = kinks.kinks_at(result.output)
    assert kink.count == 2 and kink.name == "" and kink.label.startswith("relu (node ")


def test_a_non_scalar_output_says_a_scalar_is_needed():
    c = curv.curvature("x = [1.0, 2.0]\ny = x * x")
    assert c.note.startswith("The output has shape (2,) (2 numbers): a Hessian needs one number out.")
    assert not c.ways


def test_an_output_without_inputs_says_there_is_nothing_to_differentiate():
    assert "nothing to differentiate" in curv.curvature("f = ones(3).sum()").note


def test_an_input_that_sets_a_shape_is_held_fixed():
    c = curv.curvature("n = 3\nx = randn(n)\nf = (x * x).sum()")
    assert c.inputs == (("x", (3,)),)
    np.testing.assert_allclose(c.hessian, 2 * np.eye(3), atol=1e-12)
    assert c.fd_agree


def test_poked_values_move_the_point():
    c = curv.curvature("a = 1.0\nf = a ** 3", poked=(("a", 2.0),))
    np.testing.assert_allclose(c.hessian, [[12.0]])


def test_the_costs_count_each_way_s_passes():
    text = presets.program("layer norm")
    c = curv.curvature(text)
    result = compile_program(text).run()
    one_reverse = pass_operations(result.output, list(result.inputs.values()))[1]
    rr, fr, fd = (c.way(w) for w in (curv.REVERSE, curv.FORWARD, curv.FD))
    assert fd.operations == 2 * one_reverse, "two gradients"
    assert rr.operations > 2 * one_reverse, "the second backward walks the forward graph and the backward's"
    assert fr.operations > one_reverse
    assert all(w.seconds >= 0 for w in c.ways)


def test_the_hooks_carry_the_three_hvps_and_the_eigenvalues():
    c = curv.curvature(_quadratic(A))
    found = hooks(curvature_report.curvature_html(c), "curvature")
    for hook, way in (("hvp-reverse", curv.REVERSE), ("hvp-forward", curv.FORWARD), ("hvp-fd", curv.FD)):
        np.testing.assert_allclose(json.loads(found[hook]), c.way(way).value, rtol=1e-15)
    np.testing.assert_allclose(json.loads(found["eigenvalues"]), c.eigenvalues)
    assert found["kind"] == c.kind == curv.SADDLE and found["agree"] == "true" and found["n"] == "3"


def test_nan_in_an_hvp_is_null_in_its_hook():
    c = curv.curvature("x = [0.0, 1.0]\nf = x.sqrt().sum()")
    assert [k.op for k in c.kinks] == ["sqrt"]
    found = json.loads(hooks(curvature_report.curvature_html(c), "curvature")["hvp-reverse"])
    assert found[0] is None and found[1] == pytest.approx(c.way(curv.REVERSE).value[1])


def test_the_heatmap_names_each_input_number():
    c = curv.curvature("x = [1.0, 2.0]\nW = [[1.0], [2.0]]\nf = (x @ W).sum() ** 2")
    fig = curvature_report.hessian_figure(c)
    assert list(fig.data[0].x) == ["x[0]", "x[1]", "W[0, 0]", "W[1, 0]"]
    np.testing.assert_allclose(np.array(fig.data[0].z), c.hessian)


def test_hvp_s_first_numbers_are_said():
    c = curv.curvature(_quadratic(A), direction=curv.BASIS, element=0)
    assert curvature_report.hvp_text(c) == "H·v = [2, 2, 0]"
    many = curv.curvature("x = randn(20)\nf = (x * x).sum()", direction=curv.ONES)
    assert curvature_report.hvp_text(many) == "H·v = [2, 2, 2, 2, 2, 2, 2, 2, … (20 numbers)]"


def test_a_64_by_64_heatmap_names_its_rows_at_intervals_and_each_input_s_block():
    """Past 12 input numbers the cells carry no numbers: the hover gives each entry in the page's format, the rows
    are named at each input's first number and every 8th, a line marks where the next input's numbers begin; a wide
    range of sizes is coloured on a signed log scale whose colour bar names the entries, and the caption says so."""
    c = curv.curvature("W = randn(6, 8)\nx = randn(16)\nf = (W @ x[:8]).tanh().sum() + (x * x * x).sum()")
    assert c.n == 64 and c.hessian.shape == (64, 64)
    fig = curvature_report.hessian_figure(c)
    heat = fig.data[0]
    assert heat.texttemplate is None and "%{text}" in heat.hovertemplate
    assert heat.text[5][9] == curvature_report.fmt_number(float(c.hessian[5, 9]))
    ticked = list(fig.layout.xaxis.tickvals)
    assert ticked == [c.element_names[i] for i in [*range(0, 48, 8), 48, 56]] == list(fig.layout.yaxis.tickvals)
    assert [(s.x0, s.y0) for s in fig.layout.shapes] == [(47.5, -0.5), (-0.5, 47.5)]
    t = curvature_report.log_scale(c.hessian)
    assert t is not None and heat.colorbar.title.text == "H entry (log scale)"
    np.testing.assert_allclose(heat.z, np.sign(c.hessian) * np.log10(1 + np.abs(c.hessian) / t))
    top = np.abs(c.hessian).max()  # 11.3: the colour bar's ticks at its decades, each labelled with its entry
    assert list(heat.colorbar.ticktext) == ["-10", "-1", "-0.1", "-0.01", "0", "0.01", "0.1", "1", "10"]
    assert heat.colorbar.tickvals[-1] == pytest.approx(np.log10(1 + 10 / t)) and 10 < top < 100
    assert "signed log scale" in curvature_report.heatmap_hint(c)


def test_a_small_or_even_heatmap_keeps_numbers_in_its_cells_and_a_linear_scale():
    small = curvature_report.hessian_figure(curv.curvature("x = [1.0, 2.0]\nf = (x * x * x).sum()"))
    assert small.data[0].texttemplate == "%{text}" and list(small.data[0].text[0]) == ["6", "0"]
    assert list(small.layout.xaxis.tickvals) == ["x[0]", "x[1]"] and not small.layout.shapes
    even = curv.curvature("x = randn(20)\nf = (x * x).sum()")  # H = 2 I: one size of entry
    assert curvature_report.log_scale(even.hessian) is None
    fig = curvature_report.hessian_figure(even)
    assert fig.data[0].colorbar.title.text == "H entry" and np.array_equal(fig.data[0].z, even.hessian)
    assert "linear scale" in curvature_report.heatmap_hint(even)
