"""Hostile inputs for the app, generated: links from each page's parameters (explorer/links.py, the Playground's
settings table) crossed with bad values, and model files crafted byte by byte (forged .npy headers, zip bombs,
truncated zips, pickled object arrays, nonsense points). Used by tests/pages/test_hostile.py, tests/browser and
benchmarks/load.py's uploads scenario.

    links("stepper")   -> [(name, {param: value or [values]}), ...]
    files()            -> [(name, bytes, what the message must say), ...]
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
from functools import cache

import numpy as np

from explorer.depth_lab import lab
from explorer.playground import datasets, model_files, training
from explorer.playground.settings import LINK_PARAMS, SETTINGS, TrainConfig
from explorer.program import link
from explorer.race import setup as race_setup

# ----------------------------------------------------------------------------- links

MICROGRAD = "a = -4.0\nb = 2.0\ny = (a * b + b ** 3).relu()"  # the link: poke a and b
#: The parameters each page reads from its link, as each room declares them.
PARAMS = {**link.PAGE_PARAMS, "playground": LINK_PARAMS, "optimiser_race": race_setup.LINK_PARAMS,
          "depth_lab": lab.LINK_PARAMS}
ARRAYS = "W = randn(3, 2)\nx = tensor([1.0, 2.0])\ny = (W @ x).tanh().sum()"  # W and x are scales

#: Values nobody's widget sends: huge, negative, non-finite, fractional, wrong type, empty, long, odd bytes.
ATOMS = {
    "huge": "1e308", "-huge": "-1e308", "overflow": "1e400", "digits": "9" * 40, "negative": "-1",
    "nan": "nan", "inf": "inf", "-inf": "-inf", "fraction": "2.5", "word": "abc", "list": "[1, 2]",
    "bool": "true", "empty": "", "space": "   ", "long": "7" * 5000, "nul": "1\x00", "unicode": "١٢٣",
}


def _poke_values(slider: str, scale: bool, atoms: tuple = tuple(ATOMS)) -> dict[str, str]:
    mark = "*" if scale else ""
    out = {f"poke {slider}{mark}={atom}": f"{slider}{mark}={ATOMS[atom]}" for atom in atoms}
    out[f"poke {slider} wrong kind"] = f"{slider}{'' if scale else '*'}=1.5"
    out[f"poke {slider} twice"] = f"{slider}{mark}=1,{slider}{mark}=2"
    out["poke unknown"] = "zz=1"
    out["poke no value"] = slider
    out["poke 1000 parts"] = ",".join(f"q{i}=1" for i in range(1000))
    return out


def links(page: str) -> list[tuple[str, dict]]:
    """Hostile links for ``page`` (a key of PARAMS): each of its parameters with each bad value, and each given
    twice."""
    cases: list[tuple[str, dict]] = []
    params = PARAMS[page]
    if page in ("explorer", "stepper"):
        cases.append(("the issue's link", {"program": MICROGRAD, "poke": "a=1e308"}))
        cases.append(("the issue's link, both", {"program": MICROGRAD, "poke": "a=-1e308,b=1e308"}))
        cases.append(("the issue's link, reversed", {"program": MICROGRAD, "poke": "a=1e308,b=-1e308"}))
        for name, value in _poke_values("a", scale=False).items():
            cases.append((name, {"program": MICROGRAD, "poke": value}))
        for name, value in _poke_values("W", scale=True, atoms=("huge", "-inf", "word", "empty")).items():
            cases.append((name + " (array)", {"program": ARRAYS, "poke": value}))
        for atom, value in ATOMS.items():
            cases.append((f"program={atom}", {"program": value}))
        cases.append(("program too long", {"program": "x = 1.0\n" * 2000}))
        for atom, value in ATOMS.items():  # forward mode's link: the mode, and the direction v in its grammar
            cases.append((f"mode={atom}", {"program": MICROGRAD, "mode": value}))
            cases.append((f"v={atom}", {"program": MICROGRAD, "mode": "forward", "v": value}))
            cases.append((f"v=element:a:{atom}", {"program": ARRAYS, "mode": "forward", "v": f"element:W:{value}"}))
        cases.append(("v names no input", {"program": MICROGRAD, "mode": "forward", "v": "input:zz"}))
        cases.append(("v past the end", {"program": ARRAYS, "mode": "forward", "v": "element:W:6"}))
        cases.append(("program nested", {"program": "y = " + "(" * 500 + "1.0" + ")" * 500}))
    if page == "stepper":
        for atom, value in ATOMS.items():
            cases.append((f"step={atom}", {"program": MICROGRAD, "step": value}))
        cases.append(("step past the end", {"program": MICROGRAD, "step": "99"}))
    if page == "playground":
        # NOTE: every setting gets a bad value in one link per atom (13 settings × 17 atoms in 17 runs)
        for atom, value in ATOMS.items():
            cases.append((f"every setting={atom}", {s.name: value for s in SETTINGS}))
        cases.append(("run id huge", {"run": "x" * 5000}))
        cases.append(("run id odd", {"run": "../../etc/passwd\x00"}))
    if page == "optimiser_race":  # every setting at once, and the plane and start on the learner's own program
        for atom, value in ATOMS.items():
            cases.append((f"every setting={atom}", {name: value for name in race_setup.QUERY_KEYS}))
            cases.append((f"own plane, start={atom}", {"surface": "program", "program": MICROGRAD, "plane": value,
                                                       "start": value}))
    if page == "depth_lab":
        for atom, value in ATOMS.items():
            cases.append((f"every setting={atom}", {name: value for name in lab.LINK_PARAMS}))
    for name in params if page != "playground" else ("dataset", "n", "run"):
        good = {"program": MICROGRAD, "poke": "a=1", "step": "1", "run": "abc", "mode": "forward",
                "v": "input:a"}.get(name, "1")
        program = {"program": MICROGRAD} if page in link.PAGE_PARAMS else {}
        cases.append((f"{name} twice", {**program, name: [good, good + "0"]}))
    return cases


def race_link_is_refused_or_moved(params: dict) -> bool:
    """True when the race's settings rows do not take ``params`` as they are (its link then must say so)."""
    return bool(race_setup.setup_from_query(params)[1])


