"""A playground run as bytes for the run store and back: the model file format plus the run's own records, no pickle.

A snapshot is an uncompressed .npz (read back with ``allow_pickle=False``) holding
- ``model``: the run as `model_files.to_npz` writes a model file (settings, data of an upload, step,
  weights, the optimiser's state; not deflated, but for an upload's), read back by `model_files.load`, so a
  snapshot is checked as an uploaded model is;
- ``run``: JSON (its UTF-8 bytes) of what a model file leaves out and a continued run needs: playing or not, the
  batch order's generator state, the replay's spacing, the divergence message, the last health,
  the uploaded CSV's name and task;
- arrays: the curves (``history``), the replay frames (``frame_params``, ``frame_metrics``, and their
  health as JSON: ``frame_health``), the current epoch's batch ``order``, an upload's points (``upload_X/y``).
Version 1 (read still) held the run's JSON as a NumPy string (4 bytes a character) with the frames' health in it.
A playing run is saved once a second: `Reuse` keeps what one save encoded that the next can take as it is.
The store's database is written by other processes, so nothing read here is trusted: any part
that does not fit gives `SnapshotError`, and the page starts the run afresh with a message.
"""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile

import numpy as np

from explorer.playground import datasets, health, model_files, npz, training

FORMAT = "autograd-explorer run snapshot"
VERSION = 2
READS = (1, 2)  # the versions `load` reads


class SnapshotError(ValueError):
    """A stored snapshot that cannot be continued."""


@dataclasses.dataclass
class Snapshot:
    state: training.TrainState
    upload: object | None  # explorer.playground.controller.Upload (kept loose: the playground imports this module)
    playing: bool


def dump(state: training.TrainState, upload, playing: bool, reuse: Reuse | None = None) -> bytes:
    """The run as a snapshot's bytes. ``reuse``: the caller's `Reuse` (one per run it saves again and again), from
    which a save takes the replay frames' members as the last save made them (they change only when a frame is
    recorded, every few steps at most)."""
    h = state.history
    run = {
        "format": FORMAT,
        "version": VERSION,
        "playing": bool(playing),
        "rng": state.rng.bit_generator.state,
        "cursor": state._cursor,
        "frame_every": state.frame_every,
        "diverged": state.diverged,
        "compute_rate": state.compute_rate,
        "health": _health_json(state.health),
        "upload": None if upload is None else {"name": upload.name, "task": upload.task, "token": upload.token},
    }
    members = {
        # NOTE: plain but for an upload's (its points are in the model file's JSON, 4 bytes a character)
        "model": np.frombuffer(model_files.to_npz(state, compress=state.config.dataset == datasets.UPLOADED),
                               dtype=np.uint8),
        "run": _text(json.dumps(run)),
        "history": np.array([getattr(h, name) for name in h.COLUMNS], dtype=np.float64),
        **(reuse or Reuse()).frame_members(state.frames),
    }
    if state._order is not None:
        members["order"] = np.asarray(state._order, dtype=np.int64)
    if upload is not None:
        members["upload_X"], members["upload_y"] = np.asarray(upload.X), np.asarray(upload.y)
    return npz.npz(members)


class Reuse:
    """What one run's snapshots share from one save to the next: the replay frames' members, and each frame's health
    as JSON. A frame never changes (`training.Frame` is frozen, its health a tuple of frozen records) and is held
    here, so its identity names it while it is kept: a rewound run's new frames (the same steps, other numbers)
    are other objects, encoded afresh."""

    def __init__(self) -> None:
        self._frames: tuple[training.Frame, ...] = ()  # those of the last save
        self._members: dict[str, bytes] = {}  # their members' .npy bytes
        self._health: dict[int, tuple[training.Frame, str]] = {}  # id -> (the frame, its health's JSON)

    def frame_members(self, frames: list[training.Frame]) -> dict[str, bytes]:
        """``frame_params``, ``frame_metrics`` and ``frame_health`` of these frames, as .npy bytes."""
        if len(frames) == len(self._frames) and all(a is b for a, b in zip(frames, self._frames)):
            return self._members
        kept: dict[int, tuple[training.Frame, str]] = {}
        for f in frames:
            hit = self._health.get(id(f))
            kept[id(f)] = hit if hit is not None and hit[0] is f else (f, json.dumps(_health_json(f.health)))
        self._health, self._frames = kept, tuple(frames)
        self._members = {
            "frame_params": npz.npy(np.array([f.params for f in frames], dtype=np.float64).reshape(len(frames), -1)),
            "frame_metrics": npz.npy(np.array([[getattr(f.metrics, name) for name in _METRIC_FIELDS]
                                               for f in frames], dtype=np.float64).reshape(len(frames),
                                                                                          len(_METRIC_FIELDS))),
            "frame_health": npz.npy(_text(f"[{', '.join(kept[id(f)][1] for f in frames)}]")),
        }
        return self._members


def _text(text: str) -> np.ndarray:
    """JSON text as an array of its UTF-8 bytes. NOTE: np.array(text) holds 4 bytes a character (UTF-32): the run's
    JSON was 120 of a snapshot's 196 KB at the defaults after 2,000 steps."""
    return np.frombuffer(text.encode(), dtype=np.uint8)


