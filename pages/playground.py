"""Training Playground: train a small MLP on toy data and watch the decision boundary learn."""

import time

import streamlit as st

from components.entry import through_app
from components.live_chart import live_chart
from explorer import datasets, figures, training
from explorer.formatting import markdown_safe, short_number

through_app()

LEARNING_RATES = [0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0]
L2_VALUES = [0.0, 0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1]
BATCH_SIZES = [1, 4, 8, 16, 32, 64, 128, 0]
SPEEDS = [1, 2, 5, 10, 20, 50, 100]
REDRAW_SECONDS = 0.1  # the live view reruns at most this often while playing
TRAIN_SECONDS = 0.05  # time box for training inside one redraw
SUBFRAMES = 6  # boundary snapshots per redraw, painted one after another by the live chart
ss = st.session_state

st.title("Training Playground")
# NOTE: while playing, the live view reruns every REDRAW_SECONDS, and Streamlit greys out the elements
# of a running fragment (data-stale): thin lines and labels of the charts would look faded all the time.
st.html('<style>.st-key-pg_live [data-stale="true"] { opacity: 1 !important; transition: none !important; }</style>')
st.caption(
    "Train a small neural network (our own autograd engine) on toy data and watch its decision "
    "boundary — or fitted curve — change as it learns. Settings are in the sidebar and in the URL."
)


# ---------------------------------------------------------------- config <-> widgets / URL
def _load_widgets(config: training.TrainConfig) -> None:
    ss.pg_dataset = config.dataset
    ss.pg_noise = config.noise
    ss.pg_n = config.n
    ss.pg_split = int(round(config.test_fraction * 100))
    ss.pg_hidden = ", ".join(str(h) for h in config.hidden)
    ss.pg_activation = config.activation
    ss.pg_optimizer = config.optimizer
    ss.pg_lr = min(LEARNING_RATES, key=lambda v: abs(v - config.lr))
    ss.pg_l2 = min(L2_VALUES, key=lambda v: abs(v - config.l2))
    ss.pg_batch = config.batch_size if config.batch_size in BATCH_SIZES else 32
    ss.pg_seed = config.seed
    ss.pg_features = list(config.features)


# NOTE: Streamlit deletes a widget's state when a run does not draw the widget, as happens on
# every other page; a copy under another name brings the settings back when the user returns.
SETTINGS = (
    "pg_dataset", "pg_noise", "pg_n", "pg_split", "pg_hidden", "pg_activation", "pg_features",
    "pg_optimizer", "pg_lr", "pg_l2", "pg_batch", "pg_seed", "pg_speed", "pg_upload_task",
)
for _name in SETTINGS:
    if _name not in ss and f"_kept_{_name}" in ss:
        ss[_name] = ss[f"_kept_{_name}"]

if "pg_started" not in ss:
    ss.pg_started = True
    ss.pg_playing = False
    ss.pg_speed = 20
    url_config, problems = training.TrainConfig.from_query(dict(st.query_params))
    if url_config.dataset == datasets.UPLOADED:  # uploads do not survive a new session
        url_config, problems = training.TrainConfig(), [*problems, "the uploaded data is not in this session"]
    _load_widgets(url_config)
    ss.pg_url_problems = problems

upload = ss.get("pg_upload")


def _on_upload() -> None:
    file = ss.get("pg_file")
    ss.pg_upload_error = None
    if file is None:
        return
    task = ss.pg_upload_task
    try:
        X, y = datasets.parse_csv(file.getvalue(), task)
    except datasets.CSVError as err:
        ss.pg_upload_error = f"{file.name}: {err}"
        return
    ss.pg_upload = {"name": file.name, "task": task, "X": X, "y": y, "token": file.file_id}
    ss.pg_dataset = datasets.UPLOADED
    ss.pg_features = []


