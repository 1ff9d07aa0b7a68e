"""Presentation without Streamlit: DOT, explanations, datasets, the training runner, the playground controller."""
