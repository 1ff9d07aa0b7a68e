"""The Playground's Landscape tab without Streamlit: the loss around the run's weights, its path, its curvature."""
