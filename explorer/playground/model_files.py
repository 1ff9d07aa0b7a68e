"""A playground run out and back in: the model as JSON or .npz, as a Python script, one step as a program.

- `to_json(state)`: the settings (as the URL writes them), the data (the points themselves for an
  upload), the step and every weight — readable, and enough to load on its own.
- `to_npz(state)`: the same weights as arrays named like `state_dict()` keys, the optimiser's
  state (so training continues exactly), and the JSON's settings under `meta`.
- `load(name, data)`: either file back into a `TrainState`, checked from its headers before anything is
  unpacked or converted; `ModelFileError` says what is wrong.
- `to_script(state, steps, filename)`: a Python program that rebuilds the data, the network and the
  optimiser with `autograd` and trains them the same way (same seeds, same batches, same numbers, the
  learning rate and L2 changed at the steps the run changed them: `TrainState.schedule`).
"""

from __future__ import annotations

import io
import json
import math
import zipfile
import zlib
from dataclasses import dataclass

import numpy as np

from explorer.playground import catalogue, datasets, npz, training
from explorer.playground.settings import TrainConfig
from explorer.words import clip_text
from language.emit import RUN_NOTE

FORMAT = "autograd-explorer playground model"
VERSION = 1
MAX_FILE_BYTES = 50_000_000


class ModelFileError(ValueError):
    """A model file that cannot be loaded; the message says why."""


# ------------------------------------------------------------------------ out


def _meta(state: training.TrainState) -> dict:
    config = state.config
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "settings": config.to_query(),
        "task": config.task,
        "step": state.step,
        "sizes": list(state.model.sizes),
    }
    if state.schedule:
        meta["schedule"] = {str(step): values for step, values in state.schedule.items()}
    if config.dataset == datasets.UPLOADED:
        meta["data"] = {"X_train": state.X_train.tolist(), "y_train": state.y_train.tolist(),
                        "X_test": state.X_test.tolist(), "y_test": state.y_test.tolist()}
    return meta


def to_json(state: training.TrainState) -> str:
    meta = _meta(state)
    meta["parameters"] = {name: value.tolist() for name, value in state.model.state_dict().items()}
    return json.dumps(meta, indent=1)


def to_npz(state: training.TrainState, *, compress: bool = True) -> bytes:
    """The model file (`compress`: deflated; a run's snapshot, saved once a second, takes it plain: weights
    hardly compress, and deflate cost more than the rest of the snapshot)."""
    arrays = {name: value for name, value in state.model.state_dict().items()}
    for i, slots in state.optimizer.state_dict()["state"].items():
        for key, value in slots.items():
            arrays[f"optimizer.{i}.{key}"] = np.asarray(value)
    arrays["meta"] = np.array(json.dumps(_meta(state)))
    out = io.BytesIO()
    if not compress:
        return npz.npz(arrays)
    np.savez_compressed(out, **arrays)
    return out.getvalue()


# ------------------------------------------------------------------------- in
# NOTE: a file is checked from what it says about itself before anything is unpacked or converted: its byte
# count, a JSON's nesting depth, an .npz's central directory (each member's unpacked size and compression
# ratio) and each array's .npy header (dtype and shape, against the network the file's settings build). A
# 391 KB .npz whose members unpacked to gigabytes, or whose header claimed a 7 TiB array, was allocated first.

#: The largest model the Playground makes (8 hidden layers of 64, all extra features, 5,000 uploaded points)
#: is 1.1 MB as JSON and 0.4 MB as .npz (1.7 MB unpacked with Adam's state): the limits leave room for that.
MAX_FILE_BYTES = 4_000_000
MAX_UNPACKED_BYTES = 8_000_000  # an .npz's members together, unpacked
MAX_MEMBERS = 128  # arrays in an .npz: 2 per layer, 3 more per layer for the optimiser's state, and meta
MAX_RATIO = 100  # unpacked / packed bytes of a member over RATIO_FROM bytes (the models' reach ~7)
RATIO_FROM = 65_536
MAX_DEPTH = 6  # brackets nested in a model's JSON ({"data": {"X_train": [[x, y], ...]}} is 4)
_HEADER_BYTES = 4_096  # an .npy header's dict, at most
#: What reading a damaged or unusual zip raises (encrypted members: RuntimeError; bad deflate data: zlib.error).
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError, NotImplementedError,
               RuntimeError, zlib.error)
