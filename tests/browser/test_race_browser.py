"""The Optimiser race in a real browser: Play advances every path locally (no server run per frame) to the race's
last step, the hooks say each optimiser's loss, Adam's printed arithmetic is the server's numbers, a click on the
contour moves the start point (and the URL), a diverging path says so, the dark theme colours the plot."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from explorer.numbers import fmt_number
from explorer.race import course as race
from explorer.race import setup

from .helpers import runs_finished, wait_for_idle, wait_for_rerun

pytestmark = [pytest.mark.browser, pytest.mark.slow]

RACE = '[data-testid="optimiser-race"]'


def open_race(page, app_url, query: str = "", scheme: str | None = None):
    if scheme:
        page.emulate_media(color_scheme=scheme)
    page.goto(f"{app_url}/optimiser_race{query}", wait_until="domcontentloaded")
    page.locator(f"{RACE} polyline[data-path-line]").first.wait_for(state="attached", timeout=60_000)
    wait_for_idle(page)


def steps_shown(page) -> int:
    return int(page.locator(RACE).get_attribute("data-steps"))


def drawn_paths(page) -> dict:
    """Each path's line as the overlay draws it: its number of points and its last point in the plot's units
    (read back through the contour plot's own axes)."""
    return page.evaluate(f"""() => {{
        const root = document.querySelector('{RACE}');
        const {{xaxis: xa, yaxis: ya}} = root.querySelector('.race-surface')._fullLayout;
        return Object.fromEntries(Array.from(root.querySelectorAll('polyline[data-path-line]'), (line) => {{
            const last = line.getAttribute('points').trim().split(' ').at(-1).split(',').map(Number);
            return [line.dataset.pathLine, {{n: Number(line.dataset.points),
                last: [xa.p2c(last[0] - xa._offset), ya.p2c(last[1] - ya._offset)]}}];
        }}));
    }}""")


def start_point(page) -> tuple[float, float]:
    mark = page.locator(f"{RACE} circle[data-start]")
    return float(mark.get_attribute("data-x")), float(mark.get_attribute("data-y"))


def test_play_runs_the_race_in_the_browser_and_the_hooks_say_each_loss(page, app_url):
    open_race(page, app_url, "?steps=200")
    expected = race.run_race(race.preset_race("rosenbrock", steps=200))["paths"]
    assert steps_shown(page) == 0
    assert page.locator(f"{RACE} [data-path]").evaluate_all("(rows) => rows.map((r) => r.dataset.path)") == [
        "sgd", "momentum", "adam"]
    runs = runs_finished(page)
    page.locator(f"{RACE} select").select_option("4")
    page.locator(f"{RACE} button.race-play").click()
    page.wait_for_function(f"document.querySelector('{RACE}').dataset.steps === '200'", timeout=60_000)
    assert runs_finished(page) == runs, "the browser played the race without a server run"
    losses = page.locator(f"{RACE} [data-path]").evaluate_all("(rows) => rows.map((r) => Number(r.dataset.loss))")
    assert losses == [p["loss"][-1] for p in expected]
    assert len(set(losses)) == 3
    drawn = drawn_paths(page)
    for kind, path in zip(("sgd", "momentum", "adam"), expected):
        assert drawn[kind]["n"] == 201
        # pixels to a tenth: 0.4 plot widths of 4 units over ~380 px is about 0.005 units
        assert drawn[kind]["last"] == pytest.approx([path["x"][-1], path["y"][-1]], abs=0.005)
    assert page.locator(f"{RACE} button.race-play").inner_text() == "Replay"
    assert not page.console_errors and not page.external_requests


def test_adams_arithmetic_is_printed_with_the_servers_numbers(page, app_url):
    open_race(page, app_url, "?steps=50")
    adam = race.run_race(race.preset_race("rosenbrock", steps=50))["paths"][2]
    page.locator(f'{RACE} [data-path="adam"] button').click()
    page.locator(f"{RACE} input[type=range]").evaluate(
        "(s) => { s.value = 7; s.dispatchEvent(new Event('input')); }")
    page.wait_for_function(f"document.querySelector('{RACE}').dataset.steps === '7'")
    text = page.locator(f"{RACE} .race-arith").inner_text()
    for key in ("g", "m", "sv", "step"):
        assert f"({', '.join(adam['arith'][key][6])})" in text, key
    assert "step 7 (t = 7)" in text
    # the arrows start at the point before step 7 and the step's arrow ends at step 7's point
    arrows = page.locator(f"{RACE} line[data-arrow]").evaluate_all(
        "(lines) => lines.map((l) => [l.dataset.arrow, l.dataset.from, l.dataset.to])")
    assert [key for key, _, _ in arrows] == ["g", "m", "sv", "step"]
    assert {tuple(map(float, start.split(","))) for _, start, _ in arrows} == {(adam["x"][6], adam["y"][6])}
    tip = [float(v) for v in arrows[-1][2].split(",")]
    assert tip == pytest.approx([adam["x"][7], adam["y"][7]], abs=1e-3)  # the printed step has 4 digits
    assert fmt_number(adam["loss"][7]) in page.locator(f'{RACE} [data-path="adam"]').inner_text()


def test_a_click_or_a_drag_on_the_contour_moves_the_start_and_the_url(page, app_url):
    open_race(page, app_url, "?steps=30")
    box = page.locator(f"{RACE} .race-surface .nsewdrag").first.bounding_box()
    wait_for_rerun(page, lambda: page.mouse.click(box["x"] + box["width"] * 0.75, box["y"] + box["height"] * 0.25))
    page.wait_for_function(f"() => Number(document.querySelector('{RACE} circle[data-start]').dataset.x) > 0.5")
    x, y = start_point(page)
    assert 0.8 < x < 1.2 and 1.8 < y < 2.2, (x, y)  # 3/4 across [-2, 2], 1/4 down [-1, 3]
    query = parse_qs(urlsplit(page.url).query)
    assert query["start"] == [setup.pair_text((x, y))]
    page.wait_for_function(f"document.querySelector('{RACE}').dataset.steps === '30'", timeout=60_000)
    # a drag: the start mark follows the pointer with no server run, and the race runs from where it is let go
    runs = runs_finished(page)
    page.mouse.move(box["x"] + box["width"] * 0.25, box["y"] + box["height"] * 0.75)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.4, box["y"] + box["height"] * 0.6, steps=4)
    page.mouse.move(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.5, steps=4)
    assert start_point(page) == pytest.approx((0.0, 1.0), abs=0.03)
    assert runs_finished(page) == runs, "the drag itself asks nothing of the server"
    wait_for_rerun(page, page.mouse.up)
    page.wait_for_function("() => new URLSearchParams(location.search).get('start') !== " + repr(query["start"][0]))
    x, y = setup.pair_from_text(parse_qs(urlsplit(page.url).query)["start"][0])
    assert (x, y) == pytest.approx((0.0, 1.0), abs=0.03)
    page.wait_for_function(f"document.querySelector('{RACE}').dataset.steps === '30'", timeout=60_000)


