"""The Playground's step-graph panel under AppTest: the memory of the step (forward → backward → the optimiser's
step) beside the step graph, keyed to it, following the run; gone with the panel."""

import json

from explorer.playground.step_memory import step_memory
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
