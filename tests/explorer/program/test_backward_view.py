"""explorer.program.backward_view: what "Show the backward as a graph" sends the graph view, the link's settings, and
"differentiate again" checked against closed forms, autograd.grad twice and central differences."""

import numpy as np
import pytest

from explorer.program import backward_view
from explorer.program.presets import PRESETS

CUBE = "x = [0.5, -1.0, 2.0]\ny = (x ** 3).sum()"


def test_every_box_s_class_says_its_layer_and_the_counts_add_up():
    data = backward_view.backward_view(PRESETS["micrograd"][1])
    assert set(data["orders"].values()) == {1, 2}
    for box, order in data["orders"].items():
        line = data["dot"].split(f"  n{box} [", 1)[1].split("\n")[0]
        assert f'order-{order}"' in line
    assert sum(data["counts"].values()) == len(data["boxes"])
    assert {e["key"] for e in data["legend"]} >= {"backward", "grad"}


def test_differentiating_the_cube_s_grad_again_gives_six_x():
    x = np.array([0.5, -1.0, 2.0])
    second = backward_view.second_order(CUBE, (), "x")
    ((name, value, twice, fd),) = second.rows
    assert name == "x"
    np.testing.assert_allclose(value, 6 * x, rtol=1e-12)
    np.testing.assert_allclose(twice, 6 * x, rtol=1e-12)
    np.testing.assert_allclose(fd, 6 * x, rtol=1e-7)
    assert second.worst_twice == 0.0 and second.worst_fd < 1e-6
    data = backward_view.backward_view(CUBE, (), "x")
    assert set(data["counts"]) == {"1", "2", "3"}
    assert any(b["title"].startswith("2nd grad x") and b["order"] == 3 for b in data["boxes"].values())


def test_a_linear_program_s_grad_is_a_constant_and_says_its_second_derivatives_are_zero():
    text = "x = [1.0, 2.0]\ny = (x * 3.0).sum()"
    data = backward_view.backward_view(text, (), "x")
    assert "3" not in data["counts"] and backward_view.CONSTANT in data["sentence"]
    second = backward_view.second_order(text, (), "x")
    assert all(not np.any(value) for _, value, _, _ in second.rows)


def test_no_backward_pass_is_words_not_an_error():
    assert "no backward pass" in backward_view.backward_view("x = tensor([1.0, 2.0], requires_grad=False)\ny = x * 2"
                                                              )["none"]


def test_again_of_a_name_with_no_grad_says_what_can_be_chosen():
    with pytest.raises(ValueError, match="choose one of x"):
        backward_view.backward_view(CUBE, (), "nope")


@pytest.mark.parametrize(("query", "backward", "again", "said"), [
    ({"backward": "1"}, True, "", 0), ({"backward": "1", "again": "x"}, True, "x", 0),
    ({"backward": "yes"}, False, "", 1), ({}, False, "", 0)])
def test_the_link_s_settings_go_through_the_codec(query, backward, again, said):
    settings, problems = backward_view.settings_of(query)
    assert (settings.backward, settings.again, len(problems)) == (backward, again, said)
    if not said:
        assert backward_view.query_of(settings) == ({k: v for k, v in query.items()} if backward else {})


def test_poked_numbers_keep_the_layout_and_bring_their_own_values():
    layout, values = backward_view.poked_view(CUBE, (("x", 1.5),))
    assert layout["key"] == backward_view.backward_view(CUBE)["key"]
    grad_box = str(backward_view.backward_view(CUBE)["grads"][0][1])
    x = np.array([0.5, -1.0, 2.0])  # a vector's slider scales it: x = 1.5 is 1.5 times its own numbers
    assert values[grad_box]["tip"][0] == backward_view.numbers.compact(3 * (1.5 * x) ** 2)