def test_a_diverging_path_stops_with_a_message(page, app_url):
    open_race(page, app_url, "?opt=sgd(lr=0.01);adam(lr=0.1)&steps=100")
    stopped = page.locator(f'{RACE} [data-path="sgd"] .race-stopped').inner_text()
    assert stopped.startswith("Stopped: diverged at step ")
    page.locator(f"{RACE} button.race-play").click()
    page.wait_for_function(f"document.querySelector('{RACE}').dataset.steps === '100'", timeout=60_000)
    sgd = page.locator(f'{RACE} [data-path="sgd"]')
    assert "(stopped)" in sgd.inner_text() and sgd.get_attribute("data-loss") not in ("nan", "")


def test_the_dark_theme_colours_the_plot(page, app_url):
    open_race(page, app_url, "?steps=10", scheme="dark")
    colours = page.evaluate(f"""() => {{
        const gd = document.querySelector('{RACE} .race-surface');
        return {{plot: gd._fullLayout.plot_bgcolor, font: gd._fullLayout.font.color}};
    }}""")
    plot = [int(v) for v in colours["plot"].split("(")[1].split(")")[0].split(",")[:3]]
    assert sum(plot) < 3 * 80, colours
    font = [int(v) for v in colours["font"].split("(")[1].split(")")[0].split(",")[:3]]
    assert sum(font) > 3 * 180, colours