_NUMBER_KINDS = "fiub"  # dtypes the arrays may have (float, int, unsigned, bool); meta is text ("U")


def load(name: str, data: bytes) -> training.TrainState:
    """A run from a file made by `to_json` or `to_npz` (told apart by their content)."""
    if len(data) > MAX_FILE_BYTES:
        raise ModelFileError(f"{clip_text(name)} is {len(data):,} bytes; a model file is at most {MAX_FILE_BYTES:,}")
    if data[:2] == b"PK":
        return _from_npz(data)
    meta = _json(name, data)
    if not isinstance(meta, dict) or not isinstance(meta.get("parameters"), dict):
        raise ModelFileError("the JSON has no 'parameters': download the model from the playground again")
    state = _state_from_meta(meta)
    wanted = state.model.state_dict()
    unexpected = [str(name) for name in meta["parameters"] if name not in wanted]
    if unexpected:  # NOTE: before any is converted (a file may hold 100,000 of them)
        raise ModelFileError(f"the weights do not fit the network: the file has {len(unexpected):,} it does not have "
                             f"({clip_text(', '.join(unexpected[:5]), 120)})")
    _set_parameters(state, {k: _array(v, k) for k, v in meta["parameters"].items()})
    return state


def _json(name: str, data: bytes | str):
    """A model's JSON, its nesting depth checked before it is parsed (a C-speed pass over its brackets)."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as err:
        raise ModelFileError(f"{clip_text(name)} is neither a model's JSON nor its .npz "
                             f"(not UTF-8 text: {err.reason} at byte {err.start})") from None
    depth = nesting_depth(text)
    if depth > MAX_DEPTH:
        raise ModelFileError(f"{clip_text(name)} is neither a model's JSON nor its .npz (its brackets nest "
                             f"{depth:,} deep; a model's nest at most {MAX_DEPTH}; nothing was parsed)")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as err:
        why = clip_text(str(err), 80)
        raise ModelFileError(f"{clip_text(name)} is neither a model's JSON nor its .npz ({why})") from None


_STEPS = np.zeros(256, dtype=np.int8)
_STEPS[[ord("["), ord("{")]] = 1
_STEPS[[ord("]"), ord("}")]] = -1


def nesting_depth(text: str) -> int:
    """How deep a JSON text's brackets nest (those inside strings do not count), in a few vectorised passes.

    NOTE: linear whatever the text: a regular expression for strings backtracked quadratically on an
    unterminated string of escaped quotes (20,000 of them: 16 s)."""
    raw = np.frombuffer(text.encode("utf-8", "replace"), dtype=np.uint8)
    quote = raw == ord('"')
    backslash = raw == ord("\\")
    if backslash.any():  # a quote after an odd run of backslashes is escaped
        at = np.arange(raw.size, dtype=np.int32)
        last_other = np.maximum.accumulate(np.where(backslash, -1, at))  # the last non-backslash up to each place
        run = np.zeros(raw.size, dtype=np.int32)
        run[1:] = at[:-1] - last_other[:-1]  # backslashes just before each place
        quote &= run % 2 == 0
    inside = (np.cumsum(quote, dtype=np.int32) - quote) % 2 == 1  # after an opening quote, to its closing one
    steps = _STEPS[raw]
    steps[inside | quote] = 0
    return int(np.cumsum(steps[steps != 0], dtype=np.int32).max(initial=0))


@dataclass(frozen=True)
class _Member:
    """One array of an .npz as its headers describe it: where its data starts, its dtype and shape."""

    info: zipfile.ZipInfo
    key: str
    dtype: np.dtype
    shape: tuple
    fortran: bool
    offset: int  # bytes of the .npy header before the data

    def describe(self) -> str:
        return f"{clip_text(self.key)} ({self.dtype}, shape {self.shape})"


def _from_npz(data: bytes) -> training.TrainState:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = _members(archive)
    except ModelFileError:
        raise
    except _ZIP_ERRORS as err:
        raise ModelFileError(f"the .npz file cannot be read ({clip_text(str(err), 80)})") from None
    meta = members.pop("meta", None)
    if meta is None:
        raise ModelFileError("the .npz file has no 'meta' entry: download the model from the playground again")
    if meta.dtype.kind != "U" or meta.shape != ():
        raise ModelFileError(f"the .npz file's 'meta' entry is {meta.describe()}, not the model's text")
    state = _state_from_meta(_json("the .npz file's 'meta' entry", str(_read(archive, meta))))
    _check_shapes(state, members)
    arrays = {key: _array(_read(archive, member), key) for key, member in members.items()}
    optimizer = {k: v for k, v in arrays.items() if k.startswith("optimizer.")}
    _set_parameters(state, {k: v for k, v in arrays.items() if k not in optimizer})
    _set_optimizer(state, optimizer)
    return state


def _members(archive: zipfile.ZipFile) -> dict[str, _Member]:
    """Every member of an .npz from the zip's central directory and its .npy header, nothing else unpacked:
    refused when there are too many, when they unpack past the limits, or when a header is not a plain
    array of numbers (object arrays would need pickle) or claims more data than its member holds."""
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        raise ModelFileError(f"the .npz file holds {len(infos):,} arrays; a model's holds at most {MAX_MEMBERS}")
    unpacked = sum(info.file_size for info in infos)
    if unpacked > MAX_UNPACKED_BYTES:
        raise ModelFileError(f"the .npz file unpacks to {unpacked:,} bytes; a model's unpacks to at most "
                             f"{MAX_UNPACKED_BYTES:,} (nothing was unpacked)")
    members = {}
    for info in infos:
        key = info.filename.removesuffix(".npy")
        if info.filename == key or key in members:
            raise ModelFileError(f"the .npz file's entry {clip_text(info.filename)!r} is not one array of a model")
        if info.flag_bits & 1:
            raise ModelFileError(f"the .npz file's entry {clip_text(key)} is encrypted; a model's entries are not")
        if info.file_size > RATIO_FROM and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise ModelFileError(f"the .npz file's entry {clip_text(key)} would unpack {info.file_size:,} bytes from "
                                 f"{info.compress_size:,} (more than {MAX_RATIO} times: a zip bomb?); nothing was "
                                 "unpacked")
        members[key] = _header(archive, info, key)
    return members


def _header(archive: zipfile.ZipFile, info: zipfile.ZipInfo, key: str) -> _Member:
    with archive.open(info) as stream:
        version = np.lib.format.read_magic(stream)
        read = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if read is None:
            raise ModelFileError(f"the .npz file's entry {clip_text(key)} is an .npy of version {version}, not 1 or 2")
        shape, fortran, dtype = read(stream, max_header_size=_HEADER_BYTES)
        offset = stream.tell()
    member = _Member(info, key, dtype, tuple(shape), bool(fortran), offset)
    if dtype.hasobject:
        raise ModelFileError(f"the .npz file's entry {member.describe()} is an array of Python objects: reading "
                             "it would need pickle, which a model file is never read with")
    if dtype.fields is not None or dtype.kind not in _NUMBER_KINDS + "U":
        raise ModelFileError(f"the .npz file's entry {member.describe()} is not an array of numbers")
    nbytes = math.prod(member.shape) * dtype.itemsize
    if offset + nbytes != info.file_size:
        raise ModelFileError(f"the .npz file's entry {member.describe()} claims {nbytes:,} bytes of data but holds "
                             f"{max(info.file_size - offset, 0):,}")
    return member


def _check_shapes(state: training.TrainState, members: dict[str, _Member]) -> None:
    """Each array's header against the network the file's settings build: its weights (names and shapes)
    and its optimiser's state (one parameter's shape, or a step count)."""
    wanted = {name: tuple(p.shape) for name, p in state.model.state_dict().items()}
    params = state.optimizer.params
    for key, member in members.items():
        if key.startswith("optimizer."):
            _, index, slot = (key.split(".", 2) + ["", ""])[:3]
            if not index.isdigit() or int(index) >= len(params) or not slot:
                raise ModelFileError(f"optimiser entry {clip_text(key)} does not fit the network")
            shape = () if slot == "step" else tuple(params[int(index)].data.shape)
        elif key in wanted:
            shape = wanted[key]
        else:
            raise ModelFileError(f"the weights do not fit the network: the .npz file's entry {clip_text(key)} is "
                                 f"not one of its weights ({clip_text(', '.join(wanted), 120)})")
        if member.shape != shape or member.dtype.kind == "U":
            raise ModelFileError(f"the weights do not fit the network: the .npz file's entry {member.describe()} "
                                 f"should be numbers of shape {shape}")
    missing = sorted(set(wanted) - set(members))
    if missing:
        raise ModelFileError(f"the weights do not fit the network: the .npz file has no "
                             f"{clip_text(', '.join(missing), 120)}")


def _read(archive: zipfile.ZipFile, member: _Member) -> np.ndarray:
    """A member's array, read once its header is checked (its size is bounded by then)."""
    try:
        with archive.open(member.info) as stream:
            stream.read(member.offset)
            raw = stream.read(member.info.file_size - member.offset)
    except _ZIP_ERRORS as err:  # a corrupt stream or a wrong CRC shows only once the data is read
        raise ModelFileError(f"the .npz file's entry {clip_text(member.key)} cannot be read "
                             f"({clip_text(str(err), 80)})") from None
    order = "F" if member.fortran else "C"
    return np.frombuffer(raw, dtype=member.dtype).reshape(member.shape, order=order)