with st.sidebar:
    st.header("Data")
    names = list(datasets.DATASETS) + ([datasets.UPLOADED] if upload else [])
    if ss.pg_dataset not in names:
        ss.pg_dataset = names[0]
    st.selectbox(
        "Data set",
        names,
        key="pg_dataset",
        format_func=lambda n: f"{n} ({datasets.task_of(n)})" if n in datasets.DATASETS else f"{n}: {upload['name']}",
    )
    uploaded = ss.pg_dataset == datasets.UPLOADED
    st.slider("Noise", 0.0, 1.0, step=0.05, key="pg_noise", disabled=uploaded)
    st.slider("Points", 20, 1000, step=10, key="pg_n", disabled=uploaded)
    st.slider("Test split (%)", 0, 80, step=5, key="pg_split")
    with st.expander("Use your own points (CSV)"):
        st.radio(
            "File columns",
            ["classification", "regression"],
            key="pg_upload_task",
            horizontal=True,
            format_func=lambda t: "x1, x2, label" if t == "classification" else "x, y",
        )
        st.file_uploader("CSV file", type=["csv", "txt"], key="pg_file", on_change=_on_upload)
        if ss.get("pg_upload_error"):
            st.error(markdown_safe(ss.pg_upload_error))

    st.header("Network")
    st.text_input("Hidden layer widths", key="pg_hidden", help="Comma-separated, e.g. 8, 8 — up to 8 layers of 64.")
    st.selectbox("Activation", list(training.ACTIVATIONS), key="pg_activation")
    task = upload["task"] if uploaded else datasets.task_of(ss.pg_dataset)
    feature_names = list(training.features_for(task))
    ss.pg_features = [f for f in ss.get("pg_features", []) if f in feature_names]
    st.multiselect("Extra input features", feature_names, key="pg_features")

    st.header("Training")
    st.selectbox("Optimiser", list(training.OPTIMIZERS), key="pg_optimizer")
    st.select_slider("Learning rate", LEARNING_RATES, key="pg_lr", help="Changes take effect without a reset.")
    st.select_slider("L2 (weight decay)", L2_VALUES, key="pg_l2", help="Changes take effect without a reset.")
    st.select_slider("Batch size", BATCH_SIZES, key="pg_batch", format_func=lambda b: "full" if b == 0 else str(b))
    st.number_input("Seed", 0, 10_000, step=1, key="pg_seed")
    st.select_slider("Speed (steps per redraw)", SPEEDS, key="pg_speed")
for _name in SETTINGS:
    if _name in ss:
        ss[f"_kept_{_name}"] = ss[_name]

try:
    config = training.TrainConfig(
        dataset=ss.pg_dataset,
        noise=float(ss.pg_noise),
        n=int(ss.pg_n),
        test_fraction=ss.pg_split / 100,
        hidden=training.parse_hidden(ss.pg_hidden),
        activation=ss.pg_activation,
        optimizer=ss.pg_optimizer,
        lr=float(ss.pg_lr),
        batch_size=int(ss.pg_batch),
        l2=float(ss.pg_l2),
        seed=int(ss.pg_seed),
        features=tuple(ss.pg_features),
        task=task,
    )
except ValueError as err:
    # NOTE: a typo in a setting must not take the page away: the run keeps its last good settings.
    if "pg_state" not in ss:
        st.error(markdown_safe(f"Settings problem: {err}"))
        st.stop()
    st.error(markdown_safe(f"Settings problem: {err}. The run below keeps its last good settings."))
    config = ss.pg_state.config
    uploaded = config.dataset == datasets.UPLOADED

for problem in ss.pop("pg_url_problems", []):
    st.warning(markdown_safe(f"Ignored part of the link: {problem}."))

query = config.to_query()
if uploaded:
    query = {k: v for k, v in query.items() if k not in ("noise", "n")}
if {k: st.query_params.get(k) for k in query} != query:
    st.query_params.from_dict(query)

# ------------------------------------------------------------------------------ the run
run_key = (config.run_key(), upload["token"] if uploaded else None)
if ss.get("pg_run_key") != run_key:
    old = ss.get("pg_state") if ss.get("pg_run_key") is not None else None  # None after Reset
    data = (upload["X"], upload["y"]) if uploaded else None
    ss.pg_state = training.new_state(config, data)
    ss.pg_run_key = run_key
    if old is not None and old.step > 0:
        changed = training.changed_settings(old.config, config) or ["the data"]
        st.toast(
            f"Training restarted at step 0: {', '.join(changed)} changed. "
            "Learning rate and L2 change without a restart.",
            icon=":material/restart_alt:",
        )
state = ss.pg_state
if (state.config.lr, state.config.l2) != (config.lr, config.l2):
    training.set_hyperparameters(state, lr=config.lr, l2=config.l2)


