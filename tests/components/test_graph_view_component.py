"""components.graph_view on the server: what a fragment's rerun sends (the drawing once, then numbers)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import components.graph_view as gv

DATA = {"key": "abc", "dot": "digraph { a -> b }", "boxes": {"0": {}}, "legend": [], "output": 1, "steps": None}


@pytest.fixture
def run(monkeypatch):
    """run(fragment=..., key=...) -> what graph_view would send, in one session."""
    state: dict = {}
    monkeypatch.setattr(gv, "st", SimpleNamespace(session_state=state))

    def sent(fragment: bool, data=DATA, key="view"):
        monkeypatch.setattr(gv, "in_fragment_rerun", lambda: fragment)
        return gv._without_layout_sent(data, key)

    sent.state = state
    return sent


def test_a_full_run_always_sends_the_drawing(run):
    assert run(fragment=False) == DATA
    assert run(fragment=False) == DATA


def test_a_fragment_rerun_leaves_out_the_drawing_the_view_has(run):
    run(fragment=False)
    kept = run(fragment=True)
    assert kept["layout_kept"] is True
    assert not set(gv.LAYOUT_PARTS) & set(kept)
    assert kept["key"] == "abc" and kept["output"] == 1  # what changes with the numbers still travels


def test_a_fragment_rerun_sends_a_drawing_the_view_does_not_have(run):
    assert run(fragment=True) == DATA  # nothing sent yet
    other = {**DATA, "key": "xyz", "dot": "digraph { c }"}
    assert run(fragment=True, data=other) == other  # another program
    assert run(fragment=True, key="other view") == DATA  # another view


def test_a_view_that_asks_for_the_drawing_gets_it(run):
    run(fragment=False)
    run.state["view"] = {"layout_wanted": 1700000000000}
    assert run(fragment=True) == DATA
    assert run(fragment=True)["layout_kept"] is True  # once