def _state_from_meta(meta) -> training.TrainState:
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ModelFileError("this is not a model downloaded from the Training Playground")
    if meta.get("version") != VERSION:
        raise ModelFileError(f"model format version {clip_text(str(meta.get('version')))} is not {VERSION}")
    settings = meta.get("settings")
    if not isinstance(settings, dict):
        raise ModelFileError("the model has no settings")
    task = meta.get("task")
    uploaded = settings.get("dataset") == datasets.UPLOADED
    config, problems = TrainConfig.from_query({k: clip_text(str(v), 200) for k, v in settings.items()},
                                              task=task if uploaded else "")
    if problems:
        raise ModelFileError("the model's settings are not valid: " + "; ".join(problems))
    split = _saved_points(meta.get("data"), config.task) if uploaded else None
    state = training.new_state(config, data=split)
    sizes = meta.get("sizes")
    if sizes != list(state.model.sizes):
        raise ModelFileError(
            f"the model's layer sizes {clip_text(str(sizes))} do not match its settings ({state.model.sizes})"
        )
    step = meta.get("step")
    if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step <= MAX_STEP:
        raise ModelFileError(f"the model's step {clip_text(str(step))} is not a whole number from 0 to {MAX_STEP:,}")
    state.step = step
    state.schedule = _schedule(meta.get("schedule", {}), step)
    state.loaded_at = step
    return state


