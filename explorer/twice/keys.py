"""Session-state keys of the backward-twice scene."""

TWICE_ON = "twice_on"  # the scene's switch
TWICE_ACTIONS = "twice_actions"  # the calls made so far, e.g. ("backward", "backward", "zero_grad", "backward")
TWICE_FOR = "twice_for"  # the program the calls are of: another program starts from one backward()
TWICE_GRAPH = "twice_graph"  # the scene's graph view
