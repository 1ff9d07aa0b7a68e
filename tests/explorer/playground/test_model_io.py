"""A run out and back in: JSON and .npz round trips, refused files, the Python script, the one-step program."""

import io
import json
import subprocess
import sys

import numpy as np
import pytest

from explorer.playground import datasets, model_files, training
from explorer.playground.settings import TrainConfig
from tests.support.helpers import ROOT


def _trained(config=None, steps=30):
    state = training.new_state(config or TrainConfig(optimizer="Adam", lr=0.03, hidden=(6, 5)))
    training.step(state, steps)
    return state


def _predictions(state):
    return training.layer_outputs(state, training.grid_points(state, 9))[-1]


@pytest.mark.parametrize("kind", ["json", "npz"])
def test_download_then_upload_gives_the_same_predictions(kind):
    state = _trained()
    data = model_files.to_json(state).encode() if kind == "json" else model_files.to_npz(state)
    back = model_files.load(f"model.{kind}", data)
    assert back.config == state.config and back.step == state.step == 30
    np.testing.assert_array_equal(_predictions(back), _predictions(state))
    assert back.history.steps == [30]  # the curves start again where the model was


def test_the_npz_carries_the_optimiser_so_training_continues_exactly():
    state = _trained()
    back = model_files.load("model.npz", model_files.to_npz(state))
    training.step(state, 7)
    training.step(back, 7)
    # NOTE: the batch order restarts with the loaded run, so compare on a full-batch run too.
    full = _trained(TrainConfig(optimizer="Adam", lr=0.03, hidden=(4,), batch_size=0))
    again = model_files.load("model.npz", model_files.to_npz(full))
    training.step(full, 5)
    training.step(again, 5)
    for a, b in zip(full.model.parameters(), again.model.parameters(), strict=True):
        np.testing.assert_array_equal(a.data, b.data)


def test_a_model_trained_on_uploaded_points_brings_them_along():
    X, y = datasets.parse_csv("\n".join(f"{i * 10},{(i * 7) % 5},{i % 3}" for i in range(30)), "classification")
    config = TrainConfig(dataset=datasets.UPLOADED, task="classification", hidden=(5,), test_fraction=0.2)
    state = training.new_state(config, data=(X, y))
    training.step(state, 10)
    for data in (model_files.to_json(state).encode(), model_files.to_npz(state)):
        back = model_files.load("m", data)
        assert back.config.dataset == datasets.UPLOADED and back.n_classes == 3
        np.testing.assert_array_equal(back.X_test, state.X_test)
        np.testing.assert_array_equal(_predictions(back), _predictions(state))


def _npz_with(state, **changes):
    with np.load(io.BytesIO(model_files.to_npz(state))) as npz:
        arrays = {k: npz[k] for k in npz.files}
    arrays.update(changes)
    out = io.BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda s: b"\xff\xfe not a model", "neither a model's JSON nor its .npz"),
        (lambda s: b"[1, 2, 3]", "no 'parameters'"),
        (lambda s: b"PK\x03\x04broken", "cannot be read"),
        (lambda s: json.dumps({**json.loads(model_files.to_json(s)), "format": "x"}).encode(),
         "not a model downloaded"),
        (lambda s: json.dumps({**json.loads(model_files.to_json(s)), "version": 99}).encode(), "version 99"),
        (lambda s: model_files.to_json(s).replace('"n": "200"', '"n": "5000"').encode(), "settings are not valid"),
        (lambda s: model_files.to_json(s).replace('"sizes": [', '"sizes": [7, ').encode(), "layer sizes"),
        (lambda s: _npz_with(s, **{"layers.0.weight": np.zeros((2, 2))}), "do not fit the network"),
        (lambda s: _npz_with(s, **{"layers.0.bias": np.full(6, np.nan)}), "NaN or infinite"),
        (lambda s: _npz_with(s, **{"optimizer.99.m": np.zeros(3)}), "does not fit the network"),
        (lambda s: b"{" * 200, "neither a model's JSON"),
    ],
)
def test_a_bad_model_file_is_refused_with_a_reason(make, says):
    with pytest.raises(model_files.ModelFileError, match=None) as info:
        model_files.load("upload.bin", make(_trained(steps=2)))
    assert says in str(info.value), str(info.value)
    assert len(str(info.value)) < 400


def test_the_npz_is_read_without_pickles():
    state = _trained(steps=1)
    evil = _npz_with(state, trap=np.array([object()], dtype=object))
    with pytest.raises(model_files.ModelFileError, match="would need pickle, which a model file is never read with"):
        model_files.load("evil.npz", evil)


# ------------------------------------------------------------------------ the script


