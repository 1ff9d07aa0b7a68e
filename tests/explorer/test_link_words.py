"""A link's numbers and what a page says of a link (issue 28's words): ASCII digits only, every echoed value
clipped, Python's own words never shown, and a link of many bad parts said in a few warnings."""

import pytest

from explorer import links
from explorer.numbers import HUGE_WHOLE, number_from_link, whole_from_link
from explorer.playground.settings import TrainConfig
from explorer.program import forward_mode
from explorer.race import setup as race_setup

PYTHON_WORDS = ("invalid literal", "int()", "float()", "sys.set_int_max_str_digits", "Exceeds the limit",
                "object is not", "could not convert")
#: Digits Python's int() and float() read but a link never writes: Arabic-Indic, Devanagari, full-width, and a
#: superscript (which str.isdigit() calls a digit).
FOREIGN = ["٣", "३", "３", "٠.٣", "²", "1²"]


@pytest.mark.parametrize("text", ["0.3", "-1e-3", "+2", ".5", "3.", "1E5", "inf", "-inf", "nan", " 7 "])
def test_number_from_link_reads_what_a_link_writes(text):
    assert number_from_link(text) == pytest.approx(float(text), nan_ok=True)


@pytest.mark.parametrize("text", [*FOREIGN, "", "1_000", "0x10", "1e", "--1", "1,5", "one"])
def test_number_from_link_refuses_anything_else(text):
    with pytest.raises(ValueError, match="^not a number$"):
        number_from_link(text)


def test_digits_past_the_largest_double_are_large_not_infinite():
    assert number_from_link("9" * 5300) == number_from_link("1e400") == 1.7976931348623157e308
    assert number_from_link("-1e400") == -1.7976931348623157e308 and number_from_link("-inf") == float("-inf")


def test_whole_from_link():
    assert whole_from_link("12") == 12 and whole_from_link("-3") == -3 and whole_from_link("+0004") == 4
    assert whole_from_link("9" * 5300) == HUGE_WHOLE and whole_from_link("-" + "9" * 30) == -HUGE_WHOLE
    for text in [*FOREIGN, "1.0", "1e3", "", "nan"]:
        with pytest.raises(ValueError, match="^not a whole number$"):
            whole_from_link(text)


@pytest.mark.parametrize("digit", FOREIGN)
def test_a_step_of_foreign_digits_is_refused_and_said(digit):
    step, problem = links.step_from_link(digit, 10)
    assert step == 0 and problem and "not a whole number from 0 to 10" in problem


def test_a_huge_step_is_clamped_with_its_digits_clipped():
    step, problem = links.step_from_link("9" * 5300, 10)
    assert step == 10 and len(problem) < 200 and "opened at step 10" in problem


@pytest.mark.parametrize("digit", FOREIGN)
def test_a_setting_of_foreign_digits_is_refused(digit):
    config, problems = TrainConfig.from_query({"lr": digit, "seed": digit})
    assert config.lr == TrainConfig().lr and config.seed == TrainConfig().seed
    assert len(problems) == 2 and all("not a number" in p for p in problems)


@pytest.mark.parametrize("v", ["element:W:²", "element:W:٣", "element:W:" + "9" * 5300, "x" * 30_000,
                               "input:" + "y" * 30_000, "element:" + "z" * 30_000 + ":1"])
def test_a_direction_is_said_in_the_apps_words_and_clipped(v):
    mode, direction, problems = forward_mode.mode_from_link("forward", v)
    said = problems or [forward_mode.direction_problem(direction, {"W": (2, 2)})]
    assert said and said[0]
    for problem in said:
        assert len(problem) < 400, problem[:200]
        assert not any(words in problem for words in PYTHON_WORDS), problem


def test_a_mode_is_clipped():
    _, _, problems = forward_mode.mode_from_link("m" * 30_000, None)
    assert len(problems) == 1 and len(problems[0]) < 200


def test_many_optimisers_past_the_limit_are_one_warning():
    setup, problems = race_setup.setup_from_query({"surface": "rosenbrock", "opt": ";".join(["sgd(lr=0.01)"] * 1000)})
    assert len(setup.runners) == 6
    assert problems == ["opt: a race has at most 6 optimisers: the first 6 race, 994 more were left out"]


def test_a_link_of_many_bad_parts_is_said_in_a_few_warnings():
    _, problems = race_setup.setup_from_query({"surface": "rosenbrock", "opt": ";".join(["bogus"] * 1000)})
    said = links.said_once(problems)
    assert len(said) <= links.MAX_SAID and "(999 times)" in said[0]
    _, problems = race_setup.setup_from_query(
        {"surface": "rosenbrock", "opt": ";".join(f"bogus{i}" for i in range(1000))})
    said = links.said_once(problems)
    assert len(said) == links.MAX_SAID
    assert said[-1] == f"{1000 - links.MAX_SAID + 1:,} more parts could not be used either"


def test_said_once():
    assert links.said_once([]) == []
    assert links.said_once(["a", "b", "a"]) == ["a (2 times)", "b"]
    assert links.said_once([str(i) for i in range(10)], most=3) == ["0", "1", "8 more parts could not be used either"]


def test_the_codec_clips_what_it_echoes():
    setup, problems = race_setup.setup_from_query({"surface": "rosenbrock", "steps": "9" * 5300})
    assert setup.steps == 1000 and len(problems) == 1 and len(problems[0]) < 200
