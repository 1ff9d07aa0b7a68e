"""explorer.program.poke: the sliders a program's inputs get, poked values in the session and the URL, the program
run with them, and the pictures — the tangent touches the curve (checked numerically: the curve's central
difference at the point is the grad, and the gap between curve and tangent shrinks as h²), the contour
plot's gradient arrow is the surface's slope, and everything sent is plain JSON."""

import json
import math

import numpy as np
import pytest

from autograd.expr import ExpressionError, evaluate
from explorer.program import check, poke, presets, run

MICROGRAD = presets.program("micrograd")
ATTENTION = presets.program("attention scores")


def sliders_by_name(text):
    return {k.name: k for k in poke.sliders(text)}


# ----------------------------------------------------------------------------- the sliders


def test_a_scalar_gets_a_value_slider_around_it_and_an_array_a_scale():
    a, b = poke.sliders(MICROGRAD)
    assert (a.name, a.kind, a.base, a.lo, a.hi) == ("a", "value", -4.0, -8.0, 0.0)
    assert (b.name, b.kind, b.base, b.lo, b.hi) == ("b", "value", 2.0, 0.0, 4.0)
    for k in (a, b):  # the program's value sits on a step of the slider
        steps = (k.base - k.lo) / k.step
        assert abs(steps - round(steps)) < 1e-9 and k.step in (0.01, 0.02, 0.05, 0.1, 0.2)
    q, k_, v = poke.sliders(ATTENTION)
    assert (q.kind, q.base, q.lo, q.hi) == ("scale", 1.0, -2.0, 2.0)
    np.testing.assert_array_equal(v.array, evaluate(ATTENTION).inputs["V"].data)
    assert json.dumps(q.as_dict())  # no arrays in what the browser gets


def test_inputs_that_set_a_shape_get_no_slider():
    assert [k.name for k in poke.sliders("n = 3\nx = randn(n, 2)\ny = (x * n).sum()")] == ["x"]
    assert poke.slider_for("z", np.array(0.0)).lo == -1.0  # zero: ± 1


def test_a_value_outside_the_range_widens_it_by_whole_steps():
    a = sliders_by_name(MICROGRAD)["a"]
    wide = a.widened(-9.13)
    assert wide.lo <= -9.13 and wide.hi == a.hi
    assert abs((a.lo - wide.lo) / a.step - round((a.lo - wide.lo) / a.step)) < 1e-9
    assert a.widened(-5.0) is a


# ----------------------------------------------------------------------------- poked values


def test_link_text_round_trips_and_names_what_it_ignores():
    sliders = poke.sliders(ATTENTION + "s = 2.0\n")
    poked, problems = poke.from_link("V*=-0.5, s=3.25,Q*=1", sliders)
    assert poked == (("V", -0.5), ("s", 3.25)) and problems == []  # Q*=1 is the program's own value
    assert poke.link_text(poked, sliders) == "V*=-0.5,s=3.25"
    assert poke.from_link(poke.link_text(poked, sliders), sliders) == (poked, [])
    _, problems = poke.from_link("zz=1,V=2,s*=2,s=nan,s=abc,junk", sliders)
    assert len(problems) == 6
    assert "no input named `zz`" in problems[0]
    assert "`V*=s` (a scale" in problems[1] and "`s=v` (a number)" in problems[2]
    assert all("not a finite number" in p for p in problems[3:5]) and "expected name=value" in problems[5]


def test_sync_keeps_the_session_and_the_url_in_step():
    sliders = poke.sliders(MICROGRAD)
    state, query = {}, {}
    assert poke.sync(state, query, MICROGRAD, sliders) == ((), []) and "poke" not in query
    version = state["poke_version"]
    state["poked"] = (("a", -3.5),)  # the sliders moved
    assert poke.sync(state, query, MICROGRAD, sliders)[0] == (("a", -3.5),)
    assert query["poke"] == "a=-3.5" and state["poke_version"] == version  # written, not a new version
    query["poke"] = "b=3"  # a link
    assert poke.sync(state, query, MICROGRAD, sliders)[0] == (("b", 3.0),) and state["poke_version"] == version + 1
    state["poked"] = ()  # Reset
    poke.sync(state, query, MICROGRAD, sliders)
    assert "poke" not in query
    state["poked"] = (("a", -1.0),)
    poke.sync(state, query, MICROGRAD, sliders)
    other = "a = 1.0\ny = a * a\n"
    assert poke.sync(state, query, other, poke.sliders(other))[0] == ()  # a new program starts from its own values
    assert "poke" not in query and state["poke_version"] == version + 2


