"""The Playground's Landscape tab: the loss around the run's weights, its path, λmax against 2/lr and each training
point's gradient, recomputed on demand (a new step, other directions) and while playing every few seconds at most,
in a fragment of its own, so the live view's frames never wait for it for long.
The numbers and figures come from explorer/playground/landscape/."""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import streamlit as st

from explorer.numbers import fmt_number, fmt_percent
from explorer.playground.controller import Playground
from explorer.playground.landscape import directions as dirs
from explorer.playground.landscape import examples, figures, keys
from explorer.playground.landscape import panel as panels
from explorer.playground.landscape.curvature import OSCILLATING, Sharpness

LIVE_TAB, LANDSCAPE_TAB = "Live view", "Landscape"
REFRESH = 3.0  # seconds between recomputations while playing, at least ...
REFRESH_SHARE = 8  # ... and this many times the last computation's time (a big network refreshes more rarely)
DIRECTION_NAMES = {dirs.RANDOM: "Random (filter-normalised)", dirs.PCA: "PCA of the path"}
ss = st.session_state


@dataclass
class Kept:
    """The last panel, what it was computed for, and λmax over the steps of the run."""

    key: tuple | None = None
    panel: panels.Panel | None = None
    sharpness: Sharpness = field(default_factory=Sharpness)


def tabs():
    """The Playground's two tabs; only the open one's extras run (the live view runs in either: it trains)."""
    return st.tabs([LIVE_TAB, LANDSCAPE_TAB], key=keys.TABS, on_change="rerun")


def show(pg: Playground, tab) -> None:
    if not tab.open:
        return
    with tab:
        kept: Kept = ss.setdefault(keys.KEPT, Kept())
        seconds = kept.panel.seconds["total"] if kept.panel is not None else 0.0
        every = max(REFRESH, REFRESH_SHARE * seconds) if pg.playing else None

        @st.fragment(run_every=every)
        def body() -> None:
            _controls()
            panel = _panel(pg, kept)
            _draw(panel, kept.sharpness)

        body()


def _controls() -> None:
    ss.setdefault(keys.DIRECTIONS, dirs.RANDOM)
    ss.setdefault(keys.SEED, 0)
    ss.setdefault(keys.SIZED, True)
    row = st.container(horizontal=True, vertical_alignment="bottom")
    chosen = row.segmented_control("Directions of the plane", list(DIRECTION_NAMES), format_func=DIRECTION_NAMES.get,
                                   default=ss[keys.DIRECTIONS],
                                   help="Two random directions rescaled neuron by neuron to the weights (Li et al. "
                                        "2018), or the path's own two principal directions (PCA of the replay's "
                                        "recorded steps).")
    ss[keys.DIRECTIONS] = chosen or ss[keys.DIRECTIONS]
    row.button("New random directions", icon=":material/casino:", disabled=ss[keys.DIRECTIONS] != dirs.RANDOM,
               on_click=lambda: ss.update({keys.SEED: ss[keys.SEED] + 1}))


def _panel(pg: Playground, kept: Kept) -> panels.Panel:
    state = pg.state
    run = f"{pg.run_id}.{pg.generation}"
    want = (run, state.step, ss[keys.DIRECTIONS], ss[keys.SEED])
    if kept.key != want or kept.panel is None:
        kept.panel = panels.compute(state, ss[keys.DIRECTIONS], ss[keys.SEED])
        kept.key = want
        kept.sharpness.add(run, kept.panel.step, kept.panel.curvature.lambda_max)
    lr = float(state.optimizer.lr)
    if (lr, state.config.optimizer) != (kept.panel.lr, kept.panel.optimizer):  # changed while paused
        kept.panel = panels.with_lr(kept.panel, lr, state.config.optimizer, float(state.config.l2))
    return kept.panel


def _hooks(attrs: dict[str, str]) -> str:
    return " ".join(f'{name}="{html.escape(value)}"' for name, value in attrs.items())


def _draw(panel: panels.Panel, sharpness: Sharpness) -> None:
    tone = "off" if panel.verdict.kind == OSCILLATING else "ok"
    st.html(
        f'<div class="ad-ls ad-ls-{tone}" data-testid="landscape" {_hooks(panel.hooks())}>'
        f'<span class="ad-ls-line">{html.escape(panel.curvature_line())}</span>'
        f'<span class="ad-ls-verdict">{html.escape(panel.verdict.sentence)}</span></div>'
        "<style>.ad-ls {display: flex; flex-direction: column; gap: 0.2rem; font-size: 0.9rem; padding: 0.4rem 0.8rem;"
        " border-radius: 0.5rem; border: 1px solid var(--st-green-color, #16a34a)} "
        ".ad-ls-line {font-family: 'Source Code Pro', monospace; font-size: 0.82rem; opacity: 0.85} "
        ".ad-ls-off {border-color: var(--st-red-color, #dc2626)} "
        ".ad-ls-off .ad-ls-verdict {color: var(--st-red-text-color, #b91c1c); font-weight: 600}</style>")
    if panel.note:
        st.info(panel.note, icon=":material/info:")
    left, right = st.columns([3, 2])
    with left:
        st.plotly_chart(figures.slice_figure(panel), width="stretch")
        st.caption(f"{panel.directions_line()} {panel.path.sentence()}")
    with right:
        st.plotly_chart(figures.line_figure(panel), width="stretch")
        st.plotly_chart(figures.sharpness_figure(sharpness, panel), width="stretch")
    _per_example(panel)
    s = panel.seconds
    st.caption(f"Computed for step {panel.step} in {s['total']:.2f} s (the slice and path {s['slice']:.2f} s, λmax "
               f"{s['lambda_max']:.2f} s, per-example gradients {1000 * s['per_example']:.1f} ms); while playing, "
               f"again every {REFRESH:g} s at most. λmax over the steps is measured each time, while this tab is open.")


def _per_example(panel: panels.Panel) -> None:
    each = panel.each
    st.html(f'<div data-testid="per-example" data-count="{len(each.losses)}" hidden></div>')
    st.subheader("Each training point's gradient", divider="gray")
    sized = st.toggle("Size the points by their gradient's norm", value=ss[keys.SIZED],
                      help="Each point's own gradient, from the one backward pass (dWᵢ = δᵢ ⊗ aᵢ, BackPACK's "
                           "trick). Click a point for its pull on each layer.")
    ss[keys.SIZED] = sized
    left, right = st.columns([3, 2])
    with left:
        event = st.plotly_chart(figures.points_figure(panel, sized), key=keys.POINTS, on_select="rerun",
                                selection_mode="points", width="stretch")
    with right:
        st.plotly_chart(figures.agreement_figure(panel), width="stretch")
        points = ((event or {}).get("selection") or {}).get("points") or []  # NOTE: a dict (AttributeDictionary)
        picked = [p.get("point_index") for p in points if isinstance(p, dict) and p.get("point_index") is not None]
        picked = [int(p) for p in picked if 0 <= int(p) < len(each.losses)]
        i = picked[0] if picked else (int(each.norms.argmax()) if len(each.losses) else None)
        if i is not None:
            lines = [f"- {name}: ‖grad‖ {fmt_number(size)} ({fmt_percent(share)} of its squared norm)"
                     for name, size, share in examples.pull(each, i)]
            chosen = "the point you clicked" if picked else "the point with the largest gradient"
            st.markdown(f"**Point {i}** ({chosen}): its loss {fmt_number(float(each.losses[i]))}, its pull on each "
                        "layer:\n" + "\n".join(lines))

