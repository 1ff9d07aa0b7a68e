"""Regexes over the DOT text the graph view draws: node, edge and tag lines."""

import re

NODE_LINE = re.compile(r"^\s*(n\d+|notice) \[label=", re.M)
EDGE_LINE = re.compile(r"^\s*(n\d+|notice) -> (n\d+)", re.M)
TAG_LINE = re.compile(r"^\s*(t\d+_\d+|tn\d+) \[label=\"([^\"]*)\", id=\"([^\"]*)\"", re.M)
TAG_EDGE = re.compile(r"^\s*(t\d+_\d+|tn\d+) -> n(\d+) \[id=\"(e\d+\.\d+|en\d+)\"", re.M)


def node_lines(dot: str) -> dict[str, str]:
    """DOT node id -> its whole line."""
    return {m.group(1): dot[m.start() : dot.index("\n", m.start())] for m in NODE_LINE.finditer(dot)}
