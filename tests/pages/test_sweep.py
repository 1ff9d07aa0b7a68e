"""Every panel on every program (issue 17): the presets and programs generated from the op registry
(tests/support/program_gen.py) through the Explorer's graph, the inspector on every node, every node's Jacobian,
the gradient check, the exports (DOT, SVG where Graphviz's `dot` exists, the Python script run and compared),
the poke pictures, the Stepper's panel at every step, the Forward vs reverse tab's cost, the Curvature tab and the
Memory tab: at the explorer/ function level for breadth, and through Streamlit AppTest on both pages for a sample.
Generated programs (program_gen.sample, a test per seed) go through the Explorer in AppTest too, with issue 32's
panels: the backward as a graph, differentiated again, the Curvature tab and the Memory tab.
No panel may raise; each must say something true.

The programs include scalars, size-1 arrays (``tensor([2.0])``), (1, n), (n, 1), an empty (0, 3), int data
used as labels and indices, fan-out and broadcasting, and every primitive of the registry.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import random
import re
import shutil

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from autograd import grad as autograd_grad
from autograd.expr import evaluate
from autograd.ops import PRIMITIVES
from explorer import numbers, words
from explorer.graph import names
from explorer.graph.svg import to_svg
from explorer.program import (
    backward_view,
    check,
    cost_report,
    intervene,
    jacobian_view,
    keys,
    page_data,
    poke,
    presets,
    rules,
)
from explorer.program import inspector as program_inspector
from explorer.program import run as program_run
from explorer.program import view_data as graph_data
from explorer.program.inspector import heatmap_figure
from explorer.program.memory import payload, program_memory
from explorer.program.mode_cost import program_cost
from language.library import COMPOSITES
from tests.support import program_gen
from tests.support.sweep_cases import CASES

SWEEP = settings(derandomize=True, max_examples=40, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
HAS_DOT = shutil.which("dot") is not None

#: Two programs per primitive and per composite the language offers, each on another shape of the pool
#: (tests/support/program_gen.py).
REGISTRY_PROGRAMS = [(name, text) for i, name in enumerate([*PRIMITIVES, *COMPOSITES])
                     for text in program_gen.programs_of(name, limit=2, start=2 * i)]


#: Generated programs that broke a panel, written out (program_gen.seeded(seed) made each): every panel walks them.
FOUND = {
    # The Memory tab: a program of literals only has no backward, and program_memory called backward() (RuntimeError)
    5020: "t0 = maximum(0.5, 0.5)\nout = t0.sum()\n",
    # The saturation panel under the editor: softmax over every element (axis=None) raised TypeError on int(None)
    5104: ("M = randn(3, 4)\nt0 = M.mean(0)\nt1 = M.max(0, keepdims=True)\nt2 = M.max(axis=1)\n"
           "t3 = t2.softmax(axis=None)\nout = t3\n"),
    5115: "a = tensor([2.0])\nt0 = softmax(a, axis=None)\nout = t0.sum()\n",
    # The Memory tab at k = 1 and 2: a checkpointed block ended at stack's list literal (checkpoint() needs a Tensor)
    6251: ("s = 1.5\nW = randn(4, 2)\nt0 = W.log()\nt1 = 2.0 ** s\nt2 = stack([W, W], axis=0)\nt3 = W.var(axis=-1)\n"
           "out = t3\n"),
}


def all_programs() -> list[tuple[str, str]]:
    """(id, program) of the presets, the written cases, the generated programs that broke a panel and the registry's
    programs."""
    return ([(f"preset {name}", presets.program(name)) for name in presets.names()]
            + [(f"case {name}", text) for name, text in CASES.items()]
            + [(f"found seed {seed}", text) for seed, text in FOUND.items()]
            + [(f"{name} {k}", text) for k, (name, text) in enumerate(REGISTRY_PROGRAMS)])


# ----------------------------------------------------------------------------- the walk of every panel


def walk(text: str) -> int:
    """Every panel of both program pages for ``text``, as the pages build them; returns how many panels were
    built. Raises (the test fails) where a panel would show a traceback or says something untrue."""
    panels = 0
    graph, steps = program_run.step_program(text)
    analysis = check.analyse_program(text, time_budget=1.0)
    panels += explorer_graph(graph, steps, analysis)
    panels += check_panel(analysis)
    for node in graph.nodes:
        panels += inspector(text, graph, steps, node)
    panels += exports(text, graph, steps, analysis)
    panels += poke_panel(text, graph)
    panels += stepper(text)
    panels += predict(text)
    panels += forward(text)
    panels += cost_panel(text)
    panels += memory_panel(text, graph)
    panels += curvature_panel(text)
    panels += intervened_graph(text, graph)
    return panels


def explorer_graph(graph, steps, analysis) -> int:
    data = graph_data.view_data(graph, steps)
    json.dumps(data)  # sent to the browser as JSON
    assert len(data["boxes"]) == min(len(graph.nodes), graph_data.MAX_DRAWN) or any(
        b["kind"] == "chain" for b in data["boxes"].values())
    graph_data.value_texts(graph)
    assert names.graph_caption(graph, graph_data.MAX_DRAWN).startswith(words.counted(len(graph.nodes), "tensor"))
    return 1


def intervened_graph(text, graph) -> int:
    """The Explorer's graph with an intervention on a node picked at random (from the text: the same each run), of a
    kind picked so: every named box holds what intervene.run gives its name, and the box intervened on is marked."""
    from autograd.graph import order
    from language import compile_program

    result = compile_program(text).run()
    ids = {t: i for i, t in enumerate(order(result.output, result.uses))}
    named = {name: ids[t] for name, t in result.variables.items() if t in ids}
    if not named:
        return 0
    pick = random.Random(text)
    name = pick.choice(sorted(named))
    acted_on = named[name]
    # one box, several names (out = t0): it shows the intervened name's numbers, the others' are the run's own
    named = {n: i for n, i in named.items() if n == name or i != acted_on}
    kind = pick.choice(sorted(intervene.KINDS))
    item = intervene.Intervention(name, kind, intervene.KINDS[kind][3] or 0.5)
    try:
        want = intervene.run(text, [item]).variables
        boxes = intervene.on_boxes(text, [item])
    except ValueError:  # e.g. a grad hook on what needs no grad, or a constant: the graph is as written, and says so
        return 0
    drawn = intervene.drawn_graph(graph, boxes)
    for var, node_id in named.items():
        box, t = drawn.nodes[node_id], want[var]
        assert np.array_equal(box.data, t.data, equal_nan=True), (text, item, var)
        if box.requires_grad:
            assert (box.grad is None) == (t.grad is None), (text, item, var)
            assert t.grad is None or np.array_equal(box.grad, t.grad, equal_nan=True), (text, item, var)
    (mark,) = boxes.marks.values()
    assert list(boxes.marks) == [str(acted_on)] and mark["kind"] == kind and mark["name"] == name
    assert mark["badge"].endswith(intervene.badge(item))
    json.dumps(graph_data.value_texts(drawn))
    return 1


def check_panel(analysis) -> int:
    check.check_verdicts(analysis.checks)
    table = check.check_table(list(analysis.checks))
    assert [row["variable"] for row in table] == [row.name for row in analysis.checks]
    return 1


def inspector(text, graph, steps, node) -> int:
    """The node inspector's parts for one node: its choice line, rule (with its numbers), data, grad, heatmaps
    (light and dark) and its Jacobian (an op that requires grad)."""
    choice = names.node_choice(node)
    assert choice.startswith(names.node_heading(node))
    plugged = rules.plugged_of(steps, node.id)
    assert isinstance(plugged, str)
    assert program_inspector.as_table(node.data).ndim == 2
    if node.grad is not None:
        assert program_inspector.as_table(node.grad).size == np.size(node.data)
    for dark in (False, True):
        heatmap_figure(node.data, node.grad, names.node_label(node), dark=dark).to_plotly_json()
    if node.op and node.requires_grad:
        view = jacobian_view.node_jacobian(text, (), node.id)
        assert view is not None and view["title"] == names.node_heading(node)
        json.dumps(view)
        for section in view["inputs"]:  # the Jacobian's gᵀJ is the VJP's result (no untruth)
            if section["max_error"] is not None and section["gtj"] is not None:
                scale = max([1.0] + [abs(v) for v in section["vjp"] if v is not None])
                assert section["max_error"] <= 1e-9 * scale, (node.op, section["label"], section["max_error"])
    return 2


def exports(text, graph, steps, analysis) -> int:
    """DOT, SVG (where Graphviz's dot exists) and the "As Python" script, run and compared with the engine."""
    dot = graph_data.download_dot(graph, steps, {})
    assert dot.startswith("digraph")
    if HAS_DOT:
        assert "<svg" in to_svg(dot)
    script = analysis.python
    namespace: dict = {"__name__": "program"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(script, "program.py", "exec"), namespace)  # noqa: S102 - the app's own generated script
    result = evaluate(text)
    if result.output.requires_grad:
        result.output.backward()
    for name, tensor in result.variables.items():
        ran = namespace[name]
        np.testing.assert_allclose(ran.data, tensor.data, rtol=1e-12, atol=0, err_msg=f"{name}.data")
        if tensor.grad is None:
            assert ran.grad is None, name
        else:
            np.testing.assert_allclose(ran.grad, tensor.grad, rtol=1e-12, atol=1e-300, err_msg=f"{name}.grad")
    return 3 if HAS_DOT else 2


def poke_panel(text, graph) -> int:
    """The sliders, a poked run of both pages, and the pictures of the first input's grad."""
    sliders = poke.sliders(text)
    if not sliders:
        return 0
    slider = sliders[0]
    moved = slider.base + slider.step if slider.kind == "value" else 1.5
    poked = poke.normal({slider.name: moved}, sliders)
    poked_graph, poked_steps = program_run.step_program(text, poked)
    graph_data.value_texts(poked_graph)
    data = poke.pictures(text, sliders, poked, poked_graph, slider.name, None)
    json.dumps(data)
    return 1


def cost_panel(text) -> int:
    """The Forward vs reverse tab's program panel: n and m are the program's input and output sizes, the passes
    n and m (none back from an output that needs no grad), and J built both ways is one Jacobian."""
    cost = program_cost(text)
    result = evaluate(text)
    n = sum(t.data.size for t in result.inputs.values())
    m = result.output.data.size
    assert (cost.n, cost.m, cost.forward.passes) == (n, m, n), text
    assert cost.reverse.passes == (m if result.output.requires_grad else 0), text
    assert cost.forward.operations >= 0 and cost.reverse.operations >= 0
    if cost.built:
        agree = cost.max_difference <= 1e-12 * max(1.0, cost.max_entry)
        # NOTE: or a rule's 0 × inf, which each way meets in other entries (tests/explorer/program/test_mode_cost.py)
        assert agree or (cost.nonfinite and cost.max_difference == math.inf), (cost.max_difference, text)
    else:
        assert cost.note.startswith("Not built") and cost.forward.seconds is None, text
    assert 'data-testid="ad-cost"' in cost_report.cost_html(cost, "ad-cost", "the program")
    assert cost.verdict and cost_report.shape_text(cost).startswith(f"n = {n:,} input number")
    return 1


def memory_panel(text, graph) -> int:
    """The Memory tab: a saved set per op node of the graph that records a backward, a span and bytes per step for
    every box, peaks in order, and the checkpointed run (real, through autograd.checkpoint) with the same grads."""
    for every in (1, 3):
        shown = program_memory(text, (), every)
        assert shown.grads_agree, (every, text)
        assert set(shown.alive) == {str(node.id) for node in graph.nodes}, text
        assert set(shown.saves) <= set(shown.alive) and all(v >= 0 for v in shown.saves.values())
        assert all(len(line.bytes) == len(shown.labels) for line in shown.lines)
        assert shown.peak("no_grad") <= shown.peak("tape") <= shown.peak("engine"), text
        assert shown.peak("checkpointed") <= shown.peak("engine"), text
        assert all(0 <= a < b <= len(shown.labels) for a, b in shown.alive.values()) or not shown.labels
        json.dumps(payload(shown, "k"))
    return 1


def curvature_panel(text) -> int:
    """The Curvature tab along its default v and along a basis vector: a note (a non-scalar output, nothing to
    differentiate), or H·v three ways where the exact two agree and finite differences too unless a node sits on a
    kink; every text and the heatmap built."""
    from explorer.program import curvature, curvature_report

    for direction in (curvature.RANDOM, curvature.BASIS):
        c = curvature.curvature(text, direction=direction, element=1)
        if c.note:
            assert c.note.startswith(("The output has shape", "The output does not depend")), (c.note, text)
            return 1
        assert 'data-testid="curvature"' in curvature_report.curvature_html(c)
        assert curvature_report.direction_text(c) and curvature_report.agreement_text(c)
        assert c.exact_agree, (c.difference(curvature.REVERSE, curvature.FORWARD), text)
        assert c.fd_agree or c.kinks, (c.difference(curvature.REVERSE, curvature.FD), text)
        assert bool(curvature_report.kinks_text(c)) == bool(c.kinks)
        if c.hessian is not None:
            curvature_report.hessian_figure(c).to_json()
            assert curvature_report.symmetry_text(c)
            if c.eigenvalues is not None:
                assert curvature_report.eigen_text(c)
        else:
            assert c.hessian_note, text
    return 1


def stepper(text) -> int:
    """The Backward Stepper's data: every step's panel (the seed's and one per step), every step's grads,
    and the Jacobians (those past the budget asked for one by one, as the browser does)."""
    page_run = page_data.stepper_drag_run(text, ())
    graph, steps, jacobians = page_run.graph, page_run.steps, page_run.jacobians
    data = graph_data.view_data(graph, steps, stepper=True)
    if not steps:
        return 1
    data = graph_data.with_jacobians(data, jacobians)
    json.dumps(data)
    panels = data["steps"]["panels"]
    assert len(panels) == len(steps) + 1
    assert panels[0]["title"].startswith(("Step 0 of", "Seed"))
    for k, panel in enumerate(panels[1:], start=1):
        assert panel["title"].startswith(f"Step {k} of {len(steps)}")
        assert panel["formula"], panel["title"]
    for step in steps:
        rule_numbers_are_the_engine_s(step)
    later = tuple(int(node) for node, view in jacobians.items() if view == {"later": True})
    if later:
        asked = jacobian_view.step_jacobians(text, (), later)
        assert set(asked) == {str(n) for n in later}
    return len(panels)


def predict(text) -> int:
    """Predict on the Stepper (explorer/predict/check.py): each step's question, and its true prediction checked by
    Practice's rule: the engine's own numbers written out are exact, the VJP's line in the program's names exact or
    close, the shapes alone right; a prediction off by one is wrong (or, where it cannot differ, still right)."""
    from explorer.practice.written import spell
    from explorer.predict import check as predict_check

    try:
        setup, steps = predict_check.walk(text)
    except ValueError as exc:  # NOTE: what Practice cannot set up it says (e.g. a name it cannot give an answer)
        assert str(exc), text
        return 0
    asks = predict_check.asks(text)
    json.dumps(asks)
    assert len(asks) == len(steps)
    for k, step in enumerate(steps, start=1):
        assert [r["parent"] for r in asks[str(k)]["rows"]] == [setup.names[c.parent] for c in step.contributions]
        literal = tuple(spell(c.grad, {}) if np.size(c.grad) else f"zeros({', '.join(map(str, np.shape(c.grad)))})"
                        for c in step.contributions)  # (an empty literal has no shape to say: zeros(0, 3))
        result = predict_check.check_at(setup, steps, k, literal)
        assert all(r["verdict"] == "exact" or len(t) > predict_check.MAX_CHARS  # (too long to type: said so)
                   or not np.isfinite(c.grad).all()  # (a NaN has no literal in the language)
                   for r, t, c in zip(result["rows"], literal, step.contributions)), (k, result)
        written = predict_check.check_at(setup, steps, k, tuple(predict_check.written(setup, step)))
        assert all(r["verdict"] in ("exact", "close") for r in written["rows"]), (k, written)
        shapes = tuple(str(tuple(np.shape(c.grad))) for c in step.contributions)
        assert predict_check.check_at(setup, steps, k, shapes)["right"] or not step.contributions
    return len(steps)


def directions(graph) -> list[str]:
    """The directions the picker offers that the sweep takes: all ones, ones in the first input, and the last
    element of the last input."""
    inputs = [n for n in graph.nodes if n.kind in ("input", "param") and n.name]
    picked = ["ones"] + [f"input:{n.name}" for n in inputs[:1]]
    arrays = [n for n in inputs if np.size(n.data) > 1]  # the picker offers an element of these
    return picked + [f"element:{n.name}:{np.size(n.data) - 1}" for n in arrays[-1:]]


def forward(text) -> int:
    """Forward mode on both pages: the Explorer's graph of tangents and the Stepper's forward walk for each
    direction, every tangent drawn being the walk's own, and the two modes meeting on the output."""
    panels = 0
    page_run = page_data.stepper_run(text, (), "ones")
    for v in directions(page_run.graph):
        run = page_data.explorer_run(text, (), v).forward if v != "ones" else page_run.forward
        assert run.direction.text == v and not run.note, (v, run.note)
        data = graph_data.view_data(run.graph, forward=run)
        json.dumps(data)
        # a box's tangent row, or a one-row compact box's word
        drawn = re.search("> ?tangent<", data["dot"])
        assert data["mode"] == "forward" and (drawn or not run.steps and not run.tangents)
        stepper_data = graph_data.view_data(run.graph, stepper=True, forward=run)
        json.dumps(stepper_data)
        walked = stepper_data["steps"]
        assert len(walked["panels"]) == len(run.steps) + 1 and walked["count"] == len(run.steps)
        for k, (panel, step) in enumerate(zip(walked["panels"][1:], run.steps), start=1):
            assert panel["title"].startswith(f"Step {k} of {len(run.steps)}") and panel["formula"]
            assert panel["tangent"] == numbers.array_text(step.tangent)
        line = run.meeting
        finite = np.isfinite(line.forward) and np.isfinite(line.reverse)
        assert line.agree or not finite, (v, line.text)
        panels += len(walked["panels"]) + 1
    return panels


ELEMENT = re.compile(r"^d\S+?\[([\d, ]*)\] = (?:.* = (\S+)|(\S+) \(the largest .*)$")


def rule_numbers_are_the_engine_s(step) -> None:
    """The rule with the step's numbers ends each line in what the engine sent: the VJP's whole result (operands up
    to 64 elements), or the worked-out element of the grad the parent received."""
    lines = step.plugged.splitlines()
    if not lines:
        return
    if lines[0].startswith(rules.ELEMENT_NOTE_START):
        for line, c in zip(lines[1:], step.contributions):
            m = ELEMENT.match(line)
            if m is None or "is empty" in line:
                continue
            index = tuple(int(i) for i in m.group(1).split(",") if i.strip())
            want = float(np.asarray(c.grad)[index])
            shown = float(m.group(2) or m.group(3))
            assert shown == pytest.approx(want, rel=1e-3, abs=1e-9, nan_ok=True), (step.op, line, want)
        return
    assert len(lines) == len(step.contributions), (step.op, step.plugged)
    for line, c in zip(lines, step.contributions):
        assert line.rsplit(" = ", 1)[-1] == numbers.plugged_text(c.raw, operand=False), (step.op, line)


# ----------------------------------------------------------------------------- the sweep


def test_every_primitive_of_the_registry_is_swept():
    """A new primitive (or composite the language offers) is swept by existing code: each one has a program that runs
    and calls it (a composite records its primitives, so its program calls it by name)."""
    swept = {name for name, _ in REGISTRY_PROGRAMS}
    every = set(PRIMITIVES) | set(COMPOSITES)
    assert swept == every, f"no program for {every - swept}"
    for name, text in REGISTRY_PROGRAMS:
        graph, _ = program_run.step_program(text)
        assert name in {n.op for n in graph.nodes} or (name in COMPOSITES and f"{name}(" in text), (name, text)


@pytest.mark.parametrize("text", [text for _, text in all_programs()], ids=[name for name, _ in all_programs()])
def test_every_panel_of_a_program(text):
    assert walk(text) > 0


@pytest.mark.slow  # ~25 s: the generated programs through every panel
@SWEEP
@given(program_gen.programs())
def test_every_panel_of_generated_programs(text):
    assert walk(text) > 0


# ----------------------------------------------------------------------------- both pages through AppTest

#: The pages' sample: the shapes issue 17 names, and programs of the registry's that draw int data, an empty
#: tensor and a size-1 operand of a primitive of each family.
PAGE_SAMPLE = ["size-1 bias", "int labels", "label picking", "empty reductions", "row and column"]


def _page_programs() -> list[tuple[str, str]]:
    picked = [(name, CASES[name]) for name in PAGE_SAMPLE]
    for op in ("matmul", "getitem", "concat"):
        picked.append(next((f"{op} (registry)", text) for name, text in REGISTRY_PROGRAMS if name == op))
    return picked


@pytest.mark.parametrize("text", [t for _, t in _page_programs()], ids=[n for n, _ in _page_programs()])
def test_both_pages_walk_every_node_and_step(text):
    """The Explorer through AppTest: the program from a link, every node chosen in the inspector (its data and
    grad tables, the rule, the heatmap, the Jacobian), the check and the export tabs; then the Stepper at every
    step as the browser reports it."""
    from tests.support.apptest import app, no_exception, open_tab, report, view_data

    graph, steps = program_run.step_program(text)
    at = app()
    at.query_params["program"] = text
    at.run()
    no_exception(at)
    assert len(view_data(at)["boxes"]) == len(graph.nodes)
    assert at.success or at.warning or at.error, "the check's verdict under the editor"
    open_tab(at, "Gradients and check")
    assert at.table, "the check's table"
    open_tab(at, "Inspect a node")
    for node in graph.nodes:
        at.selectbox(key="explorer_node").select(node.id).run()
        no_exception(at)
        frames = [d.value.to_numpy() for d in at.dataframe]
        assert any(f.size == np.size(node.data) and np.array_equal(f.ravel(), np.ravel(node.data), equal_nan=True)
                   for f in frames), (node.id, node.op)
        assert at.get("plotly_chart"), "its heatmap"
        assert bool(at.get("bidi_component")), "the graph (and the Jacobian for an op)"
    open_tab(at, "Export")
    no_exception(at)
    assert {"DOT (Graphviz)", "As Python"} <= {b.proto.label for b in at.get("download_button")}
    open_tab(at, "Forward vs reverse")
    no_exception(at)
    assert any(s.value == program_cost(text).verdict for s in at.success), "the cost tab's verdict"
    open_tab(at, "Memory")
    no_exception(at)
    assert [e for e in at.get("bidi_component") if e.proto.component_name == "components.memory"], "its timeline"
    assert any(c.value.startswith("Peaks: this engine") for c in at.caption)
    open_tab(at, "Curvature")
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    assert any('data-testid="curvature"' in h.proto.body for h in at.get("html")) or at.info, "H·v, or why not"

    at.switch_page("pages/stepper.py").run()
    no_exception(at)
    data = view_data(at)
    assert data["steps"]["count"] == len(steps) and len(data["steps"]["panels"]) == len(steps) + 1
    for k in range(len(steps) + 1):
        report(at, step=k)
        no_exception(at)
        assert at.query_params["step"] in (str(k), [str(k)])


# ----------------------------------------------------------------------------- generated programs through the page

#: The generated programs the Explorer's issue-32 panels walk in AppTest: (seed, program), each given again by
#: program_gen.seeded(seed), so a failure's id names the program and reproduces it anywhere.
GENERATED_SEED = 3200
PAGE_GENERATED = program_gen.sample(30, seed=GENERATED_SEED) + list(FOUND.items())


def _html(at) -> str:
    return "".join(h.proto.body for h in at.get("html"))


def _page_shows_the_engine_s_backward(at, text: str) -> None:
    """With the switch on: the backward's drawing is backward_view's, every leaf's grad box the engine's grad; a
    program with no backward says so."""
    from tests.support.apptest import view_data

    result = evaluate(text)
    if not result.output.requires_grad:
        assert any("no backward pass" in i.value for i in at.info), "the switch says there is no backward"
        return
    data, own = view_data(at), backward_view.backward_view(text)
    assert data["dot"] == own["dot"] and data["orders"] == own["orders"]
    assert "order-2" in data["dot"], "the backward's own nodes"
    result.output.backward()
    bg = backward_view.layers(text)[0]
    for leaf, g in data["grads"]:
        tensor = result.inputs.get(bg.tensors[leaf].name)
        if g is None or tensor is None or str(g) not in data["boxes"]:
            continue
        assert data["boxes"][str(g)]["data"] == numbers.compact(tensor.grad), bg.tensors[leaf].name


def _second_order_by_autograd(text: str, again: str) -> dict[str, np.ndarray]:
    """Each leaf's grad of Σ grad ``again``, by autograd.grad(create_graph=True) twice (zeros where unused)."""
    fresh = evaluate(text)
    leaves = [t for t in fresh.inputs.values() if t.requires_grad]
    firsts = autograd_grad(fresh.output, leaves, create_graph=True, allow_unused=True)
    picked = [t.name for t in leaves] if again == backward_view.ALL else [again]
    terms = [g.sum() for t, g in zip(leaves, firsts) if t.name in picked and g is not None]
    total = sum(terms[1:], terms[0]) if terms else None
    if total is None or not total.requires_grad:
        return {t.name: np.zeros(t.shape) for t in leaves}
    seconds = autograd_grad(total, leaves, allow_unused=True)
    return {t.name: np.zeros(t.shape) if s is None else s.data for t, s in zip(leaves, seconds)}


def _differentiated_again(at, text: str) -> None:
    """"Differentiate again" of the first leaf's grad (a scalar output's): the third layer drawn, the table's grads
    of the grad second_order's, and those autograd.grad twice's."""
    from tests.support.apptest import no_exception, view_data

    result = evaluate(text)
    if not result.output.requires_grad or np.size(result.output.data) != 1:
        return
    choices = backward_view.choices(backward_view.layers(text)[0])
    if not choices:
        return
    again = choices[0]
    at.selectbox(key=keys.BACKWARD_AGAIN).set_value(again).run()
    no_exception(at)
    assert view_data(at)["counts"] == backward_view.backward_view(text, (), again)["counts"]
    tables = [d.value for d in at.dataframe if "grad of the grad" in d.value.columns]
    assert len(tables) == 1, "the second-order grads' table"
    second = backward_view.second_order(text, (), again)
    assert list(tables[0]["leaf"]) == [name for name, *_ in second.rows]
    assert list(tables[0]["grad of the grad"]) == [numbers.compact(value) for _, value, _, _ in second.rows]
    refs = _second_order_by_autograd(text, again)
    for name, value, _, _ in second.rows:
        np.testing.assert_allclose(value, refs[name], rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=name)


def _curvature_tab(at, text: str) -> None:
    """The Curvature tab: H·v's three hooks the panel's own, the exact two agreeing; finite differences too, or a
    warning on the tab naming the kink; or the note that says why there is no H·v."""
    from explorer.program import curvature as curv
    from tests.support.apptest import no_exception, open_tab
    from tests.support.cost_markup import hooks

    open_tab(at, "Curvature")
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    c = curv.curvature(text)
    if c.note:
        assert 'data-testid="curvature"' not in _html(at)
        assert any(i.value.startswith(("The output has shape", "The output does not depend")) for i in at.info)
        return
    found = hooks(_html(at), "curvature")
    ways = {h: np.array(json.loads(found[h]), dtype=np.float64) for h in ("hvp-reverse", "hvp-forward", "hvp-fd")}
    np.testing.assert_allclose(ways["hvp-reverse"], c.way(curv.REVERSE).value, rtol=1e-12, atol=1e-300)
    scale = max(1.0, float(np.nanmax(np.abs(ways["hvp-reverse"]), initial=0.0)))
    np.testing.assert_allclose(ways["hvp-forward"], ways["hvp-reverse"], rtol=1e-9, atol=1e-9 * scale,
                               equal_nan=True, err_msg="forward over reverse vs reverse over reverse")
    if found["agree"] != "true":
        headings = ("**Not twice differentiable here.**", "**The gradient is not the output's")
        assert c.kinks and any(w.value.startswith(headings) for w in at.warning), (
            "finite differences disagree and the tab names no kink", c.difference(curv.REVERSE, curv.FD))


def _memory_tab(at, text: str) -> None:
    """The Memory tab: its timeline sent with the peaks program_memory gives (> 0 where a tensor holds a number)."""
    from tests.support.apptest import no_exception, open_tab

    open_tab(at, "Memory")
    no_exception(at)
    shown = program_memory(text)
    (timeline,) = [e for e in at.get("bidi_component") if e.proto.component_name == "components.memory"]
    lines = {line["name"]: line for line in json.loads(timeline.proto.json)["lines"]}
    assert lines["engine"]["peak"] == shown.peak("engine")
    graph, _ = program_run.step_program(text)
    largest = max(np.asarray(n.data).nbytes for n in graph.nodes)
    assert shown.peak("engine") >= largest and (shown.peak("engine") > 0 or largest == 0)
    assert any(c.value.startswith("Peaks: this engine") for c in at.caption)


@pytest.mark.slow  # ~5 s each: five runs of the Explorer
@pytest.mark.parametrize(("seed", "text"), PAGE_GENERATED, ids=[f"seed {s}" for s, _ in PAGE_GENERATED])
def test_the_explorer_s_backward_curvature_and_memory_of_a_generated_program(seed, text):
    """A generated program (program_gen.seeded(seed)) from a link with the backward switch on: the backward drawn
    with the engine's grads, differentiated again where the output is a scalar, then the Curvature and Memory tabs;
    no exception. A failure names the program."""
    from tests.support.apptest import EXPLORER, no_exception, open_page

    with program_gen.named(seed, text):
        at = open_page(EXPLORER, {"program": text, "backward": "1"})
        no_exception(at)
        assert not at.error, [e.value for e in at.error]  # a program that runs: no panel may fail
        _page_shows_the_engine_s_backward(at, text)
        _differentiated_again(at, text)
        _curvature_tab(at, text)
        _memory_tab(at, text)
