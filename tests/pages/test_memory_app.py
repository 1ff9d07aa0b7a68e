"""The Explorer's Memory tab through Streamlit AppTest: it runs only when open; every preset's timeline carries its
peaks and the graph's data key, the table each op's saved set; the slider over k reruns the checkpointed run."""

from __future__ import annotations

import pytest

from explorer.program import presets
from explorer.program.memory import program_memory
from tests.support.apptest import app, no_exception, open_tab, sent, view_data

TAB = "Memory"
NAME = "components.memory"


def memory_sent(at) -> dict:
    return sent(at, NAME)


@pytest.mark.parametrize("name", presets.names())
def test_every_preset_s_tab_shows_its_peaks_and_saved_sets(name):
    at = app().run()
    at.selectbox(key="explorer_preset").select(name).run()
    assert not [e for e in at.get("bidi_component") if e.proto.component_name == NAME], "runs only when open"
    open_tab(at, TAB)
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    want = program_memory(presets.program(name))
    data = memory_sent(at)
    peaks = {line["name"]: line["peak"] for line in data["lines"]}
    assert peaks == {line.name: line.peak for line in want.lines}
    assert peaks["no_grad"] <= peaks["tape"] <= peaks["engine"] and peaks["checkpointed"] < peaks["engine"]
    assert data["key"] == view_data(at)["key"], "scrubbing lights the boxes of the graph shown beside it"
    assert data["saves"] == want.saves and len(data["labels"]) == len(want.labels)
    table = at.dataframe[0].value
    assert list(table["bytes"]) == [r.bytes for r in want.rows] and "backward keeps" in table.columns
    assert any(f"ran {want.recomputed:,} forward operations again" in c.value for c in at.caption)
    assert "the same grads" in " ".join(c.value for c in at.caption)


def test_the_slider_over_k_reruns_the_checkpointed_run():
    at = app().run()
    at.session_state["explorer_tab"] = TAB
    at.run()
    no_exception(at)
    two = memory_sent(at)
    at.slider(key="explorer_memory_every").set_value(4).run()
    no_exception(at)
    four = memory_sent(at)
    text = presets.program(presets.DEFAULT)
    assert [line["peak"] for line in four["lines"]] == [line.peak for line in program_memory(text, (), 4).lines]
    assert any("checkpointed every 4 operations" in c.value for c in at.caption)
    assert two["lines"][0] == four["lines"][0], "this engine's account does not depend on k"