def test_the_program_runs_with_the_poked_values():
    poked = (("a", -3.0), ("b", 2.5))
    graph, steps = run.step_program(MICROGRAD, poked)
    edited = MICROGRAD.replace("a = -4.0", "a = -3.0").replace("b = 2.0", "b = 2.5")
    g_graph, g_steps = run.step_program(edited)
    assert len(steps) == len(g_steps)
    for node, same in zip(graph.nodes, g_graph.nodes):
        np.testing.assert_array_equal(node.data, same.data)
        if node.grad is not None:
            np.testing.assert_array_equal(node.grad, same.grad)
    analysis = check.analyse_program(MICROGRAD, poked)
    rows = {r.name: r for r in analysis.checks}
    assert rows["a"].ok and rows["b"].ok
    np.testing.assert_allclose(rows["a"].grad, [n.grad for n in g_graph.nodes if n.name == "a"][0])


def test_a_scale_multiplies_the_program_s_own_values():
    from language import compile_program

    program = compile_program(ATTENTION)
    inputs = poke.resolve(program, (("V", -0.5),))
    np.testing.assert_array_equal(inputs["V"], -0.5 * evaluate(ATTENTION).inputs["V"].data)
    fixed = compile_program("n = 3\nx = randn(n)\ny = x.sum()")
    with pytest.raises(ExpressionError, match="sets"):  # why such an input gets no slider
        fixed.run(inputs=poke.resolve(fixed, (("n", 4.0),)))


# ----------------------------------------------------------------------------- the pictures


def at(text, poked, sliders):
    graph, _ = run.step_program(text, poked)
    return poke.point(graph, sliders)


@pytest.mark.parametrize(("text", "poked", "name"), [
    (MICROGRAD, (("a", -3.5),), "a"),
    (MICROGRAD, (("a", -3.5), ("b", 2.7)), "b"),
    (ATTENTION, (("Q", 0.7),), "V"),  # a scale: slope Σ V₀ ⊙ V.grad
    (ATTENTION, (("K", -1.3),), "K"),
])
def test_the_tangent_touches_the_curve(text, poked, name):
    sliders = poke.sliders(text)
    point = at(text, poked, sliders)
    x0 = poke.slider_values(sliders, poked)[name]
    others = tuple((n, v) for n, v in poked if n != name)
    gaps = []
    for h in (1e-2, 5e-3):
        curve = poke.curve(text, others, name, x0 - h * 30, x0 + h * 30)  # 61 points: the middle one is x0
        assert len(curve.xs) == poke.CURVE_POINTS and curve.xs[30] == pytest.approx(x0, abs=1e-12)
        assert curve.ys[30] == pytest.approx(point.output, rel=1e-12, abs=1e-12), "the point is on the curve"
        slope = (curve.ys[31] - curve.ys[29]) / (curve.xs[31] - curve.xs[29])
        assert slope == pytest.approx(point.slopes[name], rel=1e-4, abs=1e-6), "the tangent's slope is the curve's"
        dx = curve.xs[31] - curve.xs[30]
        tangent = point.output + point.slopes[name] * np.array([-dx, dx])
        gaps.append(np.abs(curve.ys[[29, 31]] - tangent).max())
    scale = max(1.0, abs(point.output))
    assert gaps[0] <= 1e-2 * scale and (gaps[1] <= gaps[0] / 3 or gaps[0] < 1e-9 * scale), gaps  # O(h²): touching


