"""Deployment: serving one class from several Streamlit processes behind HAProxy."""
