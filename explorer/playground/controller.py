"""The Training Playground's controller: one run, Play / Pause / Step / Reset, paced by a clock.

No Streamlit here. The page keeps one `Playground` per session, hands it the settings the
widgets hold, calls `tick()` from its live fragment while playing, and shows `view_data()` in the
live view. The clock is injectable, so tests step time by hand instead of sleeping.

Pacing: `config.speed` is training steps per second of wall clock. Each tick (every TICK_SECONDS while
playing) trains the steps that are due since the last one (never more than CATCH_UP_SECONDS' worth, and
within a compute budget) and keeps a frame every `steps_per_frame` steps: every step up to DISPLAY_RATE
steps/s, past it every j-th (the painted one the latest of its j), so that at most DISPLAY_RATE frames a
second are sent. The live view queues a message's frames and paints one per animation frame
(components/frontend/live_view/static/pacing.js), so the picture rate does not depend on the tick rate;
at SLOW_MOTION steps/s or fewer the fragment runs once per step.

Pause lands on the step on screen: the browser paints up to a tick behind the run, so the run keeps a
checkpoint of every frame it sent (`training.Checkpoint`, within JOURNAL_BYTES); after Pause the view
reports the step it shows and `settle` takes the run back to it exactly (weights, optimiser state,
batches, curves, replay): the model, its files and Step go on from the picture the learner paused on.
"""

from __future__ import annotations

import base64
import logging
import math
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from explorer.numbers import json_number, json_numbers
from explorer.playground import datasets, keys, model_files, step_graph, training
from explorer.playground import snapshot as run_snapshot
from explorer.playground.settings import SLOW_MOTION, TrainConfig, changed_settings
from server.run_store import KEPT, MB, TAKEN, TOO_BIG, RunStore, StoreDown, new_run_id, runs

# NOTE: each tick is a fragment rerun, which costs the server more than the tick's own work (Streamlit's run of the
# fragment and its 6 messages: about as much as training 25 steps); the browser paints the frames from its queue
# at display rate whatever the tick, so one tick a second costs the server less than two, for the same pictures.
TICK_SECONDS = 1.0  # the live fragment's period while playing (faster than slow motion): 1 message a second
BIG_TICK_SECONDS = 0.4  # ... for networks whose frames are big (over FRAME_PAYLOAD bytes): one frame a message
DISPLAY_RATE = 60  # frames per second sent at most: the display's rate (a faster speed keeps every j-th step)
FRAME_PAYLOAD = 60_000  # bytes of weights per 0.2 s at most: big networks send fewer frames
JOURNAL_BYTES = 4_000_000  # checkpoints of the frames sent, kept for Pause (see `settle`)
JOURNAL_FRAMES = 4 * DISPLAY_RATE  # ... and at most this many (4 s of the fastest frames)
EXACT_PARAMS = 20_000  # up to this many parameters frames carry float64 (exact), above float32
TRAIN_BUDGET = 0.6  # share of a tick's period that training may take
CATCH_UP_SECONDS = 2.0  # after a stall (or a late tick), at most this much wall clock's worth of steps is made up
HISTORY_EVERY = 5.0  # seconds between full curve histories while playing (the view adds the frames it paints)
SAVE_EVERY = 1.0  # seconds between snapshots in the run store while playing (every action saves at once)
# NOTE: a tick a second finds a hair less than SAVE_EVERY since the last save (the browser's timer, the save's own
# milliseconds): without this slack the server saved every other tick, every 2 s.
SAVE_SLACK = 0.1
RETRY_EVERY = 2.0  # seconds between a page's tries while the run store fails (the store backs off on its own)
# NOTE: a page that comes back playing (a reload mid-Play) gets its full message and the fragment's first
# frames at once; the browser renders only the last of updates that arrive together, so the layout is resent
# for most of a second after a full run (4 KB a message at the defaults) instead of hanging on the view's one "need".
MODEL_RESEND = 0.9  # seconds after a full run during which every message carries the layout and points
DIGITS = 4  # significant digits of the numbers the live view draws (curves, points)
GRAPH_TEXTS_KEPT = 128  # step graphs' texts kept per session (by step: a frame resent, or replayed, is not redone)
# NOTE: json.dumps (as Streamlit sends a component's data) writes every non-ASCII character as a 6-byte
# escape, and the step graph's texts are mostly sparkline blocks: in a frame they travel as ASCII stand-ins
# (none of which explorer.graph.dot ever writes), which live_view.js puts back: 3.3 -> 2.2 KiB a frame at the defaults.
GLYPHS = "▁▂▃▄▅▆▇█…"
GRAPH_PANEL_CLASS = f"st-key-{keys.GRAPH_PANEL}"  # the step graph's container: the view watches it come on screen
STAND_INS = "!#$%&*;?~"
_TO_ASCII = str.maketrans(GLYPHS, STAND_INS)


