"""The graph room's tests (explorer/graph/): DOT drawing and what the graph view is sent."""
