"""The initialisation and depth lab's tests (explorer/depth_lab/)."""
