"""The program pages' Streamlit parts (the Explorer and the Stepper): the editor and tabs, the cost tab, the mode
switch."""
