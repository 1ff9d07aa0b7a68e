"""The optimiser race (explorer/race/): paths equal the engine's optimisers run by hand, Adam's printed
arithmetic equals its hand-computed update, divergence stops a path with a message, the URL's text round-trips."""

import math

import numpy as np
import pytest

from autograd import Tensor, optim
from explorer.numbers import fmt_number
from explorer.race import course as race
from explorer.race import setup
from language import compile_program

ROSENBROCK = race.SURFACES["rosenbrock"]


def plain_script(make_optimiser, steps):
    """Rosenbrock from (-1.5, 2) written with the engine and stepped by an autograd.optim object, as a user would."""
    x, y = Tensor(-1.5, requires_grad=True), Tensor(2.0, requires_grad=True)
    opt = make_optimiser([x, y])
    points = [(x.item(), y.item())]
    for _ in range(steps):
        opt.zero_grad()
        loss = (1 - x) ** 2 + 100 * (y - x**2) ** 2
        loss.backward()
        opt.step()
        points.append((x.item(), y.item()))
    return np.array(points)


SCRIPTS = {
    "sgd": lambda p: optim.SGD(p, lr=0.001),
    "momentum": lambda p: optim.SGD(p, lr=0.001, momentum=0.9),
    "nesterov": lambda p: optim.SGD(p, lr=0.001, momentum=0.9, nesterov=True),
    "adam": lambda p: optim.Adam(p, lr=0.1),
    "adamw": lambda p: optim.AdamW(p, lr=0.1, weight_decay=0.01),
}


def test_rosenbrock_paths_equal_plain_scripts_and_differ():
    runners = tuple(ROSENBROCK.runner(kind) for kind in SCRIPTS)
    result = race.run_race(race.preset_race("rosenbrock", runners, steps=300))
    paths = {}
    for kind, path in zip(SCRIPTS, result["paths"]):
        assert path["stopped"] is None
        got = np.column_stack([path["x"], path["y"]])
        want = plain_script(SCRIPTS[kind], 300)
        assert got.shape == want.shape == (301, 2)
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=kind)  # json keeps 10 digits
        paths[kind] = got
    # the exact points (not rounded for JSON) agree to 1e-12
    surface = race._Surface(compile_program(ROSENBROCK.text), "x", "y")
    exact = race.run_path(surface, ROSENBROCK.runner("adam"), (-1.5, 2.0), 300, ROSENBROCK.box, digits=17)
    np.testing.assert_allclose(np.column_stack([exact["x"], exact["y"]]), plain_script(SCRIPTS["adam"], 300),
                               rtol=0, atol=1e-12)
    # visibly different: at step 100 every two of SGD, momentum and Adam are over 0.1 apart
    for a, b in (("sgd", "momentum"), ("sgd", "adam"), ("momentum", "adam")):
        assert np.linalg.norm(paths[a][100] - paths[b][100]) > 0.1, (a, b)
    # each loss is the loss at its point
    sgd = result["paths"][0]
    x, y = sgd["x"][-1], sgd["y"][-1]
    assert sgd["loss"][-1] == pytest.approx((1 - x) ** 2 + 100 * (y - x**2) ** 2, rel=1e-8)


def test_adam_arithmetic_is_the_hand_computed_update():
    r = race.runner("adam", lr=0.1, beta1=0.8, beta2=0.99, eps=1e-3)
    result = race.run_race(race.preset_race("rosenbrock", (r,), steps=20))
    path = result["paths"][0]
    p = np.array([-1.5, 2.0])
    m = v = np.zeros(2)
    for t in range(1, 21):
        x, y = p
        g = np.array([-2 * (1 - x) - 400 * x * (y - x * x), 200 * (y - x * x)])
        m = 0.8 * m + 0.2 * g
        v = 0.99 * v + 0.01 * g * g
        m_hat = m / (1 - 0.8**t)
        sqrt_v_hat = np.sqrt(v) / math.sqrt(1 - 0.99**t)
        step = -0.1 * m_hat / (sqrt_v_hat + 1e-3)
        for key, want in (("g", g), ("m", m_hat), ("sv", sqrt_v_hat), ("step", step)):
            assert path["arith"][key][t - 1] == [fmt_number(want[0]), fmt_number(want[1])], (key, t)
        p = p + step
        assert (path["x"][t], path["y"][t]) == pytest.approx(tuple(p), rel=1e-9, abs=1e-12)
    assert [key for key, _ in path["rules"]] == list(path["arith"]) == ["g", "m", "sv", "step"]


