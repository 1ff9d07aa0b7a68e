"""A class in the run store: the teacher's code and key, who joined, what the teacher posted, each learner's work.

Everything lives in the run store's shared records (server/run_store: ``put``, ``records``, ``count_up``), never in
one process's memory, so a class works behind the balancer, across machines, and outlives any process:
- ``classes``: code -> the class (name, when it ends, the hash of the teacher's key); the bound on classes;
- ``class:<code>:post``: what the teacher posted (one record, "now");
- ``class:<code>:learners``: learner -> display name, when they joined and were last seen;
- ``class:<code>:work``: learner -> their latest answers and each one's verdict (a practice exercise);
- ``class:<code>:runs``: learner -> their challenge run's figures (test accuracy, parameters, steps, loss curve);
- ``tries``: who -> failed tries of a code or a key in the last minute.
Every record ends with its class. A learner is a key of the browser (explorer/keys: the learner), never a name:
names are what the teacher sees, and two learners may not take the same one in a class.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import unicodedata
from dataclasses import asdict, dataclass, field

from server.run_store import QUEUED, SAVED, RunStore, StoreDown
from server.run_store.base import RECORD_BYTES

DAY = 24 * 3600.0
LONGEST_DAYS = 7.0  # a class lasts a day by default, a week at most
MAX_CLASSES = 500  # at once, in one store
MAX_LEARNERS = 300  # in one class
MAX_TRIES = 10  # failed tries of a code or a key a minute, by one learner, before they wait
TRY_WINDOW = 60.0
NAME_CHARS = 40
CODE = re.compile(r"^[A-Za-z0-9_-]{12}$")  # 9 random bytes: 72 bits
KEY = re.compile(r"^[A-Za-z0-9_-]{24}$")  # 18 random bytes: 144 bits


class ClassRefused(Exception):
    """What the learner or teacher asked cannot be done; ``str()`` says why, in words the page shows."""


@dataclass(frozen=True)
class NewClass:
    """A class just opened: its learners' code and its teacher's key (shown once: only its hash is kept)."""

    code: str
    key: str
    name: str
    ends: float


@dataclass(frozen=True)
class ClassInfo:
    code: str
    name: str
    created: float
    ends: float
    key_hash: str


@dataclass(frozen=True)
class Learner:
    learner: str
    name: str
    joined: float
    seen: float


@dataclass(frozen=True)
class Post:
    """What the teacher posted: a practice exercise (its program), a Playground challenge (a data set and a
    target) or a program to explore."""

    kind: str  # "practice" | "challenge" | "program"
    title: str
    program: str = ""
    settings: dict = field(default_factory=dict)  # a challenge's Playground settings, by name
    target: str = ""  # a challenge's goal, in words
    posted: float = 0.0


KINDS = ("practice", "challenge", "program")


# ---------------------------------------------------------------------------------------------- codes and keys
def new_code() -> str:
    return secrets.token_urlsafe(9)


def new_key() -> str:
    return secrets.token_urlsafe(18)


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _dump(value) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _load(blob: bytes):
    return json.loads(blob.decode())


def display_name(text: str) -> str:
    """A learner's display name as typed, made safe to show: printable, one line, at most NAME_CHARS; ClassRefused
    when nothing is left."""
    text = unicodedata.normalize("NFC", str(text))
    kept = "".join(ch for ch in text if unicodedata.category(ch)[0] not in "C")
    kept = " ".join(kept.split())[:NAME_CHARS].strip()
    if not kept:
        raise ClassRefused("type a name to show the teacher (a pseudonym is fine)")
    return kept


def _same_name(a: str, b: str) -> bool:
    return a.casefold() == b.casefold()


# ---------------------------------------------------------------------------------------------- the teacher
def open_class(store: RunStore, name: str, *, days: float = 1.0) -> NewClass:
    """A new class named ``name``, ending after ``days`` (at most LONGEST_DAYS). StoreDown if the store cannot be
    written; ClassRefused at the bound on classes."""
    name = display_name(name)
    if not 0 < days <= LONGEST_DAYS:
        raise ClassRefused(f"a class lasts from an hour to {LONGEST_DAYS:g} days, not {days:g}")
    now = store.clock()
    if len(store.records("classes")) >= MAX_CLASSES:
        raise ClassRefused(f"this server keeps at most {MAX_CLASSES} classes at once; try again when one has ended")
    code, key, ends = new_code(), new_key(), now + days * DAY
    info = {"name": name, "created": now, "ends": ends, "key_hash": _hash(key)}
    if store.put("classes", code, _dump(info), expires_at=ends) not in (SAVED,):
        raise StoreDown(store.problem or "the run store cannot be written just now")
    return NewClass(code, key, name, ends)


def find(store: RunStore, code: str, who: str) -> ClassInfo:
    """The class under ``code``; ClassRefused (a mistyped, ended or guessed code, or too many tries by ``who``)."""
    _not_too_many(store, who)
    info = None
    if isinstance(code, str) and CODE.match(code):
        blob = store.record("classes", code)
        info = None if blob is None else _load(blob)
    if info is None:
        _tried(store, who)
        raise ClassRefused("no class has this code: it may be mistyped, or the class has ended")
    return ClassInfo(code, info["name"], info["created"], info["ends"], info["key_hash"])


def as_teacher(store: RunStore, code: str, key: str, who: str) -> ClassInfo:
    """The class, if ``key`` is its teacher's; ClassRefused otherwise (each wrong key counts as a try)."""
    info = find(store, code, who)
    if not (isinstance(key, str) and KEY.match(key) and hmac.compare_digest(_hash(key), info.key_hash)):
        _tried(store, who)
        raise ClassRefused("this is not the teacher's key of this class: the dashboard and posting need it")
    return info


