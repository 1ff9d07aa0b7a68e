"""A run's snapshot for the run store: what it holds comes back whole, version 1 still reads, and what one save
reuses from the last (`snapshot.Reuse`) never makes it differ from a snapshot written from nothing."""

import io
import json
import zipfile

import numpy as np
import pytest

from explorer.playground import snapshot, training
from explorer.playground.settings import TrainConfig


def trained(steps: int = 30, **settings) -> training.TrainState:
    state = training.new_state(TrainConfig(**settings))
    for _ in range(steps):
        training.step(state, 1)
    return state


def assert_same_run(a: training.TrainState, b: training.TrainState) -> None:
    np.testing.assert_array_equal(training.flat_params(a), training.flat_params(b))
    assert a.step == b.step and a.history == b.history and a.health == b.health
    assert [f.step for f in a.frames] == [f.step for f in b.frames]
    for fa, fb in zip(a.frames, b.frames, strict=True):
        np.testing.assert_array_equal(fa.params, fb.params)
        assert fa.metrics == fb.metrics and fa.health == fb.health
    assert a.rng.bit_generator.state == b.rng.bit_generator.state and a._cursor == b._cursor
    np.testing.assert_array_equal(a._order, b._order)


def members(blob: bytes) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(blob), allow_pickle=False) as npz:
        return {key: npz[key] for key in npz.files}


def test_a_snapshot_comes_back_as_the_run_it_was():
    state = trained(130)  # past MAX_FRAMES steps: the replay was thinned
    assert state.frame_every > 1
    back = snapshot.load(snapshot.dump(state, None, True), None)
    assert back.playing and back.upload is None
    assert_same_run(back.state, state)


def test_the_runs_json_travels_as_utf8_bytes_not_a_numpy_string():
    """A NumPy string holds 4 bytes a character: the run's JSON (with the frames' health) was 120 of a 196 KB
    snapshot. Now each text is its UTF-8 bytes."""
    state = trained(130)
    arrays = members(snapshot.dump(state, None, False))
    assert arrays["run"].dtype == np.uint8 and arrays["frame_health"].dtype == np.uint8
    health = json.loads(arrays["frame_health"].tobytes())
    assert len(health) == len(state.frames)
    assert health[-1] == snapshot._health_json(state.frames[-1].health)


def v1_blob(state: training.TrainState) -> bytes:
    """The snapshot as version 1 wrote it: the frames' health inside the run's JSON, held as a NumPy string."""
    arrays = members(snapshot.dump(state, None, True))
    run = json.loads(arrays.pop("run").tobytes())
    run["version"] = 1
    run["frame_health"] = json.loads(arrays.pop("frame_health").tobytes())
    out = io.BytesIO()
    np.savez(out, run=np.array(json.dumps(run)), **arrays)
    return out.getvalue()


def test_a_version_1_snapshot_still_reads():
    state = trained(40)
    back = snapshot.load(v1_blob(state), None)
    assert back.playing
    assert_same_run(back.state, state)


def test_a_snapshot_is_a_plain_uncompressed_npz():
    with zipfile.ZipFile(io.BytesIO(snapshot.dump(trained(3), None, False))) as archive:
        infos = archive.infolist()
    assert {i.filename for i in infos} >= {"model.npy", "run.npy", "frame_health.npy", "history.npy"}
    assert all(i.compress_type == zipfile.ZIP_STORED for i in infos)


def test_the_model_file_inside_is_plain_but_for_an_uploads():
    """Deflate cost more than the rest of a save (weights hardly compress); an upload's points are in the model
    file's JSON, which compresses well, so that one stays deflated. Both read back."""
    state = trained(5)
    X, y = training.all_points(state)
    upload = training.new_state(TrainConfig(dataset="uploaded CSV", task="classification"), (X, y))
    training.step(upload, 5)
    for run, deflated in ((state, False), (upload, True)):
        model = members(snapshot.dump(run, None, False))["model"].tobytes()
        with zipfile.ZipFile(io.BytesIO(model)) as archive:
            kinds = {i.compress_type for i in archive.infolist()}
        assert kinds == {zipfile.ZIP_DEFLATED if deflated else zipfile.ZIP_STORED}
        assert_same_run(snapshot.load(snapshot.dump(run, None, False), None).state, run)


@pytest.mark.parametrize("text", [np.array([1.5, 2.5]), np.zeros((2, 2), dtype=np.uint8)])
def test_a_stored_text_of_another_kind_is_refused(text):
    arrays = members(snapshot.dump(trained(2), None, False))
    arrays["run"] = text
    out = io.BytesIO()
    np.savez(out, **arrays)
    with pytest.raises(snapshot.SnapshotError):
        snapshot.load(out.getvalue(), None)


def test_what_a_save_reuses_never_makes_its_snapshot_differ_from_one_written_afresh():
    """One Reuse across the saves of a run that trains, thins its replay, is taken back and trains again with
    another learning rate (frames of the same steps with other numbers): each snapshot is byte for byte the
    one written without it (but for the model file's date). A cache keyed by step would keep the health of the
    frames before the rewind."""
    state = trained(0, batch_size=4)
    reuse = snapshot.Reuse()
    kept = {}
    for _ in range(160):
        training.step(state, 1)
        if state.step == 60:
            kept = training.checkpoint(state)
        assert_same_records(snapshot.dump(state, None, True, reuse), snapshot.dump(state, None, True))
    training.rewind(state, kept)
    training.set_hyperparameters(state, lr=1.0)
    for _ in range(60):
        training.step(state, 2)  # a frame of step 62 again (every 2nd step), as the last save had one
        assert_same_records(snapshot.dump(state, None, True, reuse), snapshot.dump(state, None, True))
    back = snapshot.load(snapshot.dump(state, None, True, reuse), None)
    assert_same_run(back.state, state)


def test_frames_as_many_as_the_last_saves_but_others_are_encoded_afresh():
    """Taken back a few frames and trained as many again before the next save: as many frames as that save had,
    the last ones others."""
    state = trained(20, batch_size=4)
    kept = training.checkpoint(state)
    training.step(state, 1)
    training.step(state, 1)
    reuse = snapshot.Reuse()
    before = [f.step for f in state.frames]
    snapshot.dump(state, None, True, reuse)
    training.rewind(state, kept)
    training.set_hyperparameters(state, lr=1.0)
    training.step(state, 1)
    training.step(state, 1)
    assert [f.step for f in state.frames] == before
    assert_same_records(snapshot.dump(state, None, True, reuse), snapshot.dump(state, None, True))


def assert_same_records(blob: bytes, afresh: bytes) -> None:
    """Every member but the model file (a zip of its own, dated by the clock) byte for byte the same."""
    a, b = members(blob), members(afresh)
    assert a.keys() == b.keys()
    for key in a.keys() - {"model"}:
        assert a[key].dtype == b[key].dtype and a[key].tobytes() == b[key].tobytes(), key


def test_reuse_keeps_only_the_frames_of_the_last_save():
    state = trained(130)
    reuse = snapshot.Reuse()
    snapshot.dump(state, None, False, reuse)
    assert len(reuse._health) == len(state.frames)
    state.frames = state.frames[-3:]
    snapshot.dump(state, None, False, reuse)
    assert {id(f) for f in state.frames} == set(reuse._health)
