"""The launch knobs' version (xstride/_kernels/_knobs.py): every change re-keys the
prepared calls; unknown names and removals are refused."""

import pytest

from xstride._kernels import _reduce_common as rc
from xstride._kernels._knobs import Knobs


def test_every_assignment_bumps_the_version():
    k = Knobs({"a": 1, "b": (2, 3)})
    assert k.version == 0
    k["a"] = 1          # the same value still counts: the key need not compare values
    k.update(b=(4, 4))
    k |= {"a": 5}
    assert k.version == 3 and k == {"a": 5, "b": (4, 4)}


def test_unknown_knob_raises_key_error():
    k = Knobs({"minb": 4})
    with pytest.raises(KeyError, match="no launch knob 'mnib'; the knobs are: minb"):
        k["mnib"] = 2
    with pytest.raises(KeyError, match="no launch knob 'x'"):
        k.update(x=1)
    assert k.version == 0 and k == {"minb": 4}


@pytest.mark.parametrize("remove", [
    lambda k: k.clear(), lambda k: k.pop("minb"), lambda k: k.popitem(),
    lambda k: k.setdefault("new", 1), lambda k: k.__delitem__("minb")])
def test_removing_or_adding_names_raises_type_error(remove):
    k = Knobs({"minb": 4})
    with pytest.raises(TypeError, match="launch knobs are fixed names"):
        remove(k)
    assert k == {"minb": 4}


def test_monkeypatch_setitem_changes_and_restores_through_the_version(monkeypatch):
    v = rc.TUNING.version
    old = rc.TUNING["red_regs"]
    with monkeypatch.context() as mp:
        mp.setitem(rc.TUNING, "red_regs", 0)
        assert rc.TUNING["red_regs"] == 0 and rc.TUNING.version == v + 1
    assert rc.TUNING["red_regs"] == old and rc.TUNING.version == v + 2


def test_update_checks_every_name_before_setting_any():
    k = Knobs({"a": 1, "b": 2})
    with pytest.raises(KeyError, match="no launch knob 'zz'"):
        k.update({"a": 5, "zz": 1})
    assert k == {"a": 1, "b": 2} and k.version == 0


def test_setdefault_of_a_held_name_is_its_value():
    k = Knobs({"a": 1})
    assert k.setdefault("a", 7) == 1 and k.version == 0


def test_copies_and_pickles_are_knobs_of_the_same_names():
    import copy
    import pickle

    for made in (copy.copy(rc.TUNING), copy.deepcopy(rc.TUNING),
                 pickle.loads(pickle.dumps(rc.TUNING))):
        assert type(made) is Knobs and made == rc.TUNING and made is not rc.TUNING
        before = rc.TUNING.version
        made["red_regs"] = made["red_regs"]          # its own names, its own version
        assert made.version == 1 and rc.TUNING.version == before
