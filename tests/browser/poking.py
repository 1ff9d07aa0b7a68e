"""Driving and reading the poke view and the Jacobian view in a real browser (shared by the Explorer's and
the Stepper's browser tests)."""

from __future__ import annotations

import numpy as np

from explorer.program import run
from explorer.program import view_data as graph_data

from .helpers import GRAPH, wait_for_idle

POKE = '[data-testid="poke"]'
JACOBIAN = '[data-testid="jacobian"]'


def slider(page, name: str):
    return page.locator(f'{POKE} [data-testid="poke-slider"][data-name="{name}"] input')


def drag(page, name: str, to: float) -> None:
    """Drag slider `name` with the mouse from its thumb to fraction `to` of its track, in small moves."""
    thumb = slider(page, name)
    thumb.scroll_into_view_if_needed()
    box = thumb.bounding_box()
    lo, hi = float(thumb.get_attribute("min")), float(thumb.get_attribute("max"))
    at = (float(thumb.input_value()) - lo) / (hi - lo)
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + 8 + at * (box["width"] - 16), y)
    page.mouse.down()
    page.mouse.move(box["x"] + 8 + to * (box["width"] - 16), y, steps=25)
    page.mouse.up()


def wait_for_answers(page, timeout: float = 30_000) -> None:
    """Until every value sent has been answered and drawn."""
    page.wait_for_function(
        """(sel) => { const p = document.querySelector(sel);
                      return p && Number(p.dataset.sent) > 0 && p.dataset.sent === p.dataset.answered; }""",
        arg=POKE, timeout=timeout,
    )


def drag_and_settle(page, name: str, to: float) -> float:
    """drag, then wait until every value sent is drawn, the URL has the poke and the page's last run is over (the
    tabs, the Stepper's steps follow the values): the slider's value then."""
    drag(page, name, to)
    wait_for_answers(page)
    page.wait_for_function("() => new URLSearchParams(location.search).get('poke') !== null")
    wait_for_idle(page)
    return float(slider(page, name).input_value())


def poke_state(page) -> dict:
    return page.evaluate(f"() => ({{...document.querySelector('{POKE}').dataset}})")


def box_texts(page) -> dict[str, str]:
    """Each box's data cell as drawn (constants draw their value without a cell)."""
    return page.evaluate(
        f"""() => Object.fromEntries([...document.querySelectorAll('{GRAPH} svg.gv-graph g[data-cell$=".d"]')].map(
            (cell) => [cell.closest('g.node').dataset.node,
                       [...cell.querySelectorAll('text')].map((t) => t.textContent).filter(Boolean).join(' ')]))"""
    )


def expected_data(program: str, poked: tuple) -> dict[str, str]:
    """Each box's data cell (not the constants'), as the engine's numbers for `poked` write it."""
    graph, _ = run.step_program(program, poked)
    return {box: " ".join(texts["d"]) for box, texts in graph_data.value_texts(graph).items()
            if graph.nodes[int(box)].kind != "const"}


def texts_outside_their_box(page) -> list[str]:
    """Texts of the graph drawn wider than the box they are in (a retext must fit)."""
    return page.evaluate(
        f"""() => {{
            const out = [];
            for (const g of document.querySelectorAll('{GRAPH} svg.gv-graph g.node')) {{
              const shape = g.querySelector(':scope > path, :scope > polygon');
              if (!shape) continue;
              const b = shape.getBBox();
              for (const t of g.querySelectorAll('text')) {{
                if (!t.textContent) continue;
                const r = t.getBBox();
                if (r.x < b.x - 1 || r.x + r.width > b.x + b.width + 1) out.push(t.textContent);
              }}
            }}
            return out;
        }}"""
    )


def tangent_geometry(page) -> dict:
    """The curve's drawn point, tangent and path (screen units of the plot's SVG)."""
    return page.evaluate(
        f"""() => {{
            const fig = document.querySelector('{POKE} [data-testid="poke-curve"]');
            const line = fig.querySelector('line.pk-tangent'), dot = fig.querySelector('circle.pk-point');
            const path = fig.querySelector('path.pk-curve').getAttribute('d');
            const points = [...path.matchAll(/[ML](-?[\\d.]+),(-?[\\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
            const n = (el, a) => Number(el.getAttribute(a));
            return {{x0: Number(fig.dataset.x0), y0: Number(fig.dataset.y0), slope: Number(fig.dataset.slope),
                     line: [n(line, 'x1'), n(line, 'y1'), n(line, 'x2'), n(line, 'y2')],
                     point: [n(dot, 'cx'), n(dot, 'cy')], curve: points}};
        }}"""
    )


def assert_tangent_touches_the_curve(geometry: dict) -> None:
    """The point lies on the drawn tangent and on the drawn curve (within a pixel)."""
    x1, y1, x2, y2 = geometry["line"]
    px, py = geometry["point"]
    on_line = y1 + (y2 - y1) * (px - x1) / (x2 - x1)
    assert abs(on_line - py) < 0.5, geometry
    xs, ys = np.array(geometry["curve"]).T
    assert xs.min() <= px <= xs.max()
    assert abs(np.interp(px, xs, ys) - py) < 1.5, (np.interp(px, xs, ys), py)


def jacobian_cells(page, root: str = JACOBIAN) -> list[np.ndarray]:
    """Each input's drawn J as a matrix (from its cells' data-v)."""
    sections = page.evaluate(
        """(root) => [...document.querySelectorAll(root + ' [data-testid="jacobian-input"]')].map((s) => ({
            rows: Number(s.dataset.shownRows), cols: Number(s.dataset.shownCols),
            cells: [...s.querySelectorAll('rect.jv-cell')].map((r) => [Number(r.dataset.r), Number(r.dataset.c),
                   r.dataset.v === 'nan' ? NaN : Number(r.dataset.v)])}))""",
        root,
    )
    matrices = []
    for s in sections:
        m = np.full((s["rows"], s["cols"]), np.nan)
        for r, c, v in s["cells"]:
            m[r, c] = v
        matrices.append(m)
    return matrices
