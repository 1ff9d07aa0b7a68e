"""The language says what is wrong in its own words: a program never shows Python's ("Exceeds the limit (4300
digits) ... use sys.set_int_max_str_digits()", "'float' object is not iterable")."""

import pytest

from language import ExpressionError, compile_program

PYTHON_WORDS = ("sys.set_int_max_str_digits", "Exceeds the limit", "object is not", "invalid literal", "int()",
                "unexpected keyword", "positional argument")


def _error(text: str) -> ExpressionError:
    with pytest.raises(ExpressionError) as caught:
        compile_program(text)
    return caught.value


def test_an_integer_literal_past_pythons_digit_limit_is_the_languages_huge_integer():
    error = _error("x = randn(3)\ny = " + "9" * 5000 + " * x\ny")
    assert "too large" in error.message and (error.line, error.col, error.end_col) == (2, 5, 5005)


@pytest.mark.parametrize(("call", "words"), [
    ("softmax(x, axis=10**20)", "`axis` must be a whole number, got 1e+20"),
    ("softmax(x, axis=2.5)", "`axis` must be a whole number, got 2.5"),
    ("softmax(x, axis=(0, 1.5))", "`axis` must be a whole number, got (0, 1.5)"),
    ("x.sum(1e20)", "an argument is not of the kind it takes"),
    ("x.sum(10**15)", "out of range"),
])
def test_an_axis_of_the_wrong_kind_is_said_in_the_languages_words(call, words):
    error = _error(f"x = randn(3, 4)\n{call}")
    assert words in error.message and not any(w in error.message for w in PYTHON_WORDS), error.message
