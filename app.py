"""Autograd Explorer: the entry point that routes to the three pages."""

import streamlit as st

st.set_page_config(page_title="Autograd Explorer", layout="wide")

pages = [
    st.Page("pages/explorer.py", title="Expression Explorer", icon=":material/functions:", default=True),
    st.Page("pages/stepper.py", title="Backward Stepper", icon=":material/step_over:", url_path="stepper"),
    st.Page(
        "pages/playground.py", title="Training Playground", icon=":material/model_training:", url_path="playground"
    ),
]
st.navigation(pages).run()
