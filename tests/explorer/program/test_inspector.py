"""What the node inspector shows of a node (explorer/program/inspector.py): bounded tables, summaries and heatmaps
whatever the tensor's size (issue 23 item 2: a 1-D tensor of 1,000,000 numbers became a 1 x 1,000,000 table)."""

import json

import numpy as np
import pytest

from explorer.program import inspector
from explorer.program.inspector import (
    HEATMAP_CELLS,
    PREVIEW_COLS,
    PREVIEW_ROWS,
    binned,
    heatmap_figure,
    inspect_node,
    preview,
)

LONG = "x = randn(1000000)\ny = x.relu().sum()\n"


def test_a_long_vector_is_a_column_of_its_first_numbers_with_a_summary_of_all():
    x = np.arange(1_000_000, dtype=np.float64) - 500_000
    shown = preview(x)
    assert shown.table.shape == (PREVIEW_ROWS, 1), "one column of the first numbers, not one row of a million"
    assert np.array_equal(shown.table[:, 0], x[:PREVIEW_ROWS])
    assert shown.summary.startswith("1,000,000 numbers: mean -0.5, min -5e5, max 5e5")
    assert shown.note == f"Showing the first {PREVIEW_ROWS} of 1,000,000 rows."
    assert shown.table.base is None, "a copy: the preview does not keep the whole array alive"


def test_small_arrays_are_shown_whole_as_before():
    assert preview(np.arange(4.0)).table.shape == (1, 4) and preview(np.arange(4.0)).note == ""
    assert preview(np.float64(3.0)).table.shape == (1, 1) and preview(np.float64(3.0)).summary.startswith("1 number:")
    assert preview(np.ones((3, 4))).table.shape == (3, 4)


def test_a_large_matrix_shows_its_top_left_corner_and_says_so():
    m = np.arange(1000 * 200, dtype=np.float64).reshape(1000, 200)
    shown = preview(m)
    assert np.array_equal(shown.table, m[:PREVIEW_ROWS, :PREVIEW_COLS])
    assert shown.note == f"Showing the first {PREVIEW_ROWS} of 1,000 rows and the first {PREVIEW_COLS} of 200 columns."
    cube = preview(np.zeros((300, 2, 5)))
    assert cube.table.shape == (PREVIEW_ROWS, 5) and "first 2 axes of shape (300, 2, 5)" in cube.note


def test_binned_cells_are_the_means_of_their_blocks():
    table = np.arange(6 * 7, dtype=np.float64).reshape(6, 7)
    means, rows, cols = binned(table, (2, 3))
    assert list(rows) == [0, 3] and list(cols) == [0, 2, 4]
    expected = [[table[r:r + 3, c:c + w].mean() for c, w in ((0, 2), (2, 2), (4, 3))] for r in (0, 3)]
    assert np.allclose(means, expected)
    same, rows, cols = binned(np.ones((2, 3)), (2, 3))
    assert same.shape == (2, 3) and list(cols) == [0, 1, 2]


@pytest.mark.parametrize("shape", [(1_000_000,), (1000, 1000), (200_000,), (7, 3)])
def test_a_heatmap_has_at_most_its_cells_whatever_the_size(shape):
    data = np.random.default_rng(0).standard_normal(shape)
    fig = heatmap_figure(data, data * 2, "t")
    for trace in fig.data:
        z = np.asarray(trace.z)
        assert z.shape[0] <= HEATMAP_CELLS[0] and z.shape[1] <= HEATMAP_CELLS[1]
    assert len(fig.to_json()) < 150_000
    whole = np.asarray(fig.data[0].z).size == data.size
    assert whole == (data.size <= 100), "small arrays are drawn cell for cell, large ones as block means"
    if not whole:
        assert "each cell the mean of up to" in fig.layout.title.text and "mean =" in fig.data[0].hovertemplate


def test_inspect_node_runs_the_program_and_bounds_what_the_page_gets():
    inspection = inspect_node(LONG, (), 1)  # relu of a 1,000,000-number vector
    assert inspection.data.table.shape == (PREVIEW_ROWS, 1) and inspection.grad.table.shape == (PREVIEW_ROWS, 1)
    assert "1,000,000 numbers" in inspection.data.summary and inspection.data.note
    assert len(json.dumps(inspection.figure.to_plotly_json(), default=list)) < 150_000
    assert inspect_node(LONG, (), 99) is None
    assert inspector.inspect_node("a = [1.0, 2.0]\nb = (a * a).sum()\n", (), 0).grad.table.tolist() == [[2.0, 4.0]]


def test_an_empty_tensor_is_an_empty_table():
    from explorer.program.inspector import as_table

    assert as_table(np.zeros((3, 0)).T).shape == (0, 3) and as_table(np.zeros((2, 0, 4))).shape == (0, 4)
