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
from components.live_view import live_view
from components.playground import files
from components.playground import settings_form as form
from components.playground.store_status import store_status
from explorer.playground import datasets, step_graph
from explorer.playground.controller import Playground
from explorer.playground.settings import LINK_PARAMS
from explorer.words import markdown_safe

ss = st.session_state

header(
    "Training Playground",
    "Train a small neural network (our own autograd engine) on toy data and watch everything move as it learns.",
    "The decision boundary, each neuron, the weights and the gradients move as it trains. Settings are in the "
    "sidebar and in the URL.",
)
# NOTE: while playing, the live view's fragment reruns several times a second and Streamlit greys a
# running fragment's elements out (data-stale); the view would look faded all the time.
# The step graph's panel changes with every frame: on a layer of its own (will-change), its repaints stay
# its own. NOTE: without it, headless Chromium (software compositing) repainted the union of the live
# view's and the panel's changes, most of the window: 20 instead of 55-60 animation frames a second.
st.html(
    '<style>.st-key-pg_live [data-stale="true"] { opacity: 1 !important; transition: none !important; }'
    '.st-key-pg_graph_panel .gv { will-change: transform; }</style>'
)

form.restore()
if "pg" not in ss:
    link_warnings(LINK_PARAMS)
    ss.pg, ss.pg_problems = Playground.from_url(st.query_params.to_dict(), user=learner_key())
    form.load(ss.pg.config)
pg: Playground = ss.pg
store_status(pg)  # NOTE: before the widgets: a run it opens at last brings its settings into them


with st.sidebar:
    upload, task, uploaded = pg.upload, pg.task_of(ss.pg_dataset), ss.pg_dataset == datasets.UPLOADED
    st.header("Data")
    form.draw("Data", task, upload_label=f"uploaded: {upload.name}" if upload else "",
              disabled=("noise", "n") if uploaded else ())
    st.button("Regenerate", icon=":material/casino:", on_click=lambda: ss.update(pg_seed=(ss.pg_seed + 1) % 10_001),
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
say_ignored(ss.pop("pg_problems", []))
query = {k: v for k, v in pg.config.to_query().items() if not (uploaded and k in ("noise", "n"))} | {"run": pg.run_id}
if st.query_params.to_dict() != query:
    st.query_params.from_dict(query)


def _show_graph() -> None:
    try:
        ss.program = step_graph.step_program(pg.state)
        ss.pg_goto_explorer = True
    except ValueError as err:
        ss.pg_graph_error = str(err)


if ss.pop("pg_goto_explorer", False):
    st.switch_page("pages/explorer.py", query_params={"program": ss.program})

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
buttons.toggle("Replay", key="pg_replay", disabled=playing,
               help="Scrub through the frames recorded so far (boundary, network, health).")
if ss.get("pg_graph_error"):
    st.info(markdown_safe(ss.pop("pg_graph_error")))
if stopped:
    st.warning(f"Training stopped: {pg.state.diverged} Press Reset to start again.", icon=":material/warning:")


@st.fragment(run_every=pg.interval if playing else None)
def live() -> None:
    was_playing = pg.playing
    frames = pg.tick()
    if st.query_params.get("run") != pg.run_id:  # the run went on under a new id (server/run_store.py)
        st.query_params["run"] = pg.run_id
    if was_playing and not pg.playing:
        st.rerun(scope="app")  # diverged: stop the timer and show the explanation
    data = pg.view_data(frames, full=ss.pop("pg_full", False), replay=ss.get("pg_replay") and not pg.playing,
                        graph=ss.pg_graph)
    live_view(data, key="pg_view", on_need=lambda: ss.update(pg_full=True))


ss.pg_full = True  # a full run sends the layout and the points; the fragment's reruns only frames
ss.setdefault("pg_graph", True)
with st.container(key="pg_live"):
    live()

# The step graph: laid out once per network shape; while playing the live view above pushes each
# frame's numbers into it (so it is sent on full runs only, never by the fragment).
st.toggle("**This step's graph, live**", key="pg_graph",
          help="One training step on 4 fixed training points, as the engine computes it, refreshed with every "
               "frame above. Off: the server does not compute or send it.")
if ss.pg_graph:
    panel = pg.graph_panel()
    with st.container(key="pg_graph_panel"):
        st.caption(f"One training step on {panel['points']} fixed training points, as the engine computes it: X and "
                   "y are data (grey, no grad), each layer's W and b are weights (green) with their grads. Each box "
                   "shows its values as a sparkline and their range; hover one for its numbers.")
        graph_view(panel["data"], key="pg_step_graph", view=ss.get("pg_graph_view"), values=panel["values"],
                   caption=panel["caption"], on_view=lambda: ss.update(pg_graph_view=ss.pg_step_graph["view"]))

files.model_files(pg)
