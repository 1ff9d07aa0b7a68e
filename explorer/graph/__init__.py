"""The graph room: a traced graph drawn as DOT and SVG, and the names its boxes go by."""
