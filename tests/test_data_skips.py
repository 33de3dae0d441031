"""A clone without the data folder passes the test suite: every test and doctest that reads
``../shared/data`` (or ``$BIPARTITE_DATA``) skips, with the reason, where its data is absent.

Tests take the folder from the ``shared_data`` fixture (tests/conftest.py: skips when the folder is
absent or empty) or check their file themselves; doctests name each file they read as
``data_file("<name>", required=True)`` and the repository's conftest.py skips them where it is
absent."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests._scripts import load_script

REPO = Path(__file__).resolve().parents[1]

#: Tests that read the data folder, one of each way of reaching it (fixture, own file check,
#: per-folder check), and every module whose doctests read it.
DATA_TESTS = [
    "bipartite/data/bank_personal_loan.py", "bipartite/data/bank_marketing.py",
    "bipartite/data/letor.py", "bipartite/data/mulan.py",
    "tests/test_dictatorship_k174.py::test_all_pairs_on_real_data",
    "tests/test_readme_recipe.py", "tests/data/test_mulan.py",
    "tests/test_bad_input.py::test_letor_file_cut_mid_line_is_refused_with_file_and_line",
]


def test_doctests_read_data_only_through_data_file():
    """The rule the skip hook relies on: no docstring example of the package reads the default
    data folder (``data_dir()``) directly; each names its files with
    ``data_file(..., required=True)``, which the hook finds."""
    hooks = load_script("conftest.py", "repo_conftest")
    DATA_FILE_CALL = hooks.DATA_FILE_CALL  # noqa: N806 - the hook's constant
    offenders, readers = [], 0
    for path in sorted((REPO / "bipartite").rglob("*.py")):
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.strip()
            if not code.startswith((">>>", "...")):
                continue
            if "data_dir()" in code or "shared/data" in code:
                offenders.append(f"{path.relative_to(REPO)}:{i}: {code}")
            readers += bool(DATA_FILE_CALL.search(code))
    assert not offenders, offenders
    assert readers >= 5  # the loaders' doctests (bank personal loan, bank marketing, LETOR x2, Mulan)


@pytest.mark.parametrize("folder", ["absent", "empty"])
def test_data_tests_skip_with_the_reason_without_the_data(tmp_path, folder):
    """The data tests and doctests, run with ``BIPARTITE_DATA`` naming an absent or an empty
    folder: none fails, and each data-reading one is skipped with a reason naming the folder or
    its file."""
    data = tmp_path / "data"
    if folder == "empty":
        data.mkdir()
    env = {**os.environ, "BIPARTITE_DATA": str(data), "PYTHONPATH": str(REPO)}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                          "-m", "not slow", *DATA_TESTS], capture_output=True, text=True,
                         cwd=REPO, env=env, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    summary = run.stdout.splitlines()[-1]
    assert "failed" not in summary and "error" not in summary, summary
    skips = [line for line in run.stdout.splitlines() if line.startswith("SKIPPED")]
    for module in ("bank_personal_loan", "bank_marketing", "letor", "mulan"):
        assert any(f"bipartite/data/{module}.py" in s and "not in the data folder" in s
                   for s in skips), (module, skips)
    assert any("test_dictatorship_k174" in s and str(data) in s for s in skips), skips
    n_skipped = int(re.search(r"(\d+) skipped", summary).group(1))
    assert n_skipped >= 10, summary
