"""Streamlit components: small browser views that keep their DOM and update in place.

The only Streamlit code outside app.py and pages/; explorer/ stays free of Streamlit.
"""