def post(store: RunStore, info: ClassInfo, what: Post) -> str:
    """Puts ``what`` before the class (replacing what was posted): SAVED or KEPT."""
    if what.kind not in KINDS:
        raise ClassRefused(f"a class can be given {', '.join(KINDS)}, not {what.kind!r}")
    record = asdict(what) | {"posted": store.clock()}
    return store.put(f"class:{info.code}:post", "now", _dump(record), expires_at=info.ends)


def posted(store: RunStore, info: ClassInfo) -> Post | None:
    blob = store.record(f"class:{info.code}:post", "now")
    return None if blob is None else Post(**_load(blob))


# ---------------------------------------------------------------------------------------------- the learners
def join(store: RunStore, info: ClassInfo, learner: str, name: str) -> Learner:
    """``learner`` joins under ``name`` (again: a new name replaces the old one). ClassRefused at the bound, or when
    another learner of the class has the name."""
    name = display_name(name)
    table = f"class:{info.code}:learners"
    everyone = {key: _load(blob) for key, blob in store.records(table).items()}
    for other, record in everyone.items():
        if other != learner and _same_name(record["name"], name):
            raise ClassRefused(f"someone in this class is already called {name!r}: pick another name")
    if learner not in everyone and len(everyone) >= MAX_LEARNERS:
        raise ClassRefused(f"this class is full: at most {MAX_LEARNERS} learners")
    now = store.clock()
    joined = everyone.get(learner, {}).get("joined", now)
    store.put(table, learner, _dump({"name": name, "joined": joined, "seen": now}), expires_at=info.ends)
    return Learner(learner, name, joined, now)


def member(store: RunStore, info: ClassInfo, learner: str) -> Learner | None:
    blob = store.record(f"class:{info.code}:learners", learner)
    if blob is None:
        return None
    record = _load(blob)
    return Learner(learner, record["name"], record["joined"], record["seen"])


def learners(store: RunStore, info: ClassInfo, *handed: dict[str, dict]) -> list[Learner]:
    """Who joined, first first; each seen last when they joined or last handed something in (``handed``: the class's
    work and runs as work_of gives them, read here if not given)."""
    if not handed:
        handed = (work_of(store, info, "work"), work_of(store, info, "runs"))
    found = []
    for key, blob in store.records(f"class:{info.code}:learners").items():
        record = _load(blob)
        seen = max([record["seen"], *(float((h.get(key) or {}).get("at", 0.0)) for h in handed)])
        found.append(Learner(key, record["name"], record["joined"], seen))
    return sorted(found, key=lambda one: (one.joined, one.name))


