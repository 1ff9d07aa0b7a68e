"""Learners playing in a server process of their own, against a real run store, driven line by line by a test.

    python -m tests.support.store_learners <AUTOGRAD_EXPLORER_RUNS value> <learners> [<uid to run as>]

Each learner is a Playground page (explorer/playground/controller.py) that plays from the start, on a clock of
its own that moves 0.2 s a tick (so a tick trains the same steps however loaded the machine is); the store is
the one the value names, opened as a server process opens it. One command a line on stdin, one JSON line back:

    tick <n>   every page ticks n times (a page saves once a second of its clock while playing)
    pause      every page pauses (which saves)
    report     nothing moves

The answer: {"pid": ..., "learners": [{"run": <run id>, "step": <the page's step>, "words": <what the page says
of the store, or null>}, ...]}. A process the store takes down answers nothing more: the test sees it exit.
"""

from __future__ import annotations

import importlib
import json
import os
import sys

from explorer.playground.controller import Playground
from explorer.playground.settings import TrainConfig
from server.run_store import open_store
from tests.support.clock import Clock

TICK = 0.2




def become(uid: int) -> None:
    """This process as the user ``uid`` (a learner's server without root), once everything it runs is loaded.

    NOTE: started as root and changed here, not started as that user: a checkout (and its virtualenv) may lie in a
    folder only root may enter (CI's fresh clone in a mktemp -d folder), where that user could not import a thing.
    A Playground played against a memory store first loads every module a learner's process needs."""
    warm = Playground(TrainConfig(hidden=(4,)), clock=Clock(), store=open_store("memory"), user="warm-up")
    warm.play()
    warm.tick()
    warm.pause()
    importlib.import_module("server.run_store.sqlite_store")
    importlib.import_module("server.run_store.redis_store")
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def main(where: str, count: int, uid: int | None = None) -> None:
    if uid is not None:
        become(uid)
    store = open_store(where)
    clock = Clock()
    pages = [Playground(TrainConfig(hidden=(4,), seed=i), clock=clock, store=store, user=f"learner{i}")
             for i in range(count)]
    for page in pages:
        page.play()
    for line in sys.stdin:
        command, *args = line.split()
        if command == "tick":
            for _ in range(int(args[0])):
                clock.now += TICK
                for page in pages:
                    page.tick()
        elif command == "pause":
            for page in pages:
                page.pause()
        # NOTE: getattr: the same script drives the code before the store said anything (the tests are checked
        # against it), where a missing attribute must fail the test's assertion on the words, not this process.
        report = [{"run": p.run_id, "step": p.state.step, "words": getattr(p, "store_message", None)} for p in pages]
        print(json.dumps({"pid": os.getpid(), "learners": report}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else None)