def load(blob: bytes, upload_type) -> Snapshot:
    """The run in ``blob``; ``upload_type(name, task, X, y, token)`` rebuilds its upload."""
    try:
        with np.load(io.BytesIO(blob), allow_pickle=False) as npz:
            arrays = {key: npz[key] for key in npz.files}
        run = json.loads(_read_text(arrays["run"]))
        if not isinstance(run, dict) or run.get("format") != FORMAT or run.get("version") not in READS:
            raise SnapshotError("not a run snapshot of this version")
        if run["version"] > 1:
            run["frame_health"] = json.loads(_read_text(arrays["frame_health"]))
        state = model_files.load("the stored run", arrays["model"].tobytes())
        _restore_records(state, run, arrays)
        upload = None
        if run["upload"] is not None:
            u = run["upload"]
            X, y = _finite(arrays["upload_X"], 2), _finite(arrays["upload_y"], 1)
            upload = upload_type(str(u["name"]), str(u["task"]), X, y, str(u["token"]))
        return Snapshot(state, upload, bool(run["playing"]))
    except SnapshotError:
        raise
    except (model_files.ModelFileError, ValueError, KeyError, TypeError, IndexError, OSError, EOFError,
            zipfile.BadZipFile) as err:
        raise SnapshotError(f"the stored run cannot be read ({type(err).__name__}: {str(err)[:200]})") from None


def _restore_records(state: training.TrainState, run: dict, arrays: dict) -> None:
    history = _finite(arrays["history"], 2, allow_nan=True).astype(np.float64)
    n_params = len(training.flat_params(state))
    params = _finite(arrays["frame_params"], 2, allow_nan=True)
    metrics = _finite(arrays["frame_metrics"], 2, allow_nan=True)
    if history.shape[0] != len(training.History.COLUMNS) or not history.shape[1]:
        raise SnapshotError("the stored curves do not have the right shape")
    if params.size and (params.ndim != 2 or params.shape[1] != n_params):
        raise SnapshotError("the stored replay frames do not fit the network")
    if len(params) != len(metrics) or len(params) != len(run["frame_health"]) or len(params) > training.MAX_FRAMES:
        raise SnapshotError("the stored replay frames do not match")
    steps = history[0]
    if int(steps[-1]) != state.step:
        raise SnapshotError("the stored curves end at another step than the weights")
    state.history = training.History(*[[int(s) for s in steps]] + [list(map(float, row)) for row in history[1:]])
    state.frames = [
        training.Frame(training.Metrics(int(m[0]), *map(float, m[1:])), np.array(p, dtype=np.float64),
                       _health(h)) for p, m, h in zip(params, metrics, run["frame_health"])
    ]
    rng = np.random.default_rng()
    rng.bit_generator.state = run["rng"]  # ValueError / TypeError if it is not a PCG64 state
    state.rng = rng
    order = arrays.get("order")
    n = len(state.y_train)
    if order is not None and (order.ndim != 1 or len(order) != n or sorted(order.tolist()) != list(range(n))):
        raise SnapshotError("the stored batch order is not an order of the training points")
    cursor = int(run["cursor"])
    if not 0 <= cursor <= n:
        raise SnapshotError("the stored batch position is outside the training points")
    state._order, state._cursor = order, cursor
    state.frame_every = max(1, int(run["frame_every"]))
    state.diverged = None if run["diverged"] is None else str(run["diverged"])[:500]
    state.compute_rate = float(run["compute_rate"])
    state.health = _health(run["health"])


def _read_text(a: np.ndarray) -> str:
    """A member written by `_text` (version 1: a NumPy string)."""
    if a.dtype == np.uint8 and a.ndim == 1:
        return a.tobytes().decode("utf-8")
    if a.dtype.kind == "U" and a.ndim == 0:
        return str(a)
    raise SnapshotError("a stored text does not have the right kind or shape")


def _finite(a: np.ndarray, ndim: int, allow_nan: bool = False) -> np.ndarray:
    """``a`` if it is an array of numbers of ``ndim`` dimensions without infinities (or NaN, unless allowed)."""
    if a.dtype.kind not in "fiu" or a.ndim != ndim:
        raise SnapshotError("a stored array does not have the right kind or shape")
    if a.dtype.kind == "f" and (np.isinf(a).any() or (not allow_nan and np.isnan(a).any())):
        raise SnapshotError("a stored array holds infinite or NaN numbers")
    return a


_METRIC_FIELDS = tuple(f.name for f in dataclasses.fields(training.Metrics))
_HEALTH_FIELDS = tuple(f.name for f in dataclasses.fields(health.LayerHealth))


def _health_json(layers) -> list[dict]:
    # NOTE: not dataclasses.asdict, which deep-copies: for 100 replay frames it was half of a save's time
    return [{name: getattr(layer, name) for name in _HEALTH_FIELDS} for layer in layers]


def _health(layers) -> tuple[health.LayerHealth, ...]:
    fields = {f.name for f in dataclasses.fields(health.LayerHealth)}
    out = []
    for layer in layers:
        if not isinstance(layer, dict) or set(layer) != fields:
            raise SnapshotError("the stored gradient health does not have the right fields")
        numbers = {k: (None if v is None else float(v)) for k, v in layer.items() if k != "trouble"}
        out.append(health.LayerHealth(**numbers, trouble=str(layer["trouble"])[:300]))
    return tuple(out)
