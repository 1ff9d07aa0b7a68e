"""The backward as a graph in a real browser (issue 32): the Explorer's switch draws the forward graph and the nodes
the backward made, every box carrying data-order ("1" forward, "2" backward, "3" after differentiating again), as
many of each as explorer.program.backward_graph makes, each leaf's grad box showing the engine's grad."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlsplit

import pytest

from explorer import numbers
from explorer.graph import dot as dotmod
from explorer.program import backward_view, presets
from explorer.program.backward_graph import backward_graph
from language import evaluate

from .helpers import GRAPH, box_orders, data_cells, open_page, settled, wait_for_idle, wait_for_view

pytestmark = [pytest.mark.browser, pytest.mark.slow]

MICROGRAD = presets.PRESETS["micrograd"][1]






def test_the_switch_draws_the_backward_with_each_box_s_order_and_the_engine_s_grads(page, app_url):
    open_page(page, f"{app_url}/?program={quote(MICROGRAD)}")
    wait_for_view(page)
    assert set(box_orders(page).values()) == {"1"}  # the forward graph alone: every box the forward's
    page.locator(".st-key-explorer_backward label").click()
    settled(lambda: box_orders(page), lambda o: "2" in o.values(), timeout=60)
    wait_for_view(page)
    wait_for_idle(page)
    got = box_orders(page)
    result = evaluate(MICROGRAD)
    graph = backward_graph(result.output, uses=result.uses)
    assert sorted(got, key=int) == [str(n.id) for n in graph.nodes]
    assert [got[str(n.id)] for n in graph.nodes] == [str(n.order) for n in graph.nodes]
    assert sum(o == "2" for o in got.values()) == len(graph.backward())
    assert parse_qs(urlsplit(page.url).query)["backward"] == ["1"]
    drawn, _ = backward_view.as_drawn(graph)
    compact = dotmod.plan(drawn, max_nodes=backward_view.MAX_DRAWN).compact
    result.output.backward()
    cells = data_cells(page)
    for leaf, g in graph.grads:
        assert cells[str(g)] == numbers.value_lines(result.inputs[graph.nodes[leaf].name].grad, compact)
    assert page.get_by_text(f"{len(graph.backward())} nodes of the backward pass", exact=False).count() == 1


def test_differentiating_again_adds_a_third_layer_from_the_link(page, app_url):
    open_page(page, f"{app_url}/?program={quote(MICROGRAD)}&backward=1&again=b")
    wait_for_view(page)
    wait_for_idle(page)
    want = backward_view.backward_view(MICROGRAD, (), "b")
    got = settled(lambda: box_orders(page), lambda o: o == {k: str(v) for k, v in want["orders"].items()}, timeout=60)
    assert got == {k: str(v) for k, v in want["orders"].items()}
    assert {o: sum(v == o for v in got.values()) for o in "123"} == {k: v for k, v in want["counts"].items()}
    assert page.locator('.st-key-explorer_backward_second [data-testid="stDataFrame"]').count() == 1


def test_a_poked_link_retexts_the_backward_s_drawing_with_the_grads_there(page, app_url):
    open_page(page, f"{app_url}/?program={quote(MICROGRAD)}&backward=1&poke={quote('a=-2.5')}")
    wait_for_view(page)
    wait_for_idle(page)
    poked = evaluate(MICROGRAD.replace("a = -4.0", "a = -2.5"))
    poked.output.backward()
    graph = backward_graph(evaluate(MICROGRAD).output)
    drawn, _ = backward_view.as_drawn(graph)
    compact = dotmod.plan(drawn, max_nodes=backward_view.MAX_DRAWN).compact
    want = {str(g): numbers.value_lines(poked.inputs[graph.nodes[leaf].name].grad, compact) for leaf, g in graph.grads}
    got = settled(lambda: data_cells(page), lambda cells: all(cells.get(k) == v for k, v in want.items()), timeout=30)
    assert {k: got[k] for k in want} == want
    assert page.locator(GRAPH).get_attribute("data-layouts") == "1"  # retexted in place, not laid out again
