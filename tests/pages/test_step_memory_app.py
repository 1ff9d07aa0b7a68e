"""The Playground's step-graph panel under AppTest: the memory of the step (forward → backward → the optimiser's
step) beside the step graph, keyed to it, following the run; gone with the panel. Its slider over k (checkpoints
every k layers, run for real) moves the checkpointed line's peak, and keeps k while the panel is off."""

import json

from explorer.playground import keys
from explorer.playground.step_memory import DEFAULT_EVERY, step_memory
from tests.support import apptest

PAGE = "pages/playground.py"
NAME = "components.memory"


def memory_sent(at) -> dict:
    return apptest.sent(at, NAME)


def graph_sent(at) -> dict:
    views = [e for e in at.get("bidi_component") if e.proto.component_name == "components.graph_view"]
    return json.loads(views[-1].proto.json)


def test_the_step_s_memory_is_beside_its_graph_and_follows_the_run():
    at = apptest.open_page(PAGE)
    apptest.no_exception(at)
    data = memory_sent(at)
    want = step_memory(at.session_state["pg"].state)
    assert data["key"] == graph_sent(at)["key"], "scrubbing lights the step graph's boxes"
    assert [line["peak"] for line in data["lines"]] == [line.peak for line in want.lines]
    assert data["labels"][-2].startswith("optimiser: ") and data["labels"][-1].startswith("after the step")
    assert data["saves"] == want.saves and data["title"].endswith("the optimiser's step")
    assert set(data["alive"]) == set(graph_sent(at)["values"]), "every box of the step graph has its span"
    assert any(c.value.startswith("Peaks: this engine") for c in at.caption)
    assert any("4 fixed training points" in c.value for c in at.caption), "the panel's caption stays"

    at.toggle(key="pg_graph").set_value(False).run()
    assert not [e for e in at.get("bidi_component") if e.proto.component_name == NAME], "off with the panel"


def checkpointed_peak(at) -> int:
    return next(line["peak"] for line in memory_sent(at)["lines"] if line["name"] == "checkpointed")


def test_the_slider_over_k_moves_the_checkpointed_peak_and_stays_in_the_session():
    at = apptest.open_page(PAGE)
    apptest.no_exception(at)
    state = at.session_state["pg"].state
    slider = at.slider(key=keys.STEP_MEMORY_SLIDER)
    assert (slider.value, slider.min, slider.max) == (DEFAULT_EVERY, 1, 3), "k from 1 to the network's 3 layers"
    assert checkpointed_peak(at) == step_memory(state, DEFAULT_EVERY).peak("checkpointed")
    peaks = {DEFAULT_EVERY: checkpointed_peak(at)}
    for every in (2, 3):
        at.slider(key=keys.STEP_MEMORY_SLIDER).set_value(every).run()
        apptest.no_exception(at)
        peaks[every] = checkpointed_peak(at)
        want = step_memory(at.session_state["pg"].state, every)
        assert peaks[every] == want.peak("checkpointed")
        assert any(f"checkpointed every {every} layers" in c.value and f"ran {want.recomputed:,} forward" in c.value
                   for c in at.caption), [c.value for c in at.caption]
    assert len(set(peaks.values())) > 1, peaks
    at.toggle(key=keys.GRAPH).set_value(False).run()
    at.toggle(key=keys.GRAPH).set_value(True).run()
    assert at.slider(key=keys.STEP_MEMORY_SLIDER).value == 3, "k kept while the panel was off"
    assert checkpointed_peak(at) == peaks[3]
