"""``round``'s ``decimals`` (NumPy's extension) checked at the call, naming it, on the
NumPy and dask backends (``xstride/_backends/round_checks.py``)."""

import numpy as np
import pytest

import xstride as xp
from tests._two_backends import on_backend


def _on(backend, a):
    return on_backend(backend, np.asarray(a), chunks=1)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("decimals", [1.5, "1", None, True, np.float64(2.0)])
def test_round_refuses_decimals_of_no_int_at_the_call(backend, decimals):
    """NumPy's said "'float' object cannot be interpreted as an integer" (no argument
    named, a bool taken as 1); dask's took any decimals and raised that only when the
    result was computed."""
    x = _on(backend, [1.26, -2.71])
    with pytest.raises(TypeError, match=r"^round: argument 'decimals' got .*; expected an "
                                        r"int \(the number of decimals\)$"):
        xp.round(x, decimals=decimals)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("decimals", [2**31, -2**31 - 1, 2**70])
def test_round_refuses_decimals_past_a_c_int(backend, decimals):
    x = _on(backend, [1.26, -2.71])
    with pytest.raises(OverflowError, match=rf"^round: argument 'decimals' is {decimals}, "
                                            "outside the C int"):
        xp.round(x, decimals=decimals)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("decimals", [1, np.int8(1)])
def test_round_takes_int_decimals(backend, decimals):
    x = _on(backend, [1.26, -2.71])
    assert xp.to_numpy(xp.round(x, decimals=decimals)).tolist() == [1.3, -2.7]
    got = xp.round(_on(backend, np.array([1234, -5678], np.int32)), decimals=-2)
    assert xp.to_numpy(got).dtype == np.int32
    assert xp.to_numpy(got).tolist() == [1200, -5700]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("decimals", [1.5, "1", None, True, np.float64(2.0)])
def test_round_refuses_positional_decimals_of_no_int(backend, decimals):
    """By position as by keyword: NumPy's fast path handed a positional decimals to
    np.round unchecked (True rounded to 1 decimal where dask's refused it)."""
    x = _on(backend, [1.26, -2.71])
    with pytest.raises(TypeError, match=r"^round: argument 'decimals' got .*; expected an "
                                        r"int \(the number of decimals\)$"):
        xp.round(x, decimals)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_round_positional_decimals_past_a_c_int_and_ints(backend):
    x = _on(backend, [1.26, -2.71])
    with pytest.raises(OverflowError, match=r"^round: argument 'decimals' is 2147483648, "
                                            "outside the C int"):
        xp.round(x, 2**31)
    assert xp.to_numpy(xp.round(x, np.int8(1))).tolist() == [1.3, -2.7]
    assert xp.to_numpy(xp.round(x, 1)).tolist() == [1.3, -2.7]
    with pytest.raises(TypeError, match=r"^round: round\(\) takes 2 positional arguments "
                                        r"but 3 were given"):
        xp.round(x, 1, None)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_round_of_bools_is_numpy_s_float16_and_its_dtype_says_so(backend):
    """A new-user probe: dask's array of ``round(bools)`` said bool and computed NumPy's
    float16; with decimals, dask raised NumPy's error only when computed."""
    pytest.importorskip("dask.array")
    with xp.use_backend(backend):
        x = xp.asarray([True, False, True])
        got = xp.round(x)
        assert got.dtype == np.float16
        values = xp.to_numpy(got)
        assert values.dtype == np.float16 and values.tolist() == [1.0, 0.0, 1.0]
        with pytest.raises(TypeError, match="^round: Cannot cast ufunc"):
            xp.round(x, decimals=1)   # raised at the call, as NumPy's
