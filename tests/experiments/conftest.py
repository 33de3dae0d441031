"""Fixtures of the paper reproduction tests (tests/experiments/test_<paper>.py): one smoke run of
the module's paper, shared by its tests, and the check that the key numbers written with the
tables are those of the results folder."""

from __future__ import annotations

import json
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


@pytest.fixture
def check_common_layout():
    """``check(out, files, paper, *, studies, figures, tables)``: the smoke run of ``paper`` into
    ``out`` (which returned ``files``) has the layout every paper's results folder shares: the
    paper is registered under its name; every file returned exists, PNG and PDF figures among
    them; ``studies/<study>/results.parquet`` for each of ``studies``; exactly the PNG
    ``figures`` in ``figures/``; ``tables/<stem>.csv`` (returned) and ``.md`` for each of
    ``tables``; ``summary.md`` (returned) and no old ``results.json``; ``reproduce.json`` naming
    the paper, the smoke size and no failed task."""
    from bipartite.experiments import get_paper

    def check(out: Path, files: list, paper, *, studies: list[str], figures: list[str],
              tables: list[str]) -> None:
        out, files = Path(out), [Path(f) for f in files]
        assert get_paper(paper.name) is paper
        assert files and all(f.is_file() for f in files)
        assert {".png", ".pdf"} <= {f.suffix for f in files}
        for study in studies:
            assert (out / "studies" / study / "results.parquet").is_file()
        assert sorted(p.name for p in (out / "figures").glob("*.png")) == sorted(figures)
        for stem in tables:
            assert out / "tables" / f"{stem}.csv" in files
            assert (out / "tables" / f"{stem}.md").is_file()
        assert out / "summary.md" in files and not (out / "results.json").exists()
        meta = json.loads((out / "reproduce.json").read_text())
        assert meta["paper"] == paper.name and meta["size"] == "smoke"
        assert meta["studies"] and all(st["failed"] == 0 for st in meta["studies"].values())

    return check
