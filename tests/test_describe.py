"""``describe`` (xstride/_core/errors.py), the argument in every error message: an
array by its type, shape and dtype, anything else by one line of its repr."""

import numpy as np
import pytest

import xstride as xp
from xstride._core.errors import describe


class Table:
    """An object whose repr spans lines, as a pandas DataFrame's does."""

    def __repr__(self):
        return "   a  b\n0  1  2\n1  3  4"


def test_an_array_by_type_shape_and_dtype():
    assert describe(np.zeros((2, 3), np.float32)) == \
        "numpy.ndarray(shape=(2, 3), dtype=float32)"


def test_a_repr_of_several_lines_is_one_line():
    assert describe(Table()) == "Table a b 0 1 2 1 3 4"


def test_a_one_line_repr_keeps_its_blanks():
    """Only a repr of several lines is joined: the blanks of a one-line repr are the
    argument's own (a str of two spaces was shown as one, 'yes  no' as 'yes no')."""
    assert describe("yes  no") == "str 'yes  no'"
    assert describe("  ") == "str '  '"
    with pytest.raises(TypeError, match=r"^sort: argument 'stable' got str 'yes  no'; "):
        xp.sort(np.arange(3), stable="yes  no")


def test_a_long_repr_is_cut():
    text = describe(list(range(100)))
    assert text.startswith("list [0, 1, 2") and text.endswith("...") and len(text) == 65


def test_an_error_message_of_a_multiline_argument_is_one_line():
    try:
        xp.algorithms.morton_keys(Table(), [0.0], [1.0], 2)
    except TypeError as exc:
        assert "\n" not in str(exc) and "Table a b 0 1 2" in str(exc)
    else:
        raise AssertionError("morton_keys took a table")
