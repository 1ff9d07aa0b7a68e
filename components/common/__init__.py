"""The Streamlit glue every page shares: the entry check, the header, sandboxed evaluations, the learner's key,
link warnings, served files and the private Streamlit names."""
