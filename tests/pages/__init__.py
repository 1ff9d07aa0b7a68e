"""The pages through Streamlit's AppTest (pages/, app.py)."""
