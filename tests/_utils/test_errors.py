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
    with pytest.raises(ValueError, match=r"got np.float64\(inf\) at index 2\.$"):
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
