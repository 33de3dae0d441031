"""Repository-wide pytest hooks (tests/conftest.py holds the fixtures of tests/).

Doctests that read the data folder skip, with the reason, where a file is absent: a doctest
names each file it reads as ``data_file("<name>", required=True)``
(:func:`bipartite.data.data_file`: the argument, then ``$BIPARTITE_DATA``, then
``../shared/data``), and this hook marks it skipped when one of them is not there, so that a
fresh clone without ``../shared/data`` passes the README's test command
(tests/test_data_skips.py checks both the rule and the skip).
"""

from __future__ import annotations

import re

import pytest

#: A doctest's read of a data file: ``data_file("<name>", required=True)``.
DATA_FILE_CALL = re.compile(r"""data_file\(\s*["']([^"']+)["']\s*,\s*required=True\s*\)""")


def doctest_data_files(item: pytest.Item) -> list[str]:
    """The data files a doctest item reads (empty for any other item)."""
    test = getattr(item, "dtest", None)  # a DoctestItem's doctest.DocTest
    if test is None:
        return []
    return sorted({name for ex in test.examples for name in DATA_FILE_CALL.findall(ex.source)})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    from bipartite.data import data_dir, data_file

    for item in items:
        missing = [name for name in doctest_data_files(item) if data_file(name) is None]
        if missing:
            item.add_marker(pytest.mark.skip(
                reason=f"{', '.join(missing)} not in the data folder {data_dir()} "
                       "($BIPARTITE_DATA, else ../shared/data)"))
