"""bipartite._utils.errors.first_index: the one home of "the first bad position" that error
messages name (NumPy masks, and tensor masks through tensor_checks.first_bad)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis.extra import numpy as hnp

from bipartite._utils.errors import first_index
from bipartite._utils.validation import check_finite, check_probabilities

MASKS = hnp.arrays(bool, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))


@settings(max_examples=300, deadline=None)
@given(MASKS)
def test_first_index_is_the_first_row_of_argwhere(mask):
    """Claim: for every boolean mask (0 to 3 dimensions, empty ones included) with a True entry,
    first_index is the first row of np.argwhere (C order) -- an int for a 1-D mask, a tuple
    otherwise -- and indexes a True entry; a mask with no True entry is a ValueError."""
    if not mask.any():
        with pytest.raises(ValueError, match="no True entry"):
            first_index(mask)
        return
    ref = tuple(int(i) for i in np.argwhere(mask)[0])
    got = first_index(mask)
    if mask.ndim == 1:
        assert type(got) is int and (got,) == ref
    else:
        assert type(got) is tuple and got == ref
    assert mask[got]


def test_messages_name_the_first_bad_position():
    with pytest.raises(ValueError, match=r"got inf at index 2\.$"):
        check_finite(np.array([0.0, 1.0, np.inf, np.nan]), "x")
    with pytest.raises(ValueError, match=r"got 1.5 at index \(1, 0\)\.$"):
        check_probabilities([[0.5, 0.5], [1.5, 2.0]], "p")


def test_tensor_first_bad_names_the_value_and_the_index():
    torch = pytest.importorskip("torch")
    from bipartite._utils.tensor_checks import first_bad

    values = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    assert first_bad(values > 3.5, values) == (4.0, (1, 1))
    assert first_bad(values[0] > 0.5, values[0]) == (1.0, 1)
    assert first_bad(values[1, 2] > 0, values[1, 2]) == (5.0, ())


def test_show_number_prints_exact_values_without_dtype_wrappers():
    """Claim: integer values print without a decimal point whatever their type; other floats in
    their shortest exact form at their own precision (never rounded onto a valid value)."""
    from bipartite._utils.errors import show_number

    for v in (-1, np.int64(-1), -1.0, np.float64(-1.0), np.float32(-1.0), np.int8(-1)):
        assert show_number(v) == "-1"
    assert show_number(1.0000001) == "1.0000001"  # ``:g`` prints "1": it would look valid
    assert show_number(np.float32(0.1)) == "0.1"
    assert show_number(0.1) == repr(0.1)
    assert show_number(2.0**60) == repr(2.0**60)  # beyond 2**53: a float, not a made-up int
    assert [show_number(v) for v in (np.nan, np.inf, -np.inf)] == ["nan", "inf", "-inf"]
    for v in (-0.5, -1e-300, 3.25, -1234567.5):
        assert float(show_number(v)) == v


TWIN_CASES = [
    ("check_nonnegative", [2.0, -1.0, 0.0], "'w' parameter must be non-negative, got -1 at index 1."),
    ("check_nonnegative", [0.5, -0.25], "'w' parameter must be non-negative, got -0.25 at index 1."),
    ("check_nonnegative", [0.5, -0.1], "'w' parameter must be non-negative, got -0.1 at index 1."),
    ("check_finite", [1.0, 2.0, np.nan], "'w' parameter must be finite, got nan at index 2."),
    ("check_finite", [-np.inf, 0.0], "'w' parameter must be finite, got -inf at index 0."),
    ("check_binary", [0.0, 1.0000001], "'w' parameter must contain only 0 and 1, got 1.0000001 at "
                                       "index 1."),
    ("check_binary", [2.0, 0.0], "'w' parameter must contain only 0 and 1, got 2 at index 0."),
]


@pytest.mark.parametrize("check, values, message", TWIN_CASES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_numpy_and_torch_checks_print_the_bad_value_alike(check, values, message, dtype):
    """Claim: each NumPy check and its torch twin (``*_where``) give the same message for the
    same bad value: the value through the one format (show_number), each at its own precision
    (-0.1 in float32 prints as -0.1, not as its float64 widening)."""
    torch = pytest.importorskip("torch")
    from bipartite._utils import arrays, tensor_checks

    if dtype == "float32" and "1.0000001" in message:
        pytest.skip("1.0000001 is not a float32 value")
    arr = np.array(values, dtype=dtype)
    t = torch.tensor(values, dtype=getattr(torch, dtype))
    with pytest.raises(ValueError) as np_err:
        if check == "check_binary":
            arrays.check_binary(arr, "w")
        else:
            getattr(arrays, check)(arr, "w")
    with pytest.raises(ValueError) as torch_err:
        getattr(tensor_checks, f"{check}_where")(t, torch.ones_like(t, dtype=torch.bool), "w")
    assert str(np_err.value) == str(torch_err.value) == f"The {message}"
