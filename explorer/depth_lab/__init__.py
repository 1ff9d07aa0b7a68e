"""The initialisation and depth lab's room: a deep MLP at step 0, layer by layer, and its pictures."""
