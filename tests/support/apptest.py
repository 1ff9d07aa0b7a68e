"""The app through Streamlit's AppTest: open it, read what a page sent its components, report as the browser does."""

import json
import re

from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest

from tests.support.helpers import ROOT

TIMEOUT = 60
EXPLORER = "pages/explorer.py"
STEPPER = "pages/stepper.py"
NODE = re.compile(r"^\s*(n\d+|notice) \[label=(.*)>, id=", re.M)


def app() -> AppTest:
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)


def open_page(page: str, query: dict | None = None, learner: str | None = None) -> AppTest:
    """The app run once (st.navigation registers the pages on the first run), then ``page`` opened with the link
    ``query`` and, if given, as ``learner`` (the key a browser's cookie gives: components/common/learner.py; else
    the session is a learner of its own)."""
    at = app()
    if learner is not None:
        at.session_state["learner_key"] = learner
    at.run()
    if query:
        at.query_params.clear()
        at.query_params.update(query)
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def graph_element(at: AppTest):
    views = [e for e in at.get("bidi_component") if e.proto.component_name == "components.graph_view"]
    assert len(views) == 1, "exactly one graph view on the page"
    return views[0]


def view_data(at: AppTest) -> dict:
    """What the page sent the graph view."""
    return json.loads(graph_element(at).proto.json)


def graph_dot(at: AppTest) -> str:
    return view_data(at)["dot"]


def report(at: AppTest, **state) -> AppTest:
    """Run the page as the browser does when the graph view reports its state (step, selected, options).

    NOTE: AppTest has no accessor for a components.v2 component's state, so this sends the widget
    state the frontend would send (the component's JSON value) through AppTest's own run.
    """
    states = at._tree.get_widget_states()
    states.widgets.append(WidgetState(id=graph_element(at).proto.id, json_value=json.dumps(state)))
    return at._run(states)


def labels(dot: str) -> dict[str, str]:
    """DOT node id -> its label (without the colours)."""
    return {m.group(1): m.group(2) for m in NODE.finditer(dot)}


def button(at: AppTest, label: str):
    found = [b for b in at.button if b.label == label]
    assert found, f"no button {label!r} among {[b.label for b in at.button]}"
    return found[0]


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]


def open_tab(at, label: str) -> None:
    """Select a tab of the explorer (what a click on it does in the browser) and rerun."""
    at.session_state["explorer_tab"] = label
    at.run()


# ----------------------------------------------------------------------------- poking the inputs


def component(at: AppTest, name: str):
    found = [e for e in at.get("bidi_component") if e.proto.component_name == name]
    assert len(found) == 1, f"exactly one {name} on the page"
    return found[0]


def sent(at: AppTest, name: str) -> dict:
    return json.loads(component(at, name).proto.json)


def report_to(at: AppTest, name: str, **state) -> AppTest:
    """`report` for any component: the browser sends its state (see `report`'s NOTE)."""
    states = at._tree.get_widget_states()
    states.widgets.append(WidgetState(id=component(at, name).proto.id, json_value=json.dumps(state)))
    return at._run(states)


def trigger(at: AppTest, name: str, event: str) -> AppTest:
    """The browser fires a component's trigger (setTriggerValue): one payload in its events widget."""
    from streamlit.components.v2.bidi_component.main import _make_trigger_id

    states = at._tree.get_widget_states()
    events = _make_trigger_id(component(at, name).proto.id, "events")
    states.widgets.append(WidgetState(id=events, json_trigger_value=json.dumps([{"event": event, "value": True}])))
    return at._run(states)


def poke_to(at: AppTest, values: dict, active: str = "a", final: bool = True, seq: int = 1) -> AppTest:
    return report_to(at, "components.poke", poke={"values": values, "active": active, "seq": seq, "final": final})
