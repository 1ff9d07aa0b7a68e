"""The Stepper's backward-twice scene, as Streamlit (scene.py)."""
