"""End-to-end runs of the RLSEP reproduction on the runner (smoke by default, quick when slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bipartite.experiments import get_paper
from bipartite.experiments.rlsep import PAPER
from bipartite.experiments.rlsep.run import STUDY, configs, headline
from bipartite.studies import read_results

TABLES = ["rlsep_runs", "rlsep_label_ranking", "rlsep_comparison",
          "rlsep_accuracy_by_num_relevant"]


def _check_outputs(res: dict, files: list, out: Path, stems: list[str]) -> None:
    files = [Path(f) for f in files]
    assert all(f.is_file() for f in files)
    for stem in stems:
        assert out / "tables" / f"{stem}.csv" in files
        assert (out / "tables" / f"{stem}.md").is_file()
    assert any(f.suffix == ".png" for f in files) and any(f.suffix == ".pdf" for f in files)


def test_rlsep_study_smoke(smoke, check_key_numbers):
    out, files = smoke
    res = headline(out)
    _check_outputs(res, files, out, TABLES)
    check_key_numbers(out, res)
    for loss in ("CE", "BCE", "LSEP", "RLSEP"):
        assert 0.0 <= res[f"{loss}_R_accuracy"] <= 1.0
        assert 0.0 <= res[f"{loss}_U_f1"] <= 1.0
    assert res["verdict_R_accuracy_vs_LSEP"] in ("beats", "tie", "worse", "differs")


def test_rlsep_runs_on_the_runner_with_the_common_layout(smoke, tmp_path):
    out, _ = smoke
    assert get_paper("rlsep") is PAPER
    assert (out / "studies" / STUDY / "results.parquet").is_file()
    assert sorted(p.name for p in (out / "figures").glob("*.png")) == [
        "rlsep_metrics.png", "rlsep_rank_structure.png"]
    assert (out / "tables").is_dir() and (out / "summary.md").is_file()
    meta = json.loads((out / "reproduce.json").read_text())
    assert meta["paper"] == "rlsep" and meta["size"] == "smoke"
    assert meta["studies"][STUDY]["failed"] == 0
    # every (replicate, loss) is one runner task; the losses of a replicate share its seed,
    # the data seed is a parameter shared by every task
    df = read_results(out / "studies" / STUDY)
    n_seeds = configs("smoke", {})[STUDY]["study"]["replicates"]
    assert df.groupby(["replicate", "loss"])["task"].nunique().eq(1).all()
    assert df["task"].nunique() == 4 * n_seeds
    seeds = df.groupby("replicate")["seed"].unique()
    assert all(len(s) == 1 for s in seeds) and len({s[0] for s in seeds}) == n_seeds
    assert df["data_seed"].nunique() == 1
    # figures and tables come from the results folder alone
    assert PAPER.figures(out, tmp_path / "figs")
    text = PAPER.summary(out, tmp_path / "tables")
    assert "RLSEP beats CE, BCE and LSEP" in text
    assert (tmp_path / "tables" / "rlsep_comparison.csv").is_file()


def test_rlsep_rerun_resumes_without_running_tasks(smoke):
    out, _ = smoke
    before = (out / "studies" / STUDY / "results.csv").read_text()
    PAPER.run(out, smoke=True, progress=False)
    meta = json.loads((out / "reproduce.json").read_text())
    assert meta["studies"][STUDY]["run"] == 0
    assert (out / "studies" / STUDY / "results.csv").read_text() == before


@pytest.mark.slow
def test_rlsep_study_quick_reproduces_the_finding(tmp_path):
    """Quick mode: RLSEP beats CE, BCE and LSEP on every ranked metric; on the unranked
    precision/recall/F1/accuracy it is within the 2-point tie tolerance, but the unranked 0-1 is
    *not* a tie on this data (RLSEP lower). LSEP's ranked accuracy falls from 3 to 6 relevant
    labels by more than twice as much as RLSEP's (cf. RLSEP Fig. 5).
    See papers/rlsep/claims_label_ranking.toml."""
    PAPER.run(tmp_path, quick=True, progress=False)
    res = headline(tmp_path)
    assert res["ranked_beats_all"]
    assert res["unranked_ties_except_exact_match"]
    assert res["verdict_U_exact_match_vs_LSEP"] in ("worse", "differs")
    drop = {loss: res[f"{loss}_R_accuracy_m3"] - res[f"{loss}_R_accuracy_m6"]
            for loss in ("LSEP", "RLSEP")}
    assert drop["LSEP"] > 2 * drop["RLSEP"] > 0, drop