@dataclass
class Upload:
    """Points from a CSV file, for the "uploaded CSV" data set."""

    name: str
    task: str
    X: np.ndarray
    y: np.ndarray
    token: str


class Playground:
    """A session's run and what Play, Step, Reset and the settings do to it."""

    def __init__(
        self,
        config: TrainConfig | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        store: RunStore | None = None,
        run_id: str | None = None,
        state: training.TrainState | None = None,
        upload: Upload | None = None,
        user: str = "",
        holder: str | None = None,
        waiting_for: str | None = None,
    ):
        self.clock = clock
        self.store = store if store is not None else runs()
        self.run_id = run_id or new_run_id()
        self.user = user  # the learner (a key of their browser): their share of the store
        self.holder = holder or secrets.token_hex(8)  # this page's hold on the run in the store
        self.upload = upload
        self.state = state if state is not None else training.new_state(config or TrainConfig(), self._data(config))
        self.playing = False
        self.wall_rate = 0.0  # steps per second of wall clock while playing
        self.generation = 0  # bumped for every new run: the live view starts afresh
        self.seq = 0  # bumped for every view_data: lets the browser tell messages apart
        self._last_tick = 0.0
        self._carry = 0.0  # fractional steps due
        self._history_sent = -math.inf
        self._saved = -math.inf
        self._reuse = run_snapshot.Reuse()  # what one save encoded that the next takes as it is
        self._model_until = -math.inf  # the layout and points go with every message until then
        self._recent: deque[training.Frame] = deque(maxlen=SLOW_MOTION)  # slow motion resends these
        self._journal: OrderedDict[int, training.Checkpoint] = OrderedDict()  # step -> checkpoint (see settle)
        self._journal_bytes = 0
        self._encoded: OrderedDict[int, dict] = OrderedDict()  # step -> the frame as sent (slow motion resends)
        self.graph_seen = True  # the step-graph panel is on screen (the view says when that changes)
        self.settled = False  # `settle` took the run back: the page reruns whole (its files, its graph)
        self._graph_texts: OrderedDict[int, dict] = OrderedDict()  # step -> the step graph's texts
        self._graph_layout: dict | None = None
        self.store_problem: str | None = None  # why the run's last snapshot is not in the run store, in words
        # A link's run that the store could not be asked for: the page shows this run meanwhile, unsaved, under
        # the link's id (so the URL and a reload keep asking for it) and opens the link's run once it can.
        self.waiting_for = waiting_for
        self.notice: str | None = None  # something the page says once (what became of the run it waited for)
        if waiting_for is not None:
            self.run_id = waiting_for
        else:
            self.save()  # a reload finds even an untouched run

    # ------------------------------------------------------------------ runs
    @property
    def config(self) -> TrainConfig:
        return self.state.config

    def _data(self, config: TrainConfig | None):
        if config is not None and config.dataset == datasets.UPLOADED:
            if self.upload is None:
                raise ValueError("the uploaded data set needs its points")
            return self.upload.X, self.upload.y
        return None

    def task_of(self, dataset: str) -> str:
        """The task of a data set the widgets name: the uploaded points' own, or the registry's."""
        if dataset == datasets.UPLOADED and self.upload is not None:
            return self.upload.task
        return datasets.task_of(dataset if dataset in datasets.DATASETS else TrainConfig.dataset)

    def _key(self, config: TrainConfig) -> tuple:
        token = self.upload.token if self.upload is not None and config.dataset == datasets.UPLOADED else None
        return config.run_key(), token

    def apply(self, config: TrainConfig) -> list[str]:
        """Take the widgets' settings. A setting that restarts the run starts a new one; the
        learning rate, L2 and speed apply to the run as it is. Returns the names of the changed
        settings when a run that had trained was restarted (for the page to say so), else []."""
        old = self.state
        if self._key(config) == self._key(old.config):
            if (config.lr, config.l2, config.speed) != (old.config.lr, old.config.l2, old.config.speed):
                training.set_hyperparameters(old, lr=config.lr, l2=config.l2)
                old.config = replace(old.config, speed=config.speed)
                self.save()
            return []
        self._start(training.new_state(config, self._data(config)))
        return (changed_settings(old.config, config) or ["the data"]) if old.step > 0 else []

    def _forget_frames(self) -> None:
        self._recent.clear()
        self._journal.clear()
        self._journal_bytes = 0
        self._encoded.clear()

    def _start(self, state: training.TrainState) -> None:
        self.state = state
        self._forget_frames()
        self._graph_texts.clear()
        self._graph_layout = None
        self.playing = False
        self.wall_rate = 0.0
        self.generation += 1
        self.save()

    def reset(self) -> None:
        """The same settings from step 0."""
        self._start(training.new_state(self.config, self._data(self.config)))

    def use_upload(self, name: str, content: bytes, task: str, token: str) -> str | None:
        """Read a CSV of points; None when it worked (the page then selects the uploaded data set),
        else the message that says what is wrong."""
        try:
            X, y = datasets.parse_csv(content, task)
        except datasets.CSVError as err:
            return f"{name}: {err}"
        self.upload = Upload(name, task, X, y, token)
        return None

    def load_model(self, name: str, content: bytes) -> str | None:
        """Continue a downloaded model; None when it worked, else what is wrong with the file."""
        try:
            state = model_files.load(name, content)
        except model_files.ModelFileError as err:
            return f"{name}: {err}"
        if state.config.dataset == datasets.UPLOADED:
            X, y = training.all_points(state)
            self.upload = Upload(f"the points saved in {name}", state.task, X, y, f"model:{name}:{self.seq}")
        self._start(state)
        return None

    # ------------------------------------------------------------------ play
    def play(self) -> None:
        if self.state.diverged is None:
            self.playing = True
            self._last_tick = self.clock()
            self._carry = 0.0
            self.save()  # a reload from now on comes back playing

    def pause(self) -> None:
        self.playing = False
        self.wall_rate = 0.0
        self.save()

    def step_once(self) -> training.Frame:
        """One training step (the Step button): its frame."""
        training.step(self.state, 1)
        self.save()
        return training.frame(self.state)

    @property
    def interval(self) -> float:
        """Seconds between ticks while playing: once per step in slow motion."""
        speed = self.config.speed
        if speed <= SLOW_MOTION:
            return 1.0 / speed
        return BIG_TICK_SECONDS if _frame_bytes(self.state) > FRAME_PAYLOAD else TICK_SECONDS

    @property
    def steps_per_frame(self) -> int:
        """Training steps per frame sent (and painted): 1 up to DISPLAY_RATE steps/s, past it the fewest that
        keep the frames within the display's rate and the weights' bytes within FRAME_PAYLOAD per 0.2 s."""
        speed = self.config.speed
        fit = max(FRAME_PAYLOAD * 5 // _frame_bytes(self.state), 1 / self.interval)  # frames a second
        return max(1, math.ceil(speed / min(DISPLAY_RATE, fit)))

    def tick(self) -> list[training.Frame]:
        """Train the steps due since the last tick; the frames to paint, oldest first."""
        if not self.playing:
            return []
        now = self.clock()
        elapsed = max(now - self._last_tick, 0.0)
        self._last_tick = now
        due = self._carry + self.config.speed * min(elapsed, CATCH_UP_SECONDS)
        if self.config.speed <= SLOW_MOTION:
            due = 1.0
        frames, done = self._train(int(due + 1e-9))  # NOTE: 0.1 s of a float clock is 2.4999... steps at 25/s
        self._carry = min(due - done, float(self.steps_per_frame)) if self.config.speed > SLOW_MOTION else 0.0
        self._recent.extend(frames)
        if elapsed > 0:
            rate = done / elapsed
            self.wall_rate = rate if self.wall_rate == 0 else 0.6 * self.wall_rate + 0.4 * rate
        if self.state.diverged is not None:
            self.playing = False
        if not self.playing or now - self._saved >= SAVE_EVERY - SAVE_SLACK:
            self.save()
        return frames

    def _train(self, steps: int) -> tuple[list[training.Frame], int]:
        """Up to `steps` steps within the compute budget, a frame at every multiple of `steps_per_frame` (so
        every frame ends a whole part; the rest is trained by the next tick): (the frames, the steps done)."""
        every = self.steps_per_frame
        # NOTE: the budget is read on the run's own clock: a test's clock stands still while it trains, so the
        # steps a tick trains do not depend on how loaded the machine is (a test reading the wall clock did).
        deadline = self.clock() + TRAIN_BUDGET * self.interval
        start = self.state.step
        frames = []
        with training.one_blas_thread():  # NOTE: once for the tick's steps, not twice a step
            while True:
                part = every - self.state.step % every
                if self.state.step + part - start > steps:
                    break
                training.step(self.state, part)
                if self.state.diverged is not None:  # its frame as before, but no checkpoint to go back to
                    frames.append(training.frame(self.state))
                    break
                frames.append(self._keep(training.frame(self.state)))
                if self.clock() > deadline:
                    break
        return frames, self.state.step - start

    def _keep(self, f: training.Frame) -> training.Frame:
        """Keep a checkpoint of a frame about to be sent, for `settle` (the oldest go past JOURNAL_BYTES)."""
        cp = training.checkpoint(self.state, f)
        self._journal[f.step] = cp
        self._journal_bytes += cp.nbytes
        while len(self._journal) > 1 and (self._journal_bytes > JOURNAL_BYTES or len(self._journal) > JOURNAL_FRAMES):
            self._journal_bytes -= self._journal.popitem(last=False)[1].nbytes
        return f

    def settle_told(self, told: object) -> bool:
        """`settle` with what the live view said ({run, step}; PROTOCOL.md): nothing if it is about another run."""
        if not isinstance(told, dict) or told.get("run") != self.view_run or type(told.get("step")) is not int:
            return False
        return self.settle(told["step"])

    @property
    def view_run(self) -> str:
        """The run as the live view knows it: a new value is a new run."""
        return f"{self.run_id}.{self.generation}"

    def settle(self, step: int | None) -> bool:
        """The live view, paused, shows `step`: take the run back to it if the run trained past it while the
        picture was on its way (True: it did; the page reruns whole). A step the run never sent, or one older
        than the checkpoints kept, leaves the run where it is; so does a report that comes while playing, and one
        about a run that diverged (it stopped where it left the numbers, and the page says why until Reset)."""
        if self.playing or self.state.diverged is not None or step is None or step == self.state.step:
            return False
        cp = self._journal.get(step)
        if cp is None or step > self.state.step:
            return False
        training.rewind(self.state, cp)
        for later in [s for s in self._journal if s > step]:
            self._journal_bytes -= self._journal.pop(later).nbytes
        self._recent = deque((f for f in self._recent if f.step <= step), maxlen=SLOW_MOTION)
        self.wall_rate = 0.0
        self.settled = True
        self.save()
        return True

    # --------------------------------------------------------------- storing
    def save(self) -> None:
        """Keep the run's snapshot in the store under its id (server/run_store/), in place of the last.
        If another page has taken the run over meanwhile (the learner opened its link elsewhere), this
        page's run goes on under a new id, so neither overwrites the other. A store that cannot be written
        keeps the run in this page: `store_message` says so until a save (the next tick's, or `retry_store`)
        works. A learner who trains the run shown while waiting for a link's run makes it a run of its own."""
        if self.waiting_for is not None:
            self.waiting_for, self.run_id = None, new_run_id()
        blob = run_snapshot.dump(self.state, self.upload, self.playing, self._reuse)
        problem = None
        try:
            done = self.store.save(self.run_id, blob, user=self.user, holder=self.holder, live=self.playing)
            if done == TAKEN:
                self.run_id = new_run_id()
                done = self.store.save(self.run_id, blob, user=self.user, holder=self.holder, live=self.playing)
        except Exception as err:  # noqa: BLE001 - the store's guard missed it (a bug): the learner's run must go on
            logging.getLogger(__name__).warning("run %s not saved: %r", self.run_id, err)
            done, problem = KEPT, f"{type(err).__name__}: {err}"
        self.store_problem = _unsaved(done, len(blob), self.store, problem or self.store.problem)
        self._saved = self.clock()

    @property
    def store_message(self) -> str | None:
        """What the page says while the run is not in the run store (None while it is)."""
        if self.store_problem is None:
            return None
        return f"{self.store_problem[0].upper()}{self.store_problem[1:]}"

    @property
    def retry_every(self) -> float | None:
        """Seconds between the page's calls of `retry_store` (None: nothing to retry)."""
        return RETRY_EVERY if self.store_problem is not None else None

    def retry_store(self) -> bool:
        """Try the run store again (the page calls this every `retry_every` seconds while paused; while playing
        each tick saves): save the run, or open the link's run the page waits for. True when what the page
        shows changed (another run: the page's widgets must take its settings)."""
        if self.waiting_for is not None:
            return self._open_waited()
        if self.store_problem is None:
            return False
        self.save()
        return self.store_problem is None

    def _open_waited(self) -> bool:
        run_id = self.waiting_for
        found, why = type(self)._from_store(run_id, clock=self.clock, store=self.store, user=self.user)
        if isinstance(why, StoreDown):
            self.store_problem = _unreadable(run_id, str(why))
            return False
        self.waiting_for, self.store_problem = None, None
        if found is None:
            self.notice = missing_run(why)
            self.run_id = new_run_id()
            self.save()  # the run shown becomes a run of its own
            return True
        # NOTE: the page holds this object (its buttons call its methods), so it takes the found run's place.
        self.state, self.upload, self.run_id, self.holder = found.state, found.upload, found.run_id, found.holder
        self.store_problem = found.store_problem
        self._forget_frames()
        self._graph_texts.clear()
        self._graph_layout = None
        self.generation += 1
        self.playing = False
        if found.playing:
            self.play()
        return True

    @classmethod
    def restore(
        cls, run_id: str, *, clock: Callable[[], float] = time.monotonic, store: RunStore | None = None, user: str = ""
    ) -> Playground | None:
        """The run saved under `run_id`, or None if the store does not have it (or cannot read it).
        The same run (same id) if it is this learner's, playing if it was; else a copy under a new id, paused."""
        return cls._from_store(run_id, clock=clock, store=store, user=user)[0]

    @classmethod
    def _from_store(
        cls, run_id: str, *, clock: Callable[[], float], store: RunStore | None, user: str
    ) -> tuple[Playground | None, str | StoreDown | None]:
        """`restore`'s run, and else why not: a clause for the page (None: no reason known), or the StoreDown
        that says the store cannot be asked now."""
        store = store if store is not None else runs()
        holder = secrets.token_hex(8)
        try:
            opened = store.open(run_id, user=user, holder=holder)
            if opened is None:
                return None, store.why_missing(run_id)
            snapshot = run_snapshot.load(opened.blob, Upload)
        except StoreDown as err:
            return None, err
        except Exception as err:  # noqa: BLE001 - a snapshot that does not fit (or a bug in the store's guard)
            logging.getLogger(__name__).warning("run %s not restored: %r", run_id, err)
            return None, f"its snapshot could not be continued ({err})"
        found = cls(clock=clock, store=store, run_id=run_id if opened.owned else None, state=snapshot.state,
                    upload=snapshot.upload, user=user, holder=holder)
        if snapshot.playing and opened.owned:
            found.play()
        return found, None

    @classmethod
    def from_url(
        cls, params: dict[str, str], *, clock: Callable[[], float] = time.monotonic, store: RunStore | None = None,
        user: str = "",
    ) -> tuple[Playground, list[str]]:
        """The run a page's URL asks for, and what in the URL could not be used. A `run` id that the
        store holds is continued (see `restore`); otherwise a new run starts from the URL's settings (and while
        the store cannot be asked, the page waits for the link's run: `waiting_for`)."""
        params = {k: str(v) for k, v in params.items()}
        run_id = params.pop("run", None)
        why = None
        if run_id:
            found, why = cls._from_store(run_id, clock=clock, store=store, user=user)
            if found is not None:
                return found, []
        problems = []
        if params.get("dataset") == datasets.UPLOADED:
            params = {k: v for k, v in params.items() if k not in ("dataset", "noise", "n")}
            problems.append("the link's uploaded points are not on this server; showing two moons instead")
        config, refused = TrainConfig.from_query(params)
        if isinstance(why, StoreDown):
            waiting = cls(config, clock=clock, store=store, user=user, waiting_for=run_id)
            waiting.store_problem = _unreadable(run_id, str(why))
            return waiting, problems + refused
        if run_id:
            problems.append(missing_run(why))
        return cls(config, clock=clock, store=store, user=user), problems + refused

    # ------------------------------------------------------------- the step graph
    def graph_layout(self) -> dict:
        """The graph view's data for the run's step graph (explorer/playground/step_graph.py): made once
        per run, and the same DOT for every run of the same network shape and settings."""
        if self._graph_layout is None:
            self._graph_layout = step_graph.layout(self.state)
        return self._graph_layout

    def graph_panel(self) -> dict:
        """What the step-graph panel shows on a full page run: its layout, every box's texts at the
        current step (with tooltips), the step, and how many training points the step is on."""
        graph = step_graph.step_graph(self.state)
        return {"data": self.graph_layout(), "values": step_graph.values(graph),
                "caption": step_caption(self.state.step), "points": len(step_graph.fixed_batch(self.state))}

    def _frame_graph(self, f: training.Frame) -> dict:
        """The step graph's texts at a frame's step (what changes from frame to frame), glyphs as stand-ins."""
        texts = self._graph_texts.get(f.step)
        if texts is None:
            texts = step_graph.frame_values(step_graph.step_graph(self.state, f.params))
            texts = {box: {part: [line.translate(_TO_ASCII) for line in lines] for part, lines in cells.items()}
                     for box, cells in texts.items()}
            self._graph_texts[f.step] = texts
            if len(self._graph_texts) > GRAPH_TEXTS_KEPT:
                self._graph_texts.popitem(last=False)
        else:
            self._graph_texts.move_to_end(f.step)
        return texts

    # ------------------------------------------------------------- the view
    def view_data(self, frames: list[training.Frame], *, full: bool, replay: bool = False, graph: bool = False) -> dict:
        """What the live view draws (components/live_view): always the frames to paint (at least
        the current one) and the run's status; with `full` also the network's layout, the points
        and the curves' history (the browser keeps them between messages); with `replay` the
        recorded frames for the replay slider; with `graph` each frame's step-graph texts, which the
        browser passes on to the step-graph panel as it paints the frame.
        Every key and its meaning: components/frontend/live_view/PROTOCOL.md (the one place the wire format is
        written)."""
        s = self.state
        self.seq += 1
        now = self.clock()
        texts = graph and self.graph_seen  # NOTE: the step graph's texts only while its panel is on screen
        if frames and self.playing and s.config.speed <= SLOW_MOTION:
            # NOTE: two updates of a component that arrive together are rendered once, with the later
            # data; in slow motion every step must be seen, so each message repeats the last second's
            # frames (a few hundred bytes each) and the browser paints the ones it has not.
            frames = list(self._recent)
        data = {
            "run": self.view_run,
            "seq": self.seq,
            "playing": self.playing,
            "interval": self.interval,
            "speed": s.config.speed,
            "rate": round(self.wall_rate, 1),
            "compute": round(s.compute_rate),
            "diverged": s.diverged,
            "dtype": _dtype(s),
            "every": self.steps_per_frame,
            "frames": [self._frame_data(f, texts) for f in (frames or [training.frame(s)])],
        }
        if full:
            self._model_until = now + MODEL_RESEND
        if full or now < self._model_until:
            data["model"] = _model_data(s)
            if graph:
                data["model"]["graph"] = {"key": self.graph_layout()["key"], "glyphs": [STAND_INS, GLYPHS],
                                          "panel": GRAPH_PANEL_CLASS}
        if full or now - self._history_sent >= HISTORY_EVERY:
            data["history"] = _history_data(s.history)
            self._history_sent = now
        if replay:
            data["replay"] = [_frame_data(f, _dtype(s)) | ({"g": self._frame_graph(f)} if texts else {})
                              for f in training.replay_frames(s)]
        return data

    def _frame_data(self, f: training.Frame, graph: bool) -> dict:
        data = self._encoded.get(f.step)
        if data is None or data["p"] is None:  # NOTE: each frame is encoded once, however often it is sent
            data = self._encoded[f.step] = _frame_data(f, _dtype(self.state))
            if len(self._encoded) > SLOW_MOTION:
                self._encoded.popitem(last=False)
        return {**data, "g": self._frame_graph(f)} if graph else data


def missing_run(why: str | None) -> str:
    """What the page says of a link whose run the store does not have, and why if the store knows."""
    because = f" ({why})" if why else ""
    return (f"the run in this link is not in the run store{because}: it starts again from step 0 with the link's "
            "settings")


def _unreadable(run_id: str, problem: str) -> str:
    return (f"the run store cannot be read: {problem}; this page opens the link's run (`{run_id}`) as soon as it can. "
            "The run below is a new one meanwhile, not saved: training it makes it a run of its own")


def _unsaved(done: str, size: int, store: RunStore, problem: str | None) -> str | None:
    """Why a save left the run out of the store, in words (None: it is in)."""
    if done == KEPT:
        return f"the run store cannot be written: {problem}; this run is kept in this page until it can be"
    if done == TOO_BIG:
        return (f"this run is too big for the run store ({size / MB:.1f} MB; at most {store.max_run_bytes / MB:g} MB "
                "a run): it is kept in this page only, and a reload starts it again")
    return None


def step_caption(step: int) -> str:
    """Which step a picture shows, as the live view's step graph says it (live_view.js stepCaption too)."""
    return f"Step {step:,}"


# ------------------------------------------------------------ encoding for the browser


def _digits(values) -> list[float | None]:
    return json_numbers(values, DIGITS)


def _few_digits(*values: float) -> list[float | None]:
    """`_digits` of a few numbers (a frame's metrics, a layer's health: 4 calls a frame), without NumPy's detour."""
    return [json_number(v, DIGITS) for v in values]


def _dtype(s: training.TrainState) -> str:
    """How a frame's parameters travel: float64 (exact: the browser computes the same pictures as
    the engine) unless the network is big, then float32 (half the bytes, the same picture to the eye)."""
    return "f8" if sum(p.data.size for p in s.optimizer.params) <= EXACT_PARAMS else "f4"


def _frame_bytes(s: training.TrainState) -> int:
    return sum(p.data.size for p in s.optimizer.params) * (8 if _dtype(s) == "f8" else 4)


def encode(a: np.ndarray, dtype: str = "f8") -> str:
    """An array as base64 of its little-endian float64 ("f8") or float32 ("f4") bytes."""
    return base64.b64encode(np.ascontiguousarray(a, dtype="<" + dtype).tobytes()).decode("ascii")


def _frame_data(f: training.Frame, dtype: str) -> dict:
    m = f.metrics
    return {
        "step": m.step,
        "m": _few_digits(m.train_loss, m.test_loss, m.train_acc, m.test_acc),
        "p": encode(f.params, dtype),
        "h": [
            [*_few_digits(h.grad_norm, h.weight_norm, h.update_ratio),
             None if h.dead is None else round(h.dead, 4),
             None if h.saturated is None else round(h.saturated, 4),
             h.trouble]
            for h in f.health
        ],
    }


def _history_data(h: training.History) -> dict:
    return {"step": list(h.steps), **{name: _digits(getattr(h, name)) for name in h.COLUMNS[1:]}}


def _points(X: np.ndarray, y: np.ndarray) -> dict:
    labels = y.tolist() if y.dtype.kind == "i" else []
    return {"x": _digits(X[:, 0]), "y": _digits(X[:, 1] if X.shape[1] > 1 else y), "c": labels}


def _model_data(s: training.TrainState) -> dict:
    """The run's fixed part: the network's shape, how inputs are made, the picture's axes, the points."""
    regression = s.task == "regression"
    y_all = np.concatenate([s.y_train, s.y_test]) if regression else None
    if regression:
        pad = 0.15 * float(np.ptp(y_all) or 1.0)
        y_range = [float(y_all.min() - pad), float(y_all.max() + pad)]
    else:
        y_range = [float(s.ys[0]), float(s.ys[-1])]
    return {
        "task": s.task,
        "sizes": list(s.model.sizes),
        "activation": s.config.activation,
        "features": list(s.config.features),
        "inputs": s.input_names,
        "outputs": s.output_names,
        "classes": s.n_classes,
        "shift": s.shift.tolist(),
        "scale": s.scale.tolist(),
        "x_range": [float(s.xs[0]), float(s.xs[-1])],
        "y_range": y_range,
        "train": _points(s.X_train, s.y_train),
        "test": _points(s.X_test, s.y_test),
        "loss": s.loss_name,
        "summary": f"{s.config.optimizer}, learning rate {s.config.lr:g}, batch {s.config.batch_size or 'full'}",
    }
