"""Data sets: shapes, labels, determinism, split, CSV round trip and CSV errors with line numbers."""

import numpy as np
import pytest

from explorer.playground import datasets


@pytest.mark.parametrize("name", list(datasets.CLASSIFICATION))
def test_classification_shapes_and_labels(name):
    X, y = datasets.generate(name, 201, 0.1, seed=3)
    assert X.shape == (201, 2) and X.dtype == np.float64
    assert y.shape == (201,) and y.dtype.kind == "i"
    classes = np.unique(y)
    expected = 3 if name == "three blobs" else 2
    assert classes.tolist() == list(range(expected)), name
    counts = np.bincount(y)
    if name == "xor":  # labels come from the quadrant of uniform points
        assert counts.min() > 0.35 * len(y), f"xor: classes unbalanced {counts}"
    else:
        assert counts.max() - counts.min() <= 1, f"{name}: classes unbalanced {counts}"
    assert np.all(np.abs(X) < 4), f"{name}: points far outside the plotting box"


@pytest.mark.parametrize("name", list(datasets.REGRESSION))
def test_regression_shapes(name):
    X, y = datasets.generate(name, 150, 0.1, seed=0)
    assert X.shape == (150, 1) and y.shape == (150,) and y.dtype == np.float64
    assert datasets.task_of(name) == "regression"


@pytest.mark.parametrize("name", list(datasets.DATASETS))
def test_deterministic_for_a_seed(name):
    X1, y1 = datasets.generate(name, 100, 0.2, seed=7)
    X2, y2 = datasets.generate(name, 100, 0.2, seed=7)
    X3, _ = datasets.generate(name, 100, 0.2, seed=8)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert not np.array_equal(X1, X3), f"{name}: a different seed gave the same points"


def test_noise_zero_sine_is_exact():
    X, y = datasets.generate("sine", 50, 0.0, seed=1)
    np.testing.assert_allclose(y, np.sin(X[:, 0]))


def test_xor_labels_follow_quadrants_without_noise():
    X, y = datasets.generate("xor", 300, 0.0, seed=2)
    np.testing.assert_array_equal(y, ((X[:, 0] > 0) != (X[:, 1] > 0)).astype(int))


def test_unknown_name_and_tiny_n():
    with pytest.raises(KeyError, match="unknown data set"):
        datasets.generate("nope", 10, 0.1, 0)
    with pytest.raises(ValueError, match="at least 4"):
        datasets.generate("xor", 2, 0.1, 0)


def test_split_sizes_disjoint_and_deterministic():
    X, y = datasets.generate("two moons", 100, 0.1, 0)
    s = datasets.train_test_split(X, y, 0.3, seed=5)
    assert len(s.y_train) == 70 and len(s.y_test) == 30
    rows = {tuple(r) for r in np.vstack([s.X_train, s.X_test])}
    assert len(rows) == 100
    s2 = datasets.train_test_split(X, y, 0.3, seed=5)
    np.testing.assert_array_equal(s.X_test, s2.X_test)
    assert len(datasets.train_test_split(X, y, 0.0, seed=5).y_test) == 0
    with pytest.raises(ValueError):
        datasets.train_test_split(X, y, 1.0, seed=5)


@pytest.mark.parametrize("task,name", [("classification", "three blobs"), ("regression", "noisy cubic")])
def test_csv_round_trip(task, name):
    X, y = datasets.generate(name, 40, 0.1, 0)
    text = datasets.to_csv(X, y, task)
    assert text.splitlines()[0] == ",".join(datasets.HEADERS[task])
    X2, y2 = datasets.parse_csv(text, task)
    np.testing.assert_allclose(X2, X, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y2, y, rtol=1e-5, atol=1e-6)


def test_csv_without_header_bytes_and_relabelled_classes():
    text = b"\xef\xbb\xbf1,2,-1\n3,4,1\n5,6,-1\n\n7,8,1\n"
    X, y = datasets.parse_csv(text, "classification")
    assert X.shape == (4, 2)
    assert y.tolist() == [0, 1, 0, 1]