MAX_STEP = 10**12  # a run's step count (a year of training at 1,000 steps a second is 3e10)


def _rate(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < float("inf")


def _schedule(saved, step: int) -> dict[int, dict[str, float]]:
    """The learning rate and L2 changes a model file records (training.TrainState.schedule)."""
    if not isinstance(saved, dict) or len(saved) > step + 1:
        raise ModelFileError("the model's schedule of learning-rate changes is not valid")
    schedule = {}
    for key, values in saved.items():
        if not (isinstance(key, str) and key.isdigit() and 1 <= int(key) <= step + 1 and isinstance(values, dict)
                and values and set(values) <= {"lr", "l2"}
                and all(_rate(v) for v in values.values())):
            raise ModelFileError(f"the model's schedule entry {clip_text(str(key))} is not valid")
        schedule[int(key)] = {name: float(v) for name, v in values.items()}
    return dict(sorted(schedule.items()))


def _saved_points(data, task: str) -> datasets.Split:
    """The uploaded points a model was trained on, split as they were, checked as an upload's would be:
    at most datasets.MAX_CSV_ROWS points, finite coordinates a rescaling can take, and for classification
    labels that are whole numbers from 0 to MAX_CLASSES − 1 (they pick the network's output)."""
    if not isinstance(data, dict):
        raise ModelFileError("the model was trained on uploaded points, but the file does not hold them")
    keys = ("X_train", "y_train", "X_test", "y_test")
    counts = {key: len(data[key]) if isinstance(data.get(key), list) else None for key in keys}
    if None in counts.values():
        missing = ", ".join(key for key, count in counts.items() if count is None)
        raise ModelFileError(f"the model's saved points have no list of {missing}")
    total = counts["X_train"] + counts["X_test"]
    if total > datasets.MAX_CSV_ROWS or counts["y_train"] + counts["y_test"] > datasets.MAX_CSV_ROWS:
        raise ModelFileError(f"the model holds {max(total, counts['y_train'] + counts['y_test']):,} saved points; "
                             f"at most {datasets.MAX_CSV_ROWS:,} are allowed, as for an upload")
    parts = {key: _array(data[key], f"data.{key}") for key in keys}
    width = 1 if task == "regression" else 2
    X_train, X_test = parts["X_train"], parts["X_test"].reshape(-1, width)
    y_train, y_test = parts["y_train"], parts["y_test"]
    if X_train.ndim != 2 or X_train.shape[1] != width or len(X_train) != len(y_train) or len(X_train) < 2:
        raise ModelFileError("the model's saved points do not have the right shape")
    if len(X_test) != len(y_test) or y_train.ndim != 1 or y_test.ndim != 1:
        raise ModelFileError("the model's saved points do not have the right shape")
    try:
        for column, name in enumerate(datasets.HEADERS[task][:width]):
            datasets.check_scale(np.concatenate([X_train[:, column], X_test[:, column]]), name)
    except datasets.CSVError as err:
        raise ModelFileError(f"the model's saved points: {err}") from None
    if task == "classification":
        labels = np.concatenate([y_train, y_test])
        bad = labels[(labels != np.round(labels)) | (labels < 0) | (labels >= datasets.MAX_CLASSES)]
        if bad.size:
            raise ModelFileError(f"the model's saved labels include {bad[0]:g}; labels are whole numbers from 0 to "
                                 f"{datasets.MAX_CLASSES - 1}")
        y_train, y_test = y_train.astype(np.int64), y_test.astype(np.int64)
    return datasets.Split(X_train, y_train, X_test, y_test)


def _array(value, name: str) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ModelFileError(f"{clip_text(name)} is not an array of numbers") from None
    if not np.isfinite(array).all():
        raise ModelFileError(f"{clip_text(name)} holds NaN or infinite numbers")
    return array


def _set_parameters(state: training.TrainState, arrays: dict[str, np.ndarray]) -> None:
    try:
        state.model.load_state_dict(arrays)
    except (KeyError, ValueError) as err:
        raise ModelFileError(f"the weights do not fit the network: {clip_text(str(err).strip(chr(34)), 200)}") from None
    training.refresh(state)


def _set_optimizer(state: training.TrainState, arrays: dict[str, np.ndarray]) -> None:
    params = state.optimizer.params
    slots: dict[int, dict] = {}
    for key, value in arrays.items():
        _, index, name = key.split(".", 2)
        if not index.isdigit() or int(index) >= len(params):
            raise ModelFileError(f"optimiser entry {clip_text(key)} does not fit the network")
        i = int(index)
        if name == "step":
            if not (value.shape == () and float(value).is_integer() and 0 <= value <= MAX_STEP):
                raise ModelFileError(f"optimiser entry {clip_text(key)} is not a step count from 0 to {MAX_STEP:,}")
            slots.setdefault(i, {})[name] = int(value)
        elif value.shape == params[i].data.shape:
            slots.setdefault(i, {})[name] = value.astype(np.float64)
        else:
            raise ModelFileError(f"optimiser entry {clip_text(key)} has shape {value.shape}, not the weights'")
    state.optimizer.load_state_dict({"state": slots})


# -------------------------------------------------------------------- the script

_OPTIMIZER_CODE = {
    "SGD": "SGD(model.parameters(), lr={lr!r}, weight_decay={l2!r})",
    "momentum": "SGD(model.parameters(), lr={lr!r}, momentum=0.9, weight_decay={l2!r})",
    "Adam": "Adam(model.parameters(), lr={lr!r}, weight_decay={l2!r})",
    "AdamW": "AdamW(model.parameters(), lr={lr!r}, weight_decay={l2!r})",
}
_FEATURE_CODE = {
    "x1²": "Z[:, 0] ** 2", "x2²": "Z[:, 1] ** 2", "x1·x2": "Z[:, 0] * Z[:, 1]",
    "sin x1": "np.sin(Z[:, 0])", "sin x2": "np.sin(Z[:, 1])",
    "x²": "Z[:, 0] ** 2", "x³": "Z[:, 0] ** 3", "sin x": "np.sin(Z[:, 0])",
}
_LOSS_CODE = {
    ("cross-entropy", 1): "F.binary_cross_entropy_with_logits(out, Tensor(y[:, None].astype(np.float64)))",
    ("cross-entropy", 2): "F.cross_entropy(out, y)",
    ("MSE", 1): "F.mse_loss(F.sigmoid(out), Tensor(y[:, None].astype(np.float64)))",
    ("MSE", 2): "F.mse_loss(F.softmax(out, axis=1), Tensor(np.eye(out.shape[1])[y]))",
    ("MSE", 0): "F.mse_loss(out, Tensor(y[:, None]))",
}


def _literal(a: np.ndarray) -> str:
    return np.array2string(np.asarray(a), separator=", ", threshold=np.inf, max_line_width=100, floatmode="unique")


def to_script(state: training.TrainState, steps: int | None = None, filename: str | None = None) -> str:
    """A Python program that trains this run's network from its first step with `autograd`,
    taking the same batches, changing the learning rate and L2 at the steps the run changed them,
    and reaching the same weights as the playground after `steps` steps (the run's current step by
    default). `filename` is the name it is saved under (its docstring says how to run it)."""
    c = state.config
    steps = max(state.step, 1) if steps is None else steps
    filename = filename or f"{file_stem(state)}.py"
    start = {"lr": c.lr, "l2": c.l2, **state.schedule.get(1, {})}
    changes = {k: v for k, v in state.schedule.items() if 1 < k <= steps}
    kind = 0 if state.task == "regression" else (1 if state.n_classes == 2 else 2)
    features = "".join(f", {_FEATURE_CODE[f]}" for f in c.features)
    if kind == 0:
        report = "        print(f'step {step}: train loss {float(loss.data):.4f}')\n"
    else:
        report = (
            "        pred = (out.data[:, 0] > 0) if out.shape[1] == 1 else out.data.argmax(axis=1)\n"
            "        accuracy = (pred == y_train).mean()\n"
            "        print(f'step {step}: train loss {float(loss.data):.4f}, accuracy {accuracy:.1%}')\n"
        )
    y_type = "np.float64" if kind == 0 else "np.int64"
    sizes = "-".join(map(str, state.model.sizes))
    rates = f"learning rate {start['lr']:g}, L2 {start['l2']:g}"
    return f'''"""The Training Playground's run, rebuilt with autograd: {c.dataset}, MLP {sizes} ({c.activation}),
{state.loss_name}, {c.init} initialisation, {c.optimizer} at {rates}, batch size {c.batch_size or "full"}.
{_schedule_note(changes)}
Generated by Autograd Explorer. {RUN_NOTE}
Then: python {filename}
{_same_weights_note(state, steps, changes)}
"""

import numpy as np

from autograd import Tensor
from autograd import functional as F
from autograd.nn import MLP{"" if c.init == catalogue.DEFAULT_INIT else ", Linear, init"}
from autograd.optim import SGD, Adam, AdamW  # noqa: F401 - one of them is used below

STEPS = {steps}
BATCH_SIZE = {c.batch_size}  # 0 = all training points in every step

# The points, split into training and test points as in the playground (raw coordinates).
X_train = np.array({_literal(state.X_train)})
y_train = np.array({_literal(state.y_train)}, dtype={y_type})
X_test = np.array({_literal(state.X_test)}).reshape(-1, {state.X_train.shape[1]})
y_test = np.array({_literal(state.y_test)}, dtype={y_type})

# The network sees the coordinates shifted and scaled{", then extra features" if c.features else ""}.
SHIFT = np.array({_literal(state.shift)})
SCALE = np.array({_literal(state.scale)})


def inputs(X):
    Z = (X - SHIFT) / SCALE
    return np.column_stack([Z{features}])


def loss_fn(out, y):
    return {_LOSS_CODE[(c.loss, kind)]}


model = MLP({list(state.model.sizes)}, activation={c.activation!r}, rng=np.random.default_rng({c.seed}))
{_init_code(c)}opt = {_OPTIMIZER_CODE[c.optimizer].format(lr=start["lr"], l2=start["l2"])}
{_schedule_code(changes)}rng = np.random.default_rng({c.seed + 1})  # the order of the batches
order, cursor = None, 0
for step in range(1, STEPS + 1):
{_schedule_loop(changes)}    n = len(y_train)
    if BATCH_SIZE == 0 or BATCH_SIZE >= n:
        batch = np.arange(n)
    else:  # a new shuffle whenever the rest of the epoch is shorter than a batch
        if order is None or cursor + BATCH_SIZE > n:
            order, cursor = rng.permutation(n), 0
        batch, cursor = order[cursor : cursor + BATCH_SIZE], cursor + BATCH_SIZE
    opt.zero_grad()
    loss = loss_fn(model(Tensor(inputs(X_train[batch]))), y_train[batch])
    loss.backward()
    opt.step()
    if step % 100 == 0 or step == STEPS:
        out = model(Tensor(inputs(X_train)))
        loss = loss_fn(out, y_train)
{report}'''


def _init_code(c) -> str:
    """The first weights drawn again when the run's initialisation is not the MLP's own (PyTorch's default)."""
    if c.init == catalogue.DEFAULT_INIT:
        return ""
    return (f"g = np.random.default_rng({c.seed})  # the first weights: {c.init}\n"
            "for layer in [m for m in model.layers if isinstance(m, Linear)]:\n"
            f"    {catalogue.INITS[c.init].code}\n")


_OPTIMIZER_ATTRIBUTE = {"lr": "lr", "l2": "weight_decay"}  # a schedule's names -> the optimiser's


def _schedule_note(changes: dict[int, dict[str, float]]) -> str:
    """The docstring's line on the run's learning-rate and L2 changes ('' if none)."""
    if not changes:
        return ""
    said = "; ".join(
        ", ".join(f"{'learning rate' if name == 'lr' else 'L2'} {value:g}" for name, value in values.items())
        + f" from step {step}"
        for step, values in changes.items()
    )
    return f"The playground changed them as it trained; SCHEDULE below makes the same changes: {said}.\n"


def _same_weights_note(state: training.TrainState, steps: int, changes: dict) -> str:
    loaded = state.loaded_at
    if loaded is not None and steps > loaded:
        return (
            f"NOTE: the playground loaded this run from a model file at step {loaded} and trained on from there,\n"
            f"with the batches in a new order; this script retraces the run from step 0, so its weights are the\n"
            f"playground's at step {loaded}, and after that step they differ."
        )
    replayed = " and its learning-rate changes" if changes else ""
    return (
        f"It takes the playground's batches in the same order{replayed}, so after {steps} steps it holds the same "
        f"weights."
    )


def _schedule_code(changes: dict[int, dict[str, float]]) -> str:
    if not changes:
        return ""
    entries = ", ".join(
        f"{step}: {{{', '.join(f'{_OPTIMIZER_ATTRIBUTE[name]!r}: {value!r}' for name, value in values.items())}}}"
        for step, values in changes.items()
    )
    why = "# The changes made in the playground while it trained: from that step on, these values."
    return f"{why}\nSCHEDULE = {{{entries}}}\n"


def _schedule_loop(changes: dict[int, dict[str, float]]) -> str:
    if not changes:
        return ""
    return (
        "    for name, value in SCHEDULE.get(step, {}).items():\n"
        "        setattr(opt, name, value)  # e.g. opt.lr = 0.3\n"
    )


def file_stem(state: training.TrainState) -> str:
    """A name for the downloads: playground_two_moons_step920."""
    return f"playground_{state.config.dataset.replace(' ', '_')}_step{state.step}"
