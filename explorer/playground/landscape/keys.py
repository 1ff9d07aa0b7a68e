"""The Landscape tab's session keys, declared once: see explorer/keys.py."""

from __future__ import annotations

TABS = "pg_tabs"  # the Playground's tabs: the live view | Landscape (only the open one's extras run)
DIRECTIONS = "pg_ls_directions"  # random | pca
SEED = "pg_ls_seed"  # the random directions' seed ("New random directions" adds one)
SIZED = "pg_ls_sized"  # the training points sized by their gradients' norms, or all alike
POINTS = "pg_ls_points"  # the points' chart (a click selects a point)
KEPT = "pg_ls_kept"  # the last panel computed, what it was computed for, and λmax over the steps
