"""What the pages show, without Streamlit: one room (package) per feature, and what several rooms share at the top."""