def _play() -> None:
    ss.pg_playing = True


def _pause() -> None:
    ss.pg_playing = False


def _step() -> None:
    training.step(ss.pg_state, ss.pg_speed)


def _reset() -> None:
    ss.pg_playing = False
    ss.pg_run_key = None  # the next run builds a fresh state from the same config


def _show_graph() -> None:
    try:
        ss.program = training.one_step_program(ss.pg_state, batch=4)
    except ValueError as err:
        ss.pg_graph_error = str(err)
        return
    ss.pg_goto_explorer = True


if ss.pop("pg_goto_explorer", False):
    st.switch_page("pages/explorer.py", query_params={"program": ss.program})

playing = ss.pg_playing and state.diverged is None
buttons = st.container(horizontal=True)  # wraps on a narrow window
if playing:
    buttons.button("Pause", icon=":material/pause:", on_click=_pause, width="content", type="primary")
else:
    buttons.button(
        "Play",
        icon=":material/play_arrow:",
        on_click=_play,
        width="content",
        type="primary",
        disabled=state.diverged is not None,
    )
buttons.button(
    "Step",
    icon=":material/skip_next:",
    on_click=_step,
    width="content",
    disabled=playing or state.diverged is not None,
    help=f"Train {ss.pg_speed} steps (the speed setting)",
)
buttons.button("Reset", icon=":material/restart_alt:", on_click=_reset, width="content")
buttons.button(
    "Show this step's graph",
    icon=":material/account_tree:",
    on_click=_show_graph,
    width="content",
    help="Open one training step on 4 points as a program in the Expression Explorer.",
)
st.caption(
    f"{len(state.y_train)} train / {len(state.y_test)} test points · network {' → '.join(map(str, state.model.sizes))}"
    f" · {config.activation} · {training.LOSS_NAMES[state.loss_kind]} · {config.optimizer}. "
    + (
        "Circles are training points, diamonds test points; the shade is the model's confidence."
        if state.task == "classification"
        else "Dots are training points, diamonds test points; the black line is the model."
    )
)
if ss.get("pg_graph_error"):
    st.info(markdown_safe(ss.pop("pg_graph_error")))


# -------------------------------------------------------------------------- live view
@st.fragment(run_every=REDRAW_SECONDS if playing else None)
def live_view() -> None:
    state = ss.pg_state
    shots = []
    if ss.pg_playing and state.diverged is None:
        shots = training.train_frames(state, TRAIN_SECONDS, max_steps=ss.pg_speed, frames=SUBFRAMES)
        if state.diverged is not None:
            ss.pg_playing = False
            st.rerun(scope="app")  # stop the timer and show the explanation
    m = training.metrics(state)
    has_test = len(state.y_test) > 0
    cells = st.container(horizontal=True)  # wraps into rows on a narrow window
    cells.metric("Step", f"{m['step']:,}", width=130)
    cells.metric(
        "Steps/s",
        f"{m['steps_per_sec']:,.0f}" if m["steps_per_sec"] else "—",
        width=130,
        help="Training steps per second of compute (forward + backward + update).",
    )
    cells.metric("Train loss", short_number(m["train_loss"]), width=130)
    cells.metric("Test loss", short_number(m["test_loss"]) if has_test else "—", width=130)
    if state.task == "classification":
        cells.metric(
            "Test accuracy",
            f"{m['test_acc']:.1%}" if has_test else "—",
            width=130,
            help=f"Train accuracy: {m['train_acc']:.1%}",
        )
    caption = _caption(state, m)
    frames = [
        {"probs": shot["grid"], "step": shot["step"], "caption": _caption(state, shot["metrics"])}
        for shot in shots[:-1]
    ]
    spec = figures.state_view(state, training.prediction_grid(state), caption=caption, frames=frames)
    spec["layout"]["margin"]["t"] = 16
    chart, side = st.columns([3, 2])
    with chart:
        live_chart(figures.to_json(spec), key="boundary", height=spec["layout"]["height"])
    with side:
        live_chart(_loss_json(state), key="loss", height=spec["layout"]["height"])


def _caption(state: training.TrainState, m: dict) -> str:
    acc = "" if state.task == "regression" else f" · test accuracy {m['test_acc']:.0%}"
    name = "Fitted curve" if state.task == "regression" else "Decision boundary"
    return f"{name} · step {m['step']:,} · train loss {m['train_loss']:.3g}{acc}"


