"""On/off environment switches (``xstride/_core/settings.py``): one reading for
``XSTRIDE_LOG_KERNELS`` and ``XSTRIDE_CUDA_DEBUG``; a misspelt value is an error."""

from __future__ import annotations

import pytest

from xstride._core.errors import SettingError
from xstride._core.settings import env_flag
from xstride._kernels import _compile_log
from xstride.cuda.kernel import debug_from_env


@pytest.mark.parametrize("value, on", [("1", True), (" On ", True), ("yes", True),
                                       ("TRUE", True), ("", False), ("0", False),
                                       ("off", False), (" No", False), ("false", False)])
def test_on_and_off_values(monkeypatch, value, on):
    monkeypatch.setenv("XSTRIDE_CUDA_DEBUG", value)
    monkeypatch.setenv("XSTRIDE_LOG_KERNELS", value)
    assert debug_from_env() is on
    assert _compile_log.log_enabled() is on
    assert env_flag("XSTRIDE_TEST_FLAG", "x") is False   # unset


@pytest.mark.parametrize("name, read", [("XSTRIDE_CUDA_DEBUG", debug_from_env),
                                        ("XSTRIDE_LOG_KERNELS", _compile_log.log_enabled)])
@pytest.mark.parametrize("value", ["maybe", "2", "enable", "1 0"])
def test_a_value_neither_on_nor_off_is_an_error_naming_the_variable(monkeypatch, name, read,
                                                                   value):
    monkeypatch.setenv(name, value)
    # every value it takes is named (the message said "1 (...) or 0" alone, where
    # true/yes/on and false/no/off are taken too: a new-user probe)
    with pytest.raises(SettingError, match=rf"^environment variable {name}='{value}': "
                                           r"expected 1, true, yes or on \(.+\), or 0, false, "
                                           r"no or off \(case-insensitive; unset or empty: "
                                           r"off\)$"):
        read()
    assert issubclass(SettingError, ValueError)
