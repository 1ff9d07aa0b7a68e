"""Presentation without Streamlit: datasets, training runner, figures, DOT."""