def _loss_json(state: training.TrainState) -> str:
    """The loss chart's JSON, rebuilt at most twice a second while playing (it is a full
    Plotly redraw in the browser, unlike the boundary's in-place heatmap update)."""
    cached = ss.get("pg_loss_cache")
    now = time.monotonic()
    if cached and cached[0] is state and (cached[1] == state.step or (ss.pg_playing and now - cached[2] < 0.5)):
        return cached[3]
    h = state.history
    text = figures.to_json(
        figures.loss_curves(h.steps, h.train_loss, h.test_loss if len(state.y_test) else None, height=460)
    )
    ss.pg_loss_cache = (state, state.step, now, text)
    return text


with st.container(key="pg_live"):
    live_view()

if state.diverged:
    st.warning(f"Training stopped: {state.diverged} Press Reset to start again.", icon=":material/warning:")

# ------------------------------------------------------------------------ more views
def show_replay() -> None:
    if len(state.frames) > 1:
        st.plotly_chart(
            figures.replay(
                state.frames,
                state.xs,
                state.ys,
                state.X_train,
                state.y_train,
                task=state.task,
                n_classes=state.n_classes,
            ),
            key="pg_replay",
            config={"displayModeBar": False},
        )
        st.caption(f"{len(state.frames)} recorded frames, one every {state.frame_every} steps or more.")
    else:
        st.info("Train for a few steps to record frames for the replay.")


def show_network() -> None:
    st.plotly_chart(
        figures.network_diagram(training.weights(state), state.input_names, state.output_names),
        key="pg_network",
        config={"displayModeBar": False},
    )


def show_neurons() -> None:
    if state.task == "regression":
        st.info("Per-neuron pictures are drawn for the 2-D classification data sets.")
    elif sum(state.config.hidden) > 64:
        st.info("Per-neuron pictures are drawn for networks with at most 64 hidden neurons.")
    elif not state.config.hidden:
        st.info("This network has no hidden layer.")
    else:
        st.plotly_chart(
            figures.neuron_heatmaps(state.xs, state.ys, training.hidden_activations(state)),
            key="pg_neurons",
            config={"displayModeBar": False},
        )


def show_curves() -> None:
    h = state.history
    left, right = st.columns(2)
    if state.task == "classification":
        left.plotly_chart(
            figures.accuracy_curves(h.steps, h.train_acc, h.test_acc if len(state.y_test) else None),
            key="pg_acc",
            config={"displayModeBar": False},
        )
    else:
        left.info("Accuracy applies to classification; the loss curve above is the regression metric.")
    names = [f"W{i + 1}" for i in range(len(state.linears()))]
    right.plotly_chart(
        figures.gradient_norms(h.steps, h.grad_norms, names), key="pg_grad", config={"displayModeBar": False}
    )


def show_data() -> None:
    X_all, y_all = training.all_points(state)
    st.download_button(
        "Download these points (CSV)",
        datasets.to_csv(X_all, y_all, state.task),
        file_name=f"{config.dataset.replace(' ', '_')}.csv",
        mime="text/csv",
        icon=":material/download:",
    )
    st.caption(
        "Upload your own points from the sidebar: columns x1, x2, label (classification) or x, y (regression)."
    )


if playing:
    # NOTE: the heavy views are left out while the live chart animates: fewer DOM nodes and charts
    # keep the browser's main thread free for the redraws.
    st.info("Replay, network, per-neuron pictures, accuracy and gradient curves appear when you pause.")
else:
    # NOTE: only the open tab runs (on_change="rerun"): a Step does not rebuild and resend five figures.
    # The choice is also kept in pg_tab_shown: Streamlit drops the widget's state while Play hides it.
    if "pg_tab" not in ss and "pg_tab_shown" in ss:
        ss.pg_tab = ss.pg_tab_shown
    tabs = st.tabs(
        ["Replay", "Network", "Neurons", "Accuracy & gradients", "Data"], key="pg_tab", on_change="rerun"
    )
    ss.pg_tab_shown = ss.pg_tab
    for tab, show in zip(tabs, (show_replay, show_network, show_neurons, show_curves, show_data)):
        if tab.open:
            with tab:
                show()