def lab_link_is_refused_or_moved(params: dict) -> bool:
    """True when the depth lab's settings rows do not take ``params`` as they are."""
    return bool(lab.LabConfig.from_query(params)[1])


def setting_is_refused_or_moved(name: str, text: str) -> bool:
    """True when the Playground's settings table does not take ``text`` for setting ``name`` as it is
    (its link then must say so): the oracle of the playground links, from the table itself."""
    _, problems = TrainConfig.from_query({name: text})
    return bool(problems)


# ----------------------------------------------------------------------------- model files


@cache
def _state():
    state = training.new_state(TrainConfig(optimizer="Adam", hidden=(6, 5)))
    training.step(state, 3)
    return state


@cache
def _uploaded_state():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 2)), np.arange(40) % 2
    return training.new_state(TrainConfig(dataset=datasets.UPLOADED, task="classification", hidden=(4,)), data=(X, y))


def good_npz() -> bytes:
    return model_files.to_npz(_state())


def good_json() -> bytes:
    return model_files.to_json(_state()).encode()


def npy_header(shape: tuple, descr: str = "<f8", version: tuple = (1, 0), fortran: bool = False) -> bytes:
    """An .npy file's magic and header, written by hand (so it can claim anything)."""
    header = repr({"descr": descr, "fortran_order": fortran, "shape": shape}).encode("latin1")
    width = 2 if version == (1, 0) else 4
    pad = 64 - (10 + width - 6 + len(header) + 1) % 64
    header += b" " * (pad % 64) + b"\n"
    size = struct.pack("<H" if width == 2 else "<I", len(header))
    return b"\x93NUMPY" + bytes(version) + size + header


def npz_with(members: dict[str, bytes], *, compress: bool = True, base: bool = True) -> bytes:
    """A zip of .npy members: the good model's (``base``), with ``members`` added or replaced."""
    arrays: dict[str, bytes] = {}
    if base:
        with zipfile.ZipFile(io.BytesIO(good_npz())) as archive:
            arrays = {info.filename: archive.read(info) for info in archive.infolist()}
    arrays.update(members)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED) as archive:
        for name, data in arrays.items():
            archive.writestr(name, data)
    return out.getvalue()


