"""The race's Hessian at the start point against closed forms, and each optimiser's learning rate against 2/λmax."""

import numpy as np
import pytest

from explorer.race import course
from explorer.race import curvature as race_curvature


def test_the_narrow_bowl_is_diag_1_20_and_sgd_overshoots_above_0_1():
    runners = (course.runner("sgd", lr=0.09), course.runner("sgd", lr=0.12), course.runner("momentum", lr=0.15),
               course.runner("adam", lr=0.3))
    said = race_curvature.race_curvature(course.preset_race("quadratic", runners))
    np.testing.assert_allclose(said["hessian"], [[1, 0], [0, 20]], atol=1e-6)
    assert said["lambda_max"] == pytest.approx(20, rel=1e-9)
    np.testing.assert_allclose(np.abs(said["directions"][0]), [0, 1], atol=1e-9)  # the sharpest: across, along y
    assert [r["verdict"] for r in said["runners"]] == ["stable", "oscillating", "stable", "oscillating"]
    assert said["runners"][2]["limit"] == pytest.approx(2 * 1.9 / 20)
    assert "2/λmax = 0.1." in said["sentence"] and "Adam rescales" in said["runners"][3]["sentence"]


def test_rosenbrock_matches_its_closed_form():
    said = race_curvature.race_curvature(course.preset_race("rosenbrock"))
    x, y = course.SURFACES["rosenbrock"].start
    H = np.array([[2 - 400 * y + 1200 * x ** 2, -400 * x], [-400 * x, 200]])
    np.testing.assert_allclose(said["hessian"], H, rtol=1e-6)
    assert said["lambda_max"] == pytest.approx(np.linalg.eigvalsh(H)[-1], rel=1e-6)


def test_the_saddle_says_no_rate_overshoots_where_it_curves_down():
    race = course.Race(text="x = 0.0\ny = 0.0\nloss = -x ** 2 - y ** 2\n", x="x", y="y", start=(0.0, 0.0),
                       runners=(course.runner("sgd", lr=1.0),))
    said = race_curvature.race_curvature(race)
    assert said["lambda_max"] == pytest.approx(-2, rel=1e-6) and said["runners"][0]["verdict"] == "stable"
    assert "no learning rate overshoots" in said["sentence"]