@pytest.mark.parametrize(
    "config",
    [
        TrainConfig(),
        TrainConfig(dataset="three blobs", optimizer="Adam", lr=0.03, loss="MSE", hidden=(5,), activation="gelu",
                    batch_size=8, l2=0.001),
        TrainConfig(dataset="xor", optimizer="momentum", features=("x1·x2", "sin x1"), activation="relu", seed=4),
        TrainConfig(dataset="noisy cubic", optimizer="AdamW", lr=0.01, features=("x³",), batch_size=0, hidden=(6,)),
        TrainConfig(dataset="circles", loss="MSE", test_fraction=0.0, activation="sigmoid", hidden=(3, 3)),
        TrainConfig(init="Xavier uniform", hidden=(5, 4)),
        TrainConfig(dataset="sine", init="He normal", activation="relu", seed=9),
        TrainConfig(init="zeros", activation="sigmoid"),
    ],
    ids=["defaults", "three-classes-mse", "features-momentum", "regression-adamw", "no-test-split", "xavier-uniform",
         "he-normal", "zeros"],
)
def test_the_python_script_trains_to_the_same_weights(config, tmp_path):
    state = training.new_state(config)
    training.step(state, 23)
    _assert_the_script_reaches_the_weights(state, tmp_path, "step 23: train loss")


def _assert_the_script_reaches_the_weights(state, tmp_path, printed: str, text: str | None = None) -> None:
    """Run the script (`text`, or the state's) in a subprocess: it prints `printed` and ends with the state's
    weights to ~1e-12."""
    script = tmp_path / "train.py"
    script.write_text((text or model_files.to_script(state))
                      + "\nnp.savez('weights.npz', *[p.data for p in model.parameters()])\n")
    run = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert run.returncode == 0, run.stderr
    assert printed in run.stdout
    with np.load(tmp_path / "weights.npz") as saved:
        for i, p in enumerate(state.model.parameters()):
            np.testing.assert_allclose(saved[f"arr_{i}"], p.data, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("optimizer", ["SGD", "AdamW"])
def test_the_script_replays_a_live_learning_rate_change_at_its_step(optimizer, tmp_path):
    """Issue 17 item 2: 10 steps at lr 0.03, lr -> 0.3 (and L2 -> 0.01 at step 15), 10 more: the script
    changes them at the same steps (it used 0.3 for all 20, max |dw| 0.94), and its docstring says so."""
    state = training.new_state(TrainConfig(dataset="xor", optimizer=optimizer, lr=0.03, batch_size=16))
    training.step(state, 10)
    training.set_hyperparameters(state, lr=0.3, l2=0.0)  # the page passes both; only lr changed
    training.step(state, 4)
    training.set_hyperparameters(state, lr=0.3, l2=0.01)
    training.step(state, 6)
    assert state.schedule == {1: {"lr": 0.03, "l2": 0.0}, 11: {"lr": 0.3}, 15: {"l2": 0.01}}
    text = model_files.to_script(state, filename="playground_xor_step20.py")
    docstring = text[: text.index('"""', 3)]
    assert f"{optimizer} at learning rate 0.03, L2 0," in docstring
    assert "learning rate 0.3 from step 11; L2 0.01 from step 15" in docstring
    assert "SCHEDULE = {11: {'lr': 0.3}, 15: {'weight_decay': 0.01}}" in text
    assert "Then: python playground_xor_step20.py\n" in docstring
    _assert_the_script_reaches_the_weights(state, tmp_path, "step 20: train loss", text)
    # ... and a run whose rate changed only before its first step has no schedule
    plain = training.new_state(TrainConfig(dataset="xor", lr=0.03))
    training.set_hyperparameters(plain, lr=0.3)
    training.step(plain, 3)
    assert plain.schedule == {} and "SCHEDULE" not in model_files.to_script(plain)
    assert "learning rate 0.3," in model_files.to_script(plain)


def test_the_script_names_the_file_the_page_downloads_it_as():
    state = _trained(steps=3)
    assert f"Then: python {model_files.file_stem(state)}.py\n" in model_files.to_script(state)
    assert model_files.file_stem(state) == "playground_two_moons_step3"


@pytest.mark.parametrize("kind", ["json", "npz"])
def test_a_model_file_keeps_the_schedule_and_its_script_says_where_it_was_loaded(kind, tmp_path):
    state = training.new_state(TrainConfig(dataset="xor", lr=0.03, batch_size=0))
    training.step(state, 5)
    training.set_hyperparameters(state, lr=0.3)
    training.step(state, 5)
    data = model_files.to_json(state).encode() if kind == "json" else model_files.to_npz(state)
    back = model_files.load(f"m.{kind}", data)
    assert back.schedule == state.schedule and back.loaded_at == 10
    _assert_the_script_reaches_the_weights(back, tmp_path, "step 10: train loss")  # the weights of step 10
    training.step(back, 2)
    assert "loaded this run from a model file at step 10" in model_files.to_script(back)


def test_a_model_file_with_a_bad_schedule_is_refused():
    meta = json.loads(model_files.to_json(_trained(steps=3)))
    for bad in ({"2": {"lr": -1}}, {"2": {"momentum": 0.5}}, {"x": {"lr": 0.1}}, {"9": {"lr": 0.1}}, [1]):
        meta["schedule"] = bad
        with pytest.raises(model_files.ModelFileError, match="schedule"):
            model_files.load("m.json", json.dumps(meta).encode())