def bomb_member(name: str, unpacked: int) -> bytes:
    """A zip with one member of ``unpacked`` zero bytes after an honest .npy header, deflated (~1/1000)."""
    out = io.BytesIO()
    header = npy_header((unpacked // 8,))
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive, archive.open(name, "w", force_zip64=True) as f:
        f.write(header)
        chunk = bytes(1 << 20)
        left = unpacked
        while left:
            f.write(chunk[: min(left, len(chunk))])
            left -= min(left, len(chunk))
    return out.getvalue()


def bomb_with_meta(unpacked: int) -> bytes:
    with zipfile.ZipFile(io.BytesIO(good_npz())) as archive:
        meta = archive.read("meta.npy")
    with zipfile.ZipFile(io.BytesIO(bomb_member("layers.0.weight.npy", unpacked))) as archive:
        bomb = archive.read("layers.0.weight.npy") if unpacked <= 64 << 20 else None
    if bomb is not None:
        return npz_with({"layers.0.weight.npy": bomb})
    # NOTE: too large to hold unpacked here: append the meta to the bomb's zip instead
    out = io.BytesIO(bomb_member("layers.0.weight.npy", unpacked))
    with zipfile.ZipFile(out, "a", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("meta.npy", meta)
    return out.getvalue()


def forged_size(claimed: int) -> bytes:
    """A good model whose first weight's zip entry claims ``claimed`` unpacked bytes in its local and central
    headers (the data is the honest, small one)."""
    data = bytearray(npz_with({}, compress=False))
    name = b"layers.0.weight.npy"
    local = data.index(b"PK\x03\x04")  # first local header
    while data[local + 30: local + 30 + len(name)] != name:
        local = data.index(b"PK\x03\x04", local + 4)
    struct.pack_into("<I", data, local + 22, claimed & 0xFFFFFFFF)
    central = data.index(b"PK\x01\x02")
    while data[central + 46: central + 46 + len(name)] != name:
        central = data.index(b"PK\x01\x02", central + 4)
    struct.pack_into("<I", data, central + 24, claimed & 0xFFFFFFFF)
    return bytes(data)


def damaged(part: str, flag: int = 0, garble: bool = False) -> bytes:
    """The good model with the zip entry ``part`` damaged: a general-purpose ``flag`` set in its local and
    central headers (1: encrypted), or the second half of its deflated bytes zeroed (the stream or its CRC
    then fails, once read past the .npy header)."""
    data = bytearray(good_npz())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        info = archive.getinfo(part)
    local = info.header_offset
    data[local + 6] |= flag
    central = data.index(b"PK\x01\x02")
    while data[central + 46: central + 46 + len(part)] != part.encode():
        central = data.index(b"PK\x01\x02", central + 4)
    data[central + 8] |= flag
    if garble:
        name_length, extra_length = struct.unpack_from("<HH", data, local + 26)
        start = local + 30 + name_length + extra_length
        half = info.compress_size // 2
        data[start + half: start + info.compress_size] = bytes(info.compress_size - half)
    return bytes(data)


def pickled_object_array() -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"a": 1}, print], dtype=object), allow_pickle=True)
    return npz_with({"layers.0.weight.npy": buffer.getvalue()})


def many_members(n: int) -> bytes:
    return npz_with({f"extra{i}.npy": npy_header((0,)) for i in range(n)}, base=True)


def json_model(change) -> bytes:
    """The uploaded-points model as JSON, ``change(meta)`` applied."""
    meta = json.loads(model_files.to_json(_uploaded_state()))
    change(meta)
    return json.dumps(meta).encode()


def _labels(values):
    def change(meta):
        data = meta["data"]
        n = len(values)
        data["y_train"], data["X_train"] = list(values), [[float(i), float(i % 7)] for i in range(n)]
    return change


def _set(path: tuple, value):
    def change(meta):
        node = meta
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


