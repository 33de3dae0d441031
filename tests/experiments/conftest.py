"""Fixtures of the paper reproduction tests (tests/experiments/test_<paper>.py): one smoke run of
the module's paper, shared by its tests, and the check that the key numbers written with the
tables are those of the results folder."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest


@pytest.fixture(scope="module")
def smoke(request, tmp_path_factory) -> tuple[Path, list[Path]]:
    """The test module's paper (its ``PAPER``) run once at smoke size into a fresh folder:
    ``(out, files written)``. The run's options are those of the module's ``smoke_options()``
    when it has one (data paths; it skips, with the reason, when the paper's data is absent)."""
    module = request.module
    options = module.smoke_options() if hasattr(module, "smoke_options") else {}
    out = tmp_path_factory.mktemp(f"{module.PAPER.name}_smoke")
    return out, module.PAPER.run(out, smoke=True, progress=False, **options)


@pytest.fixture
def check_key_numbers():
    """``check(out, res)``: the table ``<paper>_key_numbers`` that the run wrote into
    ``out/tables`` holds the key numbers ``res`` computed from the results folder, each as text."""

    def check(out: Path, res: dict) -> None:
        (path,) = (Path(out) / "tables").glob("*_key_numbers.csv")
        saved = pd.read_csv(path, dtype=str, keep_default_na=False)
        assert dict(zip(saved["key"], saved["value"], strict=True)) == {
            k: str(v) for k, v in res.items()}

    return check
