"""Every evaluation a page asks of the sandbox fails as a message, never a traceback (issue 23 item 4: with 12 tabs
on a heavy program, the sliders, the gradient pictures and the inspector's Jacobian showed tracebacks).

A busy server is simulated: the n-th sandbox call of a page's run fails with the sandbox's own 'busy' error,
for every n up to the number of calls the run makes, so every call a page makes is tried once."""

import pytest

from components.common import session
from explorer.program import presets
from server.sandbox import SandboxError, wall_message
from tests.support.apptest import EXPLORER, STEPPER, app

BUSY = SandboxError("wall", wall_message(session.limits()))


class BusySandbox:
    """The server's sandbox, except that call number ``fail_at`` (from 0) fails as a busy server's does."""

    def __init__(self, real, fail_at: int | None):
        self.real, self.fail_at, self.calls = real, fail_at, []

    def run(self, fn, *args, cancelled=None):
        self.calls.append(fn.__qualname__)
        if len(self.calls) - 1 == self.fail_at:
            raise BUSY
        return self.real.run(fn, *args, cancelled=cancelled)


def _page(page: str, tab: str | None, fail_at: int | None, monkeypatch, forward: bool = False):
    """A run of ``page`` with poked values and (on the Explorer) ``tab`` open (the inspector on a node), in forward
    mode if ``forward``, whose sandbox call ``fail_at`` fails. Returns (AppTest, the calls made)."""
    real = session.sandbox()
    busy = BusySandbox(real, None)
    monkeypatch.setattr(session, "sandbox", lambda: busy)
    at = app()
    at.query_params["program"] = presets.program(presets.DEFAULT)
    at.query_params["poke"] = "a=-3,b=2.5"
    if forward:
        at.query_params.update({"mode": "forward", "v": "element:a:0"})
    if page == EXPLORER:
        at.session_state["explorer_tab"] = tab
        at.session_state["explorer_picked"] = 4
        at.run()
    else:
        at.run()
        at.switch_page(STEPPER)
    busy.calls.clear()
    busy.fail_at = fail_at
    at.run()
    return at, list(busy.calls)


CALLS = {
    "Inspect a node": {"explorer_run", "inspect_node", "node_jacobian"},
    "Export": {"explorer_run", "to_svg"},
    "Forward vs reverse": {"explorer_run", "program_cost", "lab_cost", "lab_counts"},
    None: {"stepper_run"},
}


@pytest.mark.parametrize(("page", "tab", "forward"), [
    (EXPLORER, "Inspect a node", False), (EXPLORER, "Export", False), (STEPPER, None, False),
    (EXPLORER, "Inspect a node", True), (EXPLORER, "Forward vs reverse", False), (STEPPER, None, True),
])
def test_any_sandbox_call_that_fails_is_a_message(page, tab, forward, monkeypatch):
    _, calls = _page(page, tab, None, monkeypatch, forward)
    expected = CALLS[tab]
    assert expected <= set(calls), f"the run makes the calls under test: {calls}"
    for n, name in enumerate(calls):
        at, _ = _page(page, tab, n, monkeypatch, forward)
        assert not at.exception, f"call {n} ({name}) failing: {[e.message for e in at.exception]}"
        assert any(BUSY.message in e.value for e in at.error), f"call {n} ({name}): its message is shown"