def test_adam_terms_match_the_optimisers_state():
    p = Tensor(np.array([1.0, -2.0]), requires_grad=True)
    opt = optim.Adam([p], lr=0.5, betas=(0.5, 0.75))
    p.grad = np.array([3.0, -4.0])
    opt.step()
    m_hat, sqrt_v_hat = race.adam_terms(opt, opt.state_dict()["state"][0])
    np.testing.assert_allclose(m_hat, [3.0, -4.0])  # one step: m̂ = g, √v̂ = |g|
    np.testing.assert_allclose(sqrt_v_hat, [3.0, 4.0])


def test_momentum_records_its_velocity_and_nesterov_its_look_ahead():
    runners = (ROSENBROCK.runner("momentum"), ROSENBROCK.runner("nesterov"))
    mom, nes = race.run_race(race.preset_race("rosenbrock", runners, steps=3))["paths"]
    # step 1: v = g; step 2: v = 0.9 v + g
    def grad(x, y):
        return np.array([-2 * (1 - x) - 400 * x * (y - x * x), 200 * (y - x * x)])

    g1 = grad(-1.5, 2.0)
    g2 = grad(*(np.array([-1.5, 2.0]) - 0.001 * g1))
    assert mom["arith"]["g"][0] == ["-155", "-50"]
    assert mom["arith"]["v"][1] == [fmt_number(0.9 * a + b) for a, b in zip(g1, g2)]
    assert nes["arith"]["u"][0] == [fmt_number(a + 0.9 * a) for a in g1]
    assert nes["arith"]["step"][0] == [fmt_number(-0.001 * 1.9 * a) for a in g1]


def test_divergence_stops_the_path_with_a_message():
    runners = (race.runner("sgd", lr=0.01), race.runner("adam", lr=0.1))
    sgd, adam = race.run_race(race.preset_race("rosenbrock", runners, steps=200))["paths"]
    assert sgd["stopped"].startswith("diverged at step ")
    assert "smaller learning rate" in sgd["stopped"]
    assert len(sgd["x"]) == len(sgd["loss"]) < 200
    assert all(v is not None and math.isfinite(v) for v in sgd["loss"] + sgd["x"] + sgd["y"])
    assert len(sgd["arith"]["g"]) == len(sgd["x"]) - 1
    assert adam["stopped"] is None and len(adam["x"]) == 201


def test_a_point_where_the_loss_is_not_finite_stops_the_path():
    text = "x = 1.0\ny = 1.0\nloss = x.sqrt() + y ** 2\n"  # a step of 5 · 0.5 takes x below 0
    path = race.run_race(race.Race(text, "x", "y", (1.0, 1.0), (race.runner("sgd", lr=5.0),), 50))["paths"][0]
    assert path["stopped"] is not None and "not a finite" in path["stopped"]
    assert all(math.isfinite(v) for v in path["loss"])


def test_races_on_the_learners_program():
    text = "a = 2.0\nw = [1.0, 2.0]\nb = -1.0\nout = (a * w + b) ** 2\n"
    program = compile_program(text)
    assert race.plane_inputs(program) == ["a", "b"]
    r = race.Race(text, "a", "b", (5.0, 3.0), (race.runner("adam"),), 10)
    (x0, x1), (y0, y1) = r.plot_box(program)
    assert x0 < 5.0 < x1 and y0 < 3.0 < y1
    path = race.run_race(r)["paths"][0]
    a, b = path["x"][1], path["y"][1]
    assert path["loss"][1] == pytest.approx(((a + b) ** 2 + (2 * a + b) ** 2), rel=1e-9)  # the output summed
    picture = race.grid(r)
    assert len(picture["zs"]) == len(picture["xs"]) * len(picture["ys"])
    j, i = 3, 5
    x, y = picture["xs"][j], picture["ys"][i]
    assert picture["zs"][i * len(picture["xs"]) + j] == pytest.approx((x + y) ** 2 + (2 * x + y) ** 2, rel=1e-5)


