"""copy_into of Python numbers into a NumPy string array: ``numpy.copyto``'s answer."""

import numpy as np
import pytest

import xstride as xp


@pytest.mark.parametrize("dtype", ["U2", "S3"])
@pytest.mark.parametrize("src", [0, -1, 300, 2**40, 1.5, float("nan"), 1j, True])
def test_copy_into_a_string_array_writes_a_python_numbers_text(dtype, src):
    """A new-user probe: ``copy_into(np.zeros(2, "U2"), 0)`` raised "cannot copy a Python
    int into dst of dtype <U2" (NumPy has no common dtype of a number and a string),
    where ``numpy.copyto``, which copy_into is on NumPy, writes the number's text, as
    copy_into already did for a str."""
    got, want = np.zeros(2, dtype), np.zeros(2, dtype)
    np.copyto(want, src, casting="same_kind")
    assert xp.copy_into(got, src) is got
    assert got.tolist() == want.tolist()


def test_copy_into_a_string_array_refuses_what_copyto_refuses():
    """An int past 64 bits is an object to NumPy, which copyto refuses (TypeError)."""
    with pytest.raises(TypeError):
        np.copyto(np.zeros(2, "U2"), 2**70, casting="same_kind")
    with pytest.raises(TypeError, match="copy_into: argument 'src'"):
        xp.copy_into(np.zeros(2, "U2"), 2**70)


def test_copy_into_a_record_array_still_refuses_a_number():
    with pytest.raises(TypeError, match="copy_into: cannot copy a Python int into dst"):
        xp.copy_into(np.zeros(2, [("a", "i4")]), 0)
