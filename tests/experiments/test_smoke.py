"""Every paper's reproduction runs at smoke size on the one runner, from one registry, and writes
the same layout: ``studies/*/results.parquet``, ``figures/``, ``tables/``, ``summary.md`` and
``reproduce.json``; a second run into the same folder runs no task (resume)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from bipartite.experiments import PAPERS, get_paper


# LA25's smoke set (75 s at load 2; also run through the CLI by tests/test_cli.py) among the slow
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "la25" else n
                                  for n in sorted(PAPERS)])
def test_every_paper_runs_at_smoke_size_on_the_runner(name, tmp_path):
    paper = get_paper(name)
    if not paper.configs("smoke", {}):  # LR2PPO: every study needs MQ2008
        from bipartite.data import data_dir

        pytest.skip(f"every {name} study needs real data, absent from the data folder "
                    f"{data_dir()} (CI has ../shared/data beside the clone)")
    out = tmp_path / name
    written = paper.run(out, smoke=True, jobs=1, progress=False)
    record = json.loads((out / "reproduce.json").read_text())
    assert record["paper"] == name and record["size"] == "smoke"
    assert record["studies"] and all(s["failed"] == 0 for s in record["studies"].values())
    for study in record["studies"]:
        table = pd.read_parquet(out / "studies" / study / "results.parquet")
        assert len(table) > 0 and {"task", "replicate", "seed"} <= set(table.columns)
    assert (out / "summary.md").read_text().strip()
    assert any(p.suffix == ".png" for p in written)
    assert any(p.parent.name == "tables" for p in written)
    paper.run(out, smoke=True, jobs=1, progress=False)  # resume: nothing left to run
    rerun = json.loads((out / "reproduce.json").read_text())
    assert all(s["run"] == 0 for s in rerun["studies"].values()), rerun["studies"]