@pytest.mark.parametrize(
    "text,line,words",
    [
        ("x1,x2,label\n1,2,0\n3,oops,1\n", 3, "x2 is 'oops'"),
        ("x1,x2,label\n1,2,0\n3,4\n", 3, "expected 3 values"),
        ("a,b,c\n1,2,0\n", 1, "header"),
        ("1,2,0\n1,2,0.5\n", 2, "whole numbers"),
        ("1,2,0\n2,3,1\n1,nan,0\n", 3, "finite"),
    ],
)
def test_csv_errors_name_the_line(text, line, words):
    with pytest.raises(datasets.CSVError) as info:
        datasets.parse_csv(text, "classification")
    assert info.value.line == line
    assert f"line {line}:" in str(info.value)
    assert words in str(info.value)


def test_csv_whole_file_errors():
    with pytest.raises(datasets.CSVError, match="at least 4 points"):
        datasets.parse_csv("x,y\n1,2\n", "regression")
    with pytest.raises(datasets.CSVError, match="two classes"):
        datasets.parse_csv("1,1,0\n2,2,0\n3,3,0\n4,4,0\n", "classification")
    with pytest.raises(datasets.CSVError, match="not UTF-8"):
        datasets.parse_csv(b"\xff\xfe\x00bad", "regression")
    with pytest.raises(datasets.CSVError, match="line 2: expected 2 values"):
        datasets.parse_csv("x,y\n1,2,3\n", "regression")


def test_a_field_over_the_csv_limit_is_a_message_not_a_traceback():
    text = "x1,x2,label\n1,2,0\n" + "9" * 140_000 + ",1,0\n3,4,1\n"
    with pytest.raises(datasets.CSVError) as info:
        datasets.parse_csv(text, "classification")
    assert info.value.line == 3 and "not readable as CSV" in str(info.value)
    assert len(str(info.value)) < 200


@pytest.mark.parametrize(
    ("rows", "says"),
    [
        (["1e308,0,0", "-1e308,1,1", "0,0,0", "1,1,1"], "the x1 values reach 1e308"),
        (["0,1e301,0", "1,0,1", "0,0,0", "1,1,1"], "the x2 values reach 1e301"),
        (["1e-320,0,0", "0,1,1", "0,0,0", "0,1,1"], "the x1 values differ by only 1e-320"),
        (["0,1e-310,0", "1,0,1", "0,0,0", "1,0,1"], "the x2 values differ by only"),
    ],
)
def test_coordinates_whose_scale_is_not_a_normal_float_are_refused(rows, says):
    with pytest.raises(datasets.CSVError, match="rescale") as info:
        datasets.parse_csv("\n".join(rows), "classification")
    assert says in str(info.value)


def test_a_regression_target_with_an_overflowing_spread_is_refused_and_a_constant_column_is_fine():
    with pytest.raises(datasets.CSVError, match="the y values reach"):
        datasets.parse_csv("0,1e308\n1,-1e308\n2,0\n3,0\n", "regression")
    X, y = datasets.parse_csv("5,0,0\n5,1,1\n5,2,0\n5,3,1\n", "classification")
    assert X[:, 0].tolist() == [5, 5, 5, 5]


def test_a_long_value_is_quoted_short():
    with pytest.raises(datasets.CSVError) as info:
        datasets.parse_csv("x1,x2,label\n1," + "z" * 5000 + ",0\n", "classification")
    assert "…" in str(info.value) and len(str(info.value)) < 200


@pytest.mark.parametrize("ending", ["\r", "\r\n", "\n"])
def test_csv_with_any_line_ending_is_read(ending):
    """Issue 23 item 6: a file with old Macs' CR-only line endings was refused in the csv module's words."""
    text = ending.join(["x1,x2,label", "1,2,0", "3,4,1", "5,6,0", "7,8,1"]) + ending
    X, y = datasets.parse_csv(text.encode(), "classification")
    assert X.tolist() == [[1, 2], [3, 4], [5, 6], [7, 8]] and y.tolist() == [0, 1, 0, 1]
    with pytest.raises(datasets.CSVError) as info:
        datasets.parse_csv(ending.join(["x1,x2,label", "1,2,0", "3,x,1"]), "classification")
    assert info.value.line == 3, "line numbers count the file's own lines"


def test_a_file_over_the_size_limit_is_refused_before_it_is_read():
    text = b"\n" * (datasets.MAX_CSV_BYTES + 1)  # blank lines: a reader would skip them one by one
    with pytest.raises(datasets.CSVError, match=r"the file is 1.0 MB; a points file may be at most 1 MB") as info:
        datasets.parse_csv(text, "regression")
    assert info.value.line == 0
