"""The optimiser race's room: the surfaces and runners, each step recorded, and the race's settings in a URL."""