@pytest.mark.parametrize(("text", "x", "y", "runners", "steps", "words"), [
    ("x = 1.0\nloss = x ** 2\n", "x", "y", None, 10, "at least two inputs"),
    ("x = 1.0\ny = 2.0\nloss = x * y\n", "x", "z", None, 10, "`z` is not an input"),
    ("x = 1.0\ny = 2.0\nloss = x * y\n", "x", "x", None, 10, "two different inputs"),
    ("x = 1.0\ny = 2.0\nloss = x * y\n", "x", "y", None, 5000, "between 1 and 1,000"),
    ("x = 1.0\ny = 2.0\nloss = x * y\n", "x", "y", (race.runner("sgd"),) * 7, 10, "1 to 6 optimisers"),
    ("x = 1.0\ny = 2.0\nloss = x * y\n", "x", "y", (race.runner("adam", beta1=1.0),), 10, "β₁ must be"),
])
def test_races_that_are_not_allowed_say_why(text, x, y, runners, steps, words):
    r = race.Race(text, x, y, (0.0, 0.0), runners or (race.runner("sgd"),), steps)
    with pytest.raises(ValueError, match=words):
        race.run_race(r)


def test_a_costly_program_is_told_how_many_steps_it_may_race():
    text = "W = randn(200, 200)\nx = 1.0\ny = 2.0\nloss = ((W * x + y) ** 2).mean()\n"
    r = race.Race(text, "x", "y", (1.0, 2.0), (race.runner("sgd"),) * 4, 1000)
    with pytest.raises(ValueError, match=r"too costly to race 4 optimisers for 1,000 steps: at most [\d,]+ steps"):
        race.run_race(r)
    assert len(race.run_race(race.Race(text, "x", "y", (1.0, 2.0), (race.runner("sgd"),), 20))["paths"][0]["x"]) == 21


def test_runners_round_trip_through_the_url():
    runners = (race.runner("sgd", lr=0.002), race.runner("nesterov", momentum=0.5), race.runner("adamw", beta2=0.9))
    text = setup.runners_text(runners)
    assert text == "sgd(lr=0.002);nesterov(lr=0.001,momentum=0.5);adamw(lr=0.1,beta2=0.9)"
    assert setup.runners_from_text(text) == (runners, [])


@pytest.mark.parametrize(("text", "words"), [
    ("rmsprop(lr=0.1)", "no optimiser called `rmsprop`"),
    ("sgd(lr=abc)", "`abc` is not a number"),
    ("sgd(lr=-1)", "learning rate must be above 0"),
    ("sgd(momentum=0.9)", "SGD has no setting `momentum`"),
    ("adam(lr=nan)", "learning rate must be"),
])
def test_bad_runners_in_a_url_are_said(text, words):
    runners, problems = setup.runners_from_text(f"{text};adam(lr=0.2)")
    assert runners == (race.runner("adam", lr=0.2),)
    assert len(problems) == 1 and words in problems[0]


def test_pairs_from_a_url():
    assert setup.pair_from_text(setup.pair_text((-1.5, 2.0))) == (-1.5, 2.0)
    assert setup.pair_from_text("1,inf") is None and setup.pair_from_text("1") is None
    assert setup.pair_from_text("a,b") is None


def test_rosenbrock_is_coloured_by_log_loss_and_the_bowl_is_not():
    assert race.grid(race.preset_race("rosenbrock"))["log"] is True
    assert race.grid(race.preset_race("quadratic"))["log"] is False


def test_the_benchmark_runs():
    from benchmarks import race as bench

    figures = bench.server(repeats=1, steps=3)
    assert figures["points"] == 4 * 4 and figures["bytes"] > 0 and figures["race"] > 0


@pytest.mark.parametrize("name", sorted(race.SURFACES))
def test_each_surface_s_stars_are_its_minima(name):
    """Issue 29: the contour plot stars each surface's minimum; a star is where the loss is least around it (and
    the least of the plot's grid, give or take its spacing), and a program of the learner's own gets none."""
    surface = race.SURFACES[name]
    picture = race.grid(race.preset_race(name))
    assert picture["minima"] == [list(m) for m in surface.minima] and picture["minima"], picture["minima"]
    program = compile_program(surface.text)

    def loss(x, y):
        return float(program.run(inputs={"x": np.array(x), "y": np.array(y)}).output.data)

    grid_least = np.nanmin(np.array(picture["zs"], dtype=np.float64))
    for x, y in surface.minima:
        here = loss(x, y)
        around = [loss(x + dx, y + dy) for dx in (-1e-3, 0, 1e-3) for dy in (-1e-3, 0, 1e-3) if dx or dy]
        assert here <= min(around) + 1e-12, (name, (x, y), here, min(around))
        assert here <= grid_least + 1e-9, (name, (x, y), here, grid_least)
    own = race.Race(text="x = 1.0\ny = 2.0\nloss = x ** 2 + y ** 2\n", x="x", y="y", start=(1.0, 2.0),
                    runners=(race.runner("sgd"),))
    assert race.grid(own)["minima"] == []