def test_the_gradient_arrow_is_the_surface_s_slope():
    sliders = poke.sliders(MICROGRAD)
    poked = (("a", -3.0), ("b", 2.5))
    point = at(MICROGRAD, poked, sliders)
    h = 1e-3
    surface = poke.surface(MICROGRAD, (), "a", "b", (-3.0 - 12 * h, -3.0 + 12 * h), (2.5 - 12 * h, 2.5 + 12 * h))
    n = len(surface.xs)
    assert n == poke.SURFACE_POINTS and surface.zs.shape == (n, n)
    c = n // 2
    assert surface.zs[c, c] == pytest.approx(point.output, rel=1e-12)
    d_da = (surface.zs[c, c + 1] - surface.zs[c, c - 1]) / (surface.xs[c + 1] - surface.xs[c - 1])
    d_db = (surface.zs[c + 1, c] - surface.zs[c - 1, c]) / (surface.ys[c + 1] - surface.ys[c - 1])
    assert d_da == pytest.approx(point.slopes["a"], rel=1e-4)
    assert d_db == pytest.approx(point.slopes["b"], rel=1e-4)


def test_the_contour_plot_has_equal_units_and_holds_both_sliders():
    a, b = poke.sliders(MICROGRAD)
    (xlo, xhi), (ylo, yhi) = poke.square(a, b)
    assert xhi - xlo == yhi - ylo == max(a.hi - a.lo, b.hi - b.lo)
    assert xlo <= a.lo and xhi >= a.hi and ylo <= b.lo and yhi >= b.hi


def test_pictures_are_plain_json_and_follow_the_active_input():
    sliders = poke.sliders(MICROGRAD)
    poked = (("a", -3.5),)
    graph, _ = run.step_program(MICROGRAD, poked)
    asked = []

    def curve(*args):
        asked.append(("curve", args))
        return poke.curve(*args)

    def surface(*args):
        asked.append(("surface", args))
        return poke.surface(*args)

    data = poke.pictures(MICROGRAD, sliders, poked, graph, "a", None, curve=curve, surface=surface)
    json.dumps(data, allow_nan=False)
    assert data["active"] == "a" and data["out"] == "g" and data["poked"]
    assert [k["value"] for k in data["sliders"]] == [-3.5, 2.0]
    assert data["curve"]["name"] == "a" and len(data["curve"]["xs"]) == poke.CURVE_POINTS
    assert (data["surface"]["x"], data["surface"]["y"]) == ("a", "b")
    # each picture is asked for without the values it sweeps: a drag of a asks the same again
    assert asked[0] == ("curve", (MICROGRAD, (), "a", -8.0, 0.0))
    assert asked[1][1][:4] == (MICROGRAD, (), "a", "b")
    data_b = poke.pictures(MICROGRAD, sliders, poked, graph, "b", "a", curve=curve, surface=surface)
    assert data_b["curve"]["name"] == "b" and asked[2] == ("curve", (MICROGRAD, (("a", -3.5),), "b", 0.0, 4.0))
    assert (data_b["surface"]["x"], data_b["surface"]["y"]) == ("a", "b"), "the same axes whichever moves"


def test_a_pole_or_nan_is_a_gap_not_an_error():
    text = "x = 1.0\ny = log(x) / x\n"
    sliders = poke.sliders(text)
    graph, _ = run.step_program(text, (("x", 0.0),))
    data = poke.pictures(text, sliders, (("x", 0.0),), graph, "x", None)
    json.dumps(data, allow_nan=False)
    assert None in data["curve"]["ys"] and data["output"] is None and "surface" not in data


def test_an_array_output_is_named_as_the_sum_backward_differentiates():
    text = "x = [1.0, 2.0]\ny = x * 3\n"
    graph, _ = run.step_program(text)
    assert poke.output_name(graph) == "sum(y)"
    assert poke.point(graph, poke.sliders(text)).slopes["x"] == pytest.approx(math.fsum([1.0 * 3, 2.0 * 3]))


def test_partner_is_the_input_moved_before():
    sliders = poke.sliders(ATTENTION)
    assert poke.partner(sliders, "V", None) == "Q"
    assert poke.partner(sliders, "V", "K") == "K"
    assert poke.partner(sliders, "V", "V") == "Q"
    assert poke.partner(poke.sliders("x = 1.0\ny = x * x\n"), "x", None) is None
