"""bipartite._utils.validation is the one import path of every input check: the checks live in
errors, arrays, query_ids and scaling (one concept each) and validation re-exports them."""

import pytest

from bipartite._utils import arrays, errors, query_ids, scaling, validation


@pytest.mark.parametrize("home", [arrays, errors, query_ids, scaling], ids=lambda m: m.__name__)
def test_validation_re_exports_every_public_name_of_the_split_modules(home):
    missing = [n for n in home.__all__ if n not in validation.__all__]
    assert not missing, f"{home.__name__} names missing from validation.__all__: {missing}"
    assert all(getattr(validation, n) is getattr(home, n) for n in home.__all__)


def test_every_name_validation_exports_exists():
    assert all(hasattr(validation, n) for n in validation.__all__)
    assert len(set(validation.__all__)) == len(validation.__all__)
