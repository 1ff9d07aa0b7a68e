"""Autograd Explorer: the entry point that routes to the three pages in app_pages/."""

from pathlib import Path

import streamlit as st

# NOTE: the pages live in app_pages/, not pages/: with a folder named pages/ beside the entry point,
# Streamlit runs a link straight to a page in its old multipage mode (file names in the sidebar).
# The favicon is a local file: a Material page icon would make the browser fetch one from the internet.
FAVICON = str(Path(__file__).parent / "static" / "favicon.png")

st.set_page_config(page_title="Autograd Explorer", page_icon=FAVICON, layout="wide")

pages = [
    st.Page(
        "app_pages/expression_explorer.py", title="Expression Explorer", icon=":material/functions:", default=True
    ),
    st.Page(
        "app_pages/backward_stepper.py", title="Backward Stepper", icon=":material/step_over:", url_path="stepper"
    ),
    st.Page(
        "app_pages/training_playground.py",
        title="Training Playground",
        icon=":material/model_training:",
        url_path="playground",
    ),
]
st.navigation(pages).run()
