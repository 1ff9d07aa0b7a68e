"""The playground's settings table: one declaration per setting drives the URL, the checks, the restarts."""

from dataclasses import fields, replace

import pytest

from explorer.playground import settings as ps
from explorer.playground.settings import SETTING, SETTINGS, TrainConfig


def test_every_config_field_but_the_task_is_a_setting_with_a_widget():
    names = [f.name for f in fields(TrainConfig) if f.name != "task"]
    assert [s.name for s in SETTINGS] == names
    for s in SETTINGS:
        assert s.kind in ("select", "select_slider", "slider", "number", "text", "multiselect"), s.name
        assert s.section in ("Data", "Network", "Training") and s.label
        if s.kind in ("slider", "number"):
            assert s.lo < s.hi and s.step > 0 and s.lo <= ps.DEFAULT_VALUES[s.name] <= s.hi
    assert [s.name for s in SETTINGS if not s.restarts] == ["lr", "l2", "speed"]


def test_the_url_round_trips_a_config():
    config = TrainConfig(dataset="spiral", hidden=(16, 8, 4), activation="relu", lr=0.3, features=("sin x1",),
                         loss="MSE", batch_size=0, speed=5, test_fraction=0.0)
    back, problems = TrainConfig.from_query(config.to_query())
    assert back == config and problems == []


@pytest.mark.parametrize(
    ("query", "field", "value", "says"),
    [
        ({"n": "5000"}, "n", 1000, "n='5000' is above the largest 1000: using 1000"),
        ({"n": "4"}, "n", 20, "n='4' is below the smallest 20: using 20"),
        ({"n": "205"}, "n", 200, "between steps of 10"),
        ({"noise": "2.0"}, "noise", 1.0, "noise='2.0' is above the largest 1.0: using 1.0"),
        ({"test_fraction": "0.9"}, "test_fraction", 0.8, "above the largest 0.8"),
        ({"lr": "0.05"}, "lr", 0.03, "not one of the choices; the nearest is 0.03"),
        ({"lr": "100"}, "lr", 10.0, "above the largest 10.0"),
        ({"batch_size": "3"}, "batch_size", 4, "the nearest is 4"),
        ({"seed": "-3"}, "seed", 0, "below the smallest 0"),
        ({"speed": "7"}, "speed", 5, "the nearest is 5"),
    ],
)
def test_url_values_outside_a_widget_are_clamped_with_a_warning(query, field, value, says):
    config, problems = TrainConfig.from_query(query)
    assert getattr(config, field) == value
    assert len(problems) == 1 and says in problems[0], problems
    assert type(getattr(config, field)) is type(ps.DEFAULT_VALUES[field])  # an int stays an int


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ({"n": "lots"}, "n='lots' is not valid (not a number); kept 200"),
        ({"seed": "1.5"}, "not a whole number"),
        ({"hidden": "8,999"}, "each hidden layer has 1 to 64 neurons"),
        ({"hidden": "8,x"}, "whole numbers separated by commas; 'x' is not one"),
        ({"activation": "swish"}, "activation 'swish' is not one of relu"),
        ({"dataset": "moons"}, "data set 'moons' is not one of two moons"),
        ({"features": "x1²,zz"}, "['zz'] do not apply to classification"),
        ({"dataset": "sine", "loss": "cross-entropy"}, "loss 'cross-entropy' is not one of MSE); kept MSE"),
        ({"noise": "nan"}, "not a finite number"),
    ],
)
def test_url_values_a_widget_cannot_show_are_ignored_with_a_warning(query, says):
    config, problems = TrainConfig.from_query(query)
    assert any(says in p for p in problems), problems
    name = next(k for k in query if k != "dataset" or len(query) == 1)
    if name != "dataset":
        assert getattr(config, name) == getattr(TrainConfig(dataset=config.dataset), name)


def test_every_refused_value_is_reported_and_the_rest_is_kept():
    config, problems = TrainConfig.from_query(
        {"dataset": "moons", "lr": "abc", "hidden": "999", "activation": "foo", "optimizer": "Adam", "n": "9999"}
    )
    assert config.optimizer == "Adam" and config.n == 1000
    assert len(problems) == 5, problems


def test_a_huge_url_value_is_quoted_short():
    config, problems = TrainConfig.from_query({"n": "9" * 5000, "activation": "x" * 5000})
    assert all(len(p) < 300 for p in problems), [len(p) for p in problems]
    assert any("…" in p for p in problems)


def test_uploaded_data_in_a_url_needs_its_task():
    config, problems = TrainConfig.from_query({"dataset": "uploaded CSV", "features": "x²"}, task="regression")
    assert (config.dataset, config.task, config.features, problems) == ("uploaded CSV", "regression", ("x²",), [])


def test_changed_settings_names_what_restarts_a_run():
    old = TrainConfig()
    assert ps.changed_settings(old, replace(old, lr=1.0, l2=0.1, speed=100)) == []  # applied live
    new = replace(old, activation="relu", optimizer="Adam", hidden=(4,))
    assert ps.changed_settings(old, new) == ["hidden layer widths", "activation", "optimiser"]
    assert old.run_key() != new.run_key() and old.run_key() == replace(old, lr=3.0).run_key()


def test_parse_hidden():
    assert ps.parse_hidden("8, 8") == (8, 8)
    assert ps.parse_hidden("") == ()
    assert ps.parse_hidden("64 64 64") == (64, 64, 64)
    with pytest.raises(ValueError, match="'x' is not one"):
        ps.parse_hidden("8, x")
    with pytest.raises(ValueError, match="at most 8 hidden layers"):
        ps.parse_hidden("1," * 9)


def test_config_checks_every_setting_against_its_widget():
    with pytest.raises(ValueError, match="up to 8 hidden layers|at most 8 hidden layers"):
        TrainConfig(hidden=(8,) * 9)
    with pytest.raises(ValueError, match="1 to 64"):
        TrainConfig(hidden=(65,))
    with pytest.raises(ValueError, match="optimiser 'Lion' is not one of"):
        TrainConfig(optimizer="Lion")
    with pytest.raises(ValueError, match="points must be between 20 and 1000"):
        TrainConfig(n=5000)
    with pytest.raises(ValueError, match="test split must be between 0 and 0.8"):
        TrainConfig(test_fraction=0.9)
    TrainConfig(hidden=(64,) * 8)  # the largest allowed network
    assert SETTING["test_fraction"].fmt == "percent"
