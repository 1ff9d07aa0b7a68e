"""The Training Playground's Streamlit parts: the settings form and the files (CSV points, model down and up)."""