def hand_in(store: RunStore, info: ClassInfo, learner: str, work: dict, *, joined: Learner | None = None,
            version: int | None = None) -> str:
    """Keeps the learner's latest practice work: ``{"rows": {tensor: {"verdict", "maxdiff", "answer", "hints"}}}``
    (the Practice page's check, as it says it). QUEUED: it waits in this process for the store's writer (written
    within a moment, or once the store answers again: nothing is lost). ClassRefused if the learner has not
    joined, or the class has ended. ``joined``: the learner as the page found them before (their membership is not
    read again, so a hand-in needs no read of the store: it is kept here while the store is down). ``version``
    (next_version): the store keeps the hand-in only if no newer one of the learner's is there, whichever process
    wrote or replays it; None: always kept."""
    return _learner_record(store, info, learner, "work", work, joined, version)


def next_version(last: int | None, sent_ms=None) -> int:
    """The version of a learner's next hand-in: microseconds of the learner's browser clock when it sent the text
    handed in (``sent_ms``, Date.now() in the browser), and past ``last``, the session's previous one (a hand-in of no
    new text, a hint's or the whole backward's, counts just after it). The browser's is the one clock every hand-in of
    the learner is read from, whichever process or machine takes it, so the servers' clocks may differ. A stamp that
    is not a time (not a finite number from 0 to the year 2100) counts as none."""
    try:
        stamp = float(sent_ms)
    except (TypeError, ValueError):
        stamp = 0.0
    stamp = int(stamp * 1000) if 0 <= stamp < LATEST_STAMP_MS else 0
    return max(stamp, int(last or 0) + 1)


LATEST_STAMP_MS = 4_102_444_800_000.0  # 2100-01-01 in ms since the epoch: a browser's stamp is below it


def handed_version(store: RunStore, info: ClassInfo, learner: str) -> int:
    """The version of the learner's hand-in the store has (0 if none): a session starts its versions after it."""
    blob = store.record(f"class:{info.code}:work", learner)
    try:
        return int(_load(blob).get("v") or 0) if blob is not None else 0
    except (ValueError, TypeError, AttributeError):
        return 0


def hand_in_run(store: RunStore, info: ClassInfo, learner: str, run: dict) -> str:
    """Keeps the learner's challenge run: ``{"test_accuracy", "parameters", "steps", "curve": [losses]}``."""
    return _learner_record(store, info, learner, "runs", run)


def _learner_record(store: RunStore, info: ClassInfo, learner: str, table: str, value: dict,
                    joined: Learner | None = None, version: int | None = None) -> str:
    you = joined if joined is not None and joined.learner == learner else member(store, info, learner)
    if you is None:
        raise ClassRefused("join the class first: pick a name to show the teacher")
    if info.ends <= store.clock():
        raise ClassRefused("this class has ended")
    # NOTE: one record per hand-in, handed over to the process's writer (the store's writes are what a class waits
    # on: it writes everyone's in one step); the work's time says when the learner was last seen (see learners()),
    # its version ("v") where a new session of the learner starts its own (handed_version).
    record = value | {"at": store.clock()} | ({} if version is None else {"v": int(version)})
    done = store.hand_over(f"class:{info.code}:{table}", learner, _dump(record), expires_at=info.ends,
                           version=version)
    if done != QUEUED:
        raise ClassRefused(f"this is more than a class keeps for one learner ({RECORD_BYTES // 1000} KB)")
    return done


def work_of(store: RunStore, info: ClassInfo, table: str = "work") -> dict[str, dict]:
    """Every learner's latest work (``table`` "work") or run ("runs"), by learner."""
    return {key: _load(blob) for key, blob in store.records(f"class:{info.code}:{table}").items()}


# ---------------------------------------------------------------------------------------------- tries
def _not_too_many(store: RunStore, who: str) -> None:
    count = int(store.record("tries", who) or b"0")
    if count >= MAX_TRIES:
        raise ClassRefused(f"{MAX_TRIES} wrong codes or keys in a minute: wait a minute before trying again")


def _tried(store: RunStore, who: str) -> None:
    store.count_up("tries", who, expires_at=store.clock() + TRY_WINDOW)
