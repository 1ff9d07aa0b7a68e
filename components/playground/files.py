"""The Training Playground's files: your own points from a CSV, and the model downloaded, loaded back or
rebuilt as a Python script (explorer.playground.datasets and explorer.playground.model_files make and read them)."""

from __future__ import annotations

import streamlit as st

from components.playground import settings_form as form
from explorer.playground import datasets, keys, training
from explorer.playground import model_files as model_io
from explorer.words import markdown_safe

ss = st.session_state
# explorer.playground.datasets.parse_csv numbers the distinct labels in order; said beside the upload, not done silently
LABELS_NOTE = ("Labels may be any whole numbers: the distinct ones become classes 0, 1, 2, … in increasing order "
               "(labels 0, 5, 10 are shown as classes 0, 1, 2).")


def upload_points(pg) -> None:
    """An expander with a CSV uploader: its points replace the data set (its errors are said under it)."""

    def uploaded() -> None:
        file = ss.get(keys.FILE)
        ss[keys.UPLOAD_ERROR] = file and pg.use_upload(file.name, file.getvalue(), ss[keys.UPLOAD_TASK], file.file_id)
        if file and not ss[keys.UPLOAD_ERROR]:
            ss[keys.DATASET] = datasets.UPLOADED

    with st.expander("Use your own points (CSV)"):
        st.radio("File columns", ["classification", "regression"], key=keys.UPLOAD_TASK, horizontal=True,
                 format_func=lambda t: "x1, x2, label" if t == "classification" else "x, y")
        st.file_uploader("CSV file", type=["csv", "txt"], key=keys.FILE, on_change=uploaded)
        if ss.get(keys.UPLOAD_TASK, "classification") == "classification":
            st.caption(LABELS_NOTE)
        if ss.get(keys.UPLOAD_ERROR):
            st.error(markdown_safe(ss[keys.UPLOAD_ERROR]))


def model_files(pg) -> None:
    """An expander to download the model (JSON, NPZ, a Python script, the points) or load one back."""

    def loaded() -> None:
        file = ss.get(keys.MODEL_FILE)
        ss[keys.MODEL_ERROR] = file and pg.load_model(file.name, file.getvalue())
        if file and not ss[keys.MODEL_ERROR]:
            form.load(pg.config)

    with st.expander("Weights and data: download, load, rebuild in Python", icon=":material/download:"):
        # NOTE: the files are made when a button is pressed (a callable `data`), not on every run.
        stem, columns = model_io.file_stem(pg.state), st.columns(4)
        columns[0].download_button("Model (.json)", lambda: model_io.to_json(pg.state), f"{stem}.json",
                                   "application/json", on_click="ignore",
                                   help="Settings, data and every weight, readable.")
        columns[1].download_button("Weights (.npz)", lambda: model_io.to_npz(pg.state), f"{stem}.npz",
                                   on_click="ignore", help="NumPy arrays: weights, biases and the optimiser's state.")
        script = f"{stem}.py"
        columns[2].download_button("Python script", lambda: model_io.to_script(pg.state, filename=script), script,
                                   "text/x-python", on_click="ignore",
                                   help="Rebuilds the data and the network; trains them with autograd.")
        columns[3].download_button("Points (.csv)",
                                   lambda: datasets.to_csv(*training.all_points(pg.state), pg.state.task),
                                   f"{stem}_points.csv", "text/csv", on_click="ignore")
        st.file_uploader("Load a downloaded model (.json or .npz) to continue or inspect it", type=["json", "npz"],
                         key=keys.MODEL_FILE, on_change=loaded)
        if ss.get(keys.MODEL_ERROR):
            st.error(markdown_safe(ss[keys.MODEL_ERROR]))