def files() -> list[tuple[str, bytes, str]]:
    """Hostile model files: (file name, its bytes, a piece of the message the page must show)."""
    meta_dict = json.loads(model_files.to_json(_state()))
    too_big = model_files.MAX_FILE_BYTES
    truncated = good_npz()
    return [
        # the forged header: 4 KB claiming a 7.28 TiB array
        ("forged-shape.npz", npz_with({"layers.0.weight.npy": npy_header((1_000_000_000_000,)) + bytes(64)}),
         "claims 8,000,000,000,000 bytes"),
        ("forged-shape-negative.npz", npz_with({"layers.0.weight.npy": npy_header((-1, 2)) + bytes(64)}), ""),
        ("forged-dims.npz", npz_with({"layers.0.weight.npy": npy_header((2,) * 40)}), ""),
        ("forged-header-size.npz", npz_with({"layers.0.weight.npy": b"\x93NUMPY\x01\x00\xff\xff" + b"{" * 70000},
                                           compress=False),
         "cannot be read"),
        ("forged-version.npz", npz_with({"layers.0.weight.npy": npy_header((6, 2), version=(3, 0)) + bytes(96)}),
         "version"),
        ("forged-zip-size.npz", forged_size(3_000_000_000), "unpacks to"),
        ("zip-bomb.npz", bomb_with_meta(400 << 20), "unpacks to"),
        ("zip-bomb-no-meta.npz", bomb_member("layers.0.weight.npy", 400 << 20), "unpacks to"),
        ("zip-bomb-small.npz", bomb_with_meta(6 << 20), "zip bomb"),
        ("truncated.npz", truncated[: len(truncated) // 2], "cannot be read"),
        ("not-a-zip.npz", b"PK\x03\x04" + bytes(200), "cannot be read"),
        ("encrypted-entry.npz", damaged("layers.0.weight.npy", flag=1), "is encrypted"),
        ("garbled-entry.npz", damaged("meta.npy", garble=True), "cannot be read"),
        ("pickled-object-array.npz", pickled_object_array(), "never read with"),
        ("structured-dtype.npz", npz_with({"layers.0.weight.npy": npy_header((6, 2), descr=[("a", "<f8")])
                                           + bytes(96)}), "not an array of numbers"),
        ("wrong-shape.npz", npz_with({"layers.0.weight.npy": npy_header((2, 2)) + bytes(32)}),
         "do not fit the network"),
        ("stray-entry.npz", npz_with({"evil.npy": npy_header((3,)) + bytes(24)}), "do not fit the network"),
        ("not-npy-entry.npz", npz_with({"readme.txt": b"hello"}), "not one array"),
        ("many-entries.npz", many_members(2000), "holds 2,"),
        ("meta-is-numbers.npz", npz_with({"meta.npy": npy_header((3,)) + bytes(24)}), "not the model's text"),
        ("no-meta.npz", npz_with({"layers.0.weight.npy": npy_header((6, 2)) + bytes(96)}, base=False), "no 'meta'"),
        ("nan-weights.npz", npz_with({"layers.0.bias.npy": npy_header((6,)) + np.full(6, np.nan).tobytes()}),
         "NaN or infinite"),
        ("optimizer-step-huge.npz", npz_with({"optimizer.0.step.npy": npy_header((), "<f8") +
                                              np.float64(1e300).tobytes()}), "step count"),
        ("too-big.json", b" " * (too_big + 1), f"at most {too_big:,}"),
        ("deep.json", b"[" * 100_000 + b"]" * 100_000, "nest"),
        ("escaped-quotes.json", b'"' + b'\\"' * 1_300_000, "neither a model's JSON"),  # a regex's worst case
        ("not-utf8.json", b"\xff\xfe{}", "not UTF-8"),
        ("labels-200000.json", json_model(_labels([0, 1] * 100_000)), "at most 5,000"),
        ("labels-negative.json", json_model(_labels([-1, 1] * 20)), "labels include -1"),
        ("labels-fractional.json", json_model(_labels([0.5, 1] * 20)), "labels include 0.5"),
        ("labels-huge.json", json_model(_labels([0, 1e9] * 20)), "labels include 1e+09"),
        ("labels-strings.json", json_model(_labels(["a", "b"] * 20)), "not an array of numbers"),
        ("coordinates-1e308.json", json_model(_set(("data", "X_train", 0), [1e308, 1e308])), "values reach"),
        ("coordinates-nan.json", json_model(_set(("data", "X_train", 0), [float("nan"), 0.0])), "NaN or infinite"),
        ("points-ragged.json", json_model(_set(("data", "X_train", 0), [1.0])), "not an array of numbers"),
        ("points-missing.json", json_model(_set(("data", "y_test"), 3)), "no list of y_test"),
        ("step-negative.json", json.dumps({**meta_dict, "step": -1}).encode(), "step -1"),
        ("step-float.json", json.dumps({**meta_dict, "step": 1e308}).encode(), "step 1e+308"),
        ("step-bool.json", json.dumps({**meta_dict, "step": True}).encode(), "step True"),
        ("settings-huge.json", json.dumps({**meta_dict, "settings": {**meta_dict["settings"], "n": "1e308",
                                                                     "hidden": "9" * 5000}}).encode(),
         "settings are not valid"),
        ("sizes-huge.json", json.dumps({**meta_dict, "sizes": [2, 10**9, 1]}).encode(), "layer sizes"),
        ("weights-ragged.json", json.dumps({**meta_dict, "parameters": {"layers.0.weight": [[1.0], [1.0, 2.0]]}})
         .encode(), "not an array of numbers"),
        ("weights-huge-number.json", json.dumps({**meta_dict, "parameters": {"layers.0.weight": 10**400}}).encode(),
         "not an array of numbers"),
        ("parameters-100000.json", json.dumps({**meta_dict, "parameters": {f"w{i}": [1.0] for i in range(100_000)}})
         .encode(), "the file has 100,000 it does not have"),
        ("parameters-list.json", json.dumps({**meta_dict, "parameters": [1, 2]}).encode(), "no 'parameters'"),
        ("a-number.json", b"0", "no 'parameters'"),
    ]
