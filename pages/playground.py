"""Training Playground: train a small MLP on toy data and watch it learn, live: boundary, network, health."""

import streamlit as st

from components.common.entry import through_app
from components.common.link_warnings import say_ignored

# NOTE: first, before the page's own (heavier) imports: on a fresh server's first request this
# hands over to app.py at once, so Streamlit's old pages/ mode shows for as short a time as can be.
through_app()

from components.common.layout import header
from components.common.learner import learner_key
from components.common.link_warnings import link_warnings
from components.graph_view import graph_view
from components.playground import files, landscape, step_memory
from components.playground import settings_form as form
from components.playground.live import live as live_fragment
from components.playground.store_status import store_status
from explorer.playground import datasets, keys, step_graph
from explorer.playground.controller import Playground
from explorer.playground.settings import LINK_PARAMS
from explorer.program import keys as program_keys
from explorer.words import markdown_safe

ss = st.session_state

header(
    "Training Playground",
    "Train a small neural network (our own autograd engine) on toy data and watch everything move as it learns.",
    "The decision boundary, each neuron, the weights and the gradients move as it trains. Settings are in the "
    "sidebar and in the URL.",
)
# NOTE: Streamlit greys a running fragment's elements out (data-stale): the live view would look faded while playing.
# The step graph's panel changes with every frame: on a layer of its own (will-change), its repaints stay
# its own. NOTE: without it, headless Chromium (software compositing) repainted the union of the live
# view's and the panel's changes, most of the window: 20 instead of 55-60 animation frames a second.
st.html(
    f'<style>.st-key-{keys.LIVE} [data-stale="true"] {{ opacity: 1 !important; transition: none !important; }}'
    f'.st-key-{keys.GRAPH_PANEL} .gv {{ will-change: transform; }}</style>'
)

form.restore()
if keys.PLAYGROUND not in ss:
    link_warnings(LINK_PARAMS)
    ss[keys.PLAYGROUND], ss[keys.PROBLEMS] = Playground.from_url(st.query_params.to_dict(), user=learner_key())
    form.load(ss[keys.PLAYGROUND].config)
pg: Playground = ss[keys.PLAYGROUND]
store_status(pg)  # NOTE: before the widgets: a run it opens at last brings its settings into them


with st.sidebar:
    upload, task, uploaded = pg.upload, pg.task_of(ss[keys.DATASET]), ss[keys.DATASET] == datasets.UPLOADED
    st.header("Data")
    form.draw("Data", task, upload_label=f"uploaded: {upload.name}" if upload else "",
              disabled=("noise", "n") if uploaded else ())
    st.button("Regenerate", icon=":material/casino:",
              on_click=lambda: ss.update({keys.SEED: (ss[keys.SEED] + 1) % 10_001}),
              disabled=uploaded, help="New points (and new first weights): the seed goes up by one.")
    files.upload_points(pg)
    for section in ("Network", "Training"):
        st.header(section)
        form.draw(section, task)
form.keep()

try:
    config = form.read(task)
except ValueError as err:  # a typo in a setting: the run keeps its last good settings
    st.error(markdown_safe(f"Settings problem: {err}. The run below keeps its last good settings."))
    config = pg.config
changed = pg.apply(config)
if changed:
    st.toast(f"Training restarted at step 0: {', '.join(changed)} changed. Learning rate, L2 and speed change "
             "without a restart.", icon=":material/restart_alt:")
say_ignored(ss.pop(keys.PROBLEMS, []))
query = {k: v for k, v in pg.config.to_query().items() if not (uploaded and k in ("noise", "n"))} | {"run": pg.run_id}
if st.query_params.to_dict() != query:
    st.query_params.from_dict(query)


def _show_graph() -> None:
    try:
        ss[program_keys.PROGRAM] = step_graph.step_program(pg.state)
        ss[keys.GOTO_EXPLORER] = True
    except ValueError as err:
        ss[keys.GRAPH_ERROR] = str(err)


if ss.pop(keys.GOTO_EXPLORER, False):
    st.switch_page("pages/explorer.py", query_params={"program": ss[program_keys.PROGRAM]})

playing, stopped = pg.playing, pg.state.diverged is not None
buttons = st.container(horizontal=True)  # wraps on a narrow window
if playing:
    buttons.button("Pause", icon=":material/pause:", on_click=pg.pause, type="primary")
else:
    buttons.button("Play", icon=":material/play_arrow:", on_click=pg.play, type="primary", disabled=stopped)
buttons.button("Step", icon=":material/skip_next:", on_click=pg.step_once, disabled=playing or stopped,
               help="Train one step.")
buttons.button("Reset", icon=":material/restart_alt:", on_click=pg.reset)
buttons.button("Show this step's graph", icon=":material/account_tree:", on_click=_show_graph,
               help="Open the step graph below (one training step on its 4 points) as a program in the Expression "
                    "Explorer, with the optimiser's update last.")
buttons.toggle("Replay", key=keys.REPLAY, disabled=playing,
               help="Scrub through the frames recorded so far (boundary, network, health).")
if ss.get(keys.GRAPH_ERROR):
    st.info(markdown_safe(ss.pop(keys.GRAPH_ERROR)))
if stopped:
    st.warning(f"Training stopped: {pg.state.diverged} Press Reset to start again.", icon=":material/warning:")


@st.fragment(run_every=pg.interval if playing else None)
def live() -> None:
    live_fragment(pg)


ss[keys.FULL] = True  # a full run sends the layout and the points; the fragment's reruns only frames
ss.setdefault(keys.GRAPH, True)
live_tab, landscape_tab = landscape.tabs()
with live_tab, st.container(key=keys.LIVE):
    live()
landscape.show(pg, landscape_tab)

# The step graph: laid out once per network shape; the live view pushes each frame's numbers into it (full runs only).
st.toggle("**This step's graph, live**", key=keys.GRAPH,
          help="One training step on 4 fixed training points, as the engine computes it, refreshed with every "
               "frame above. Off: the server does not compute or send it.")
if ss[keys.GRAPH]:
    panel = pg.graph_panel()
    with st.container(key=keys.GRAPH_PANEL):
        step_memory.caption_and_memory(pg, panel)
        graph_view(panel["data"], key=keys.STEP_GRAPH, options=ss.get(keys.STEP_GRAPH_OPTIONS), values=panel["values"],
                   caption=panel["caption"],
                   on_options=lambda: ss.update({keys.STEP_GRAPH_OPTIONS: ss[keys.STEP_GRAPH]["options"]}))

files.model_files(pg)
