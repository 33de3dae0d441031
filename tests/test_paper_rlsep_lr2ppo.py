"""End-to-end runs of the RLSEP and LR2PPO paper studies (smoke by default, quick when slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bipartite import paper_lr2ppo, paper_rlsep


def _check_outputs(res: dict, out: Path, stems: list[str]) -> None:
    files = [Path(f) for f in res["files"]]
    assert all(f.is_file() for f in files)
    for stem in stems:
        assert out / "tables" / f"{stem}.csv" in files
        assert out / "tables" / f"{stem}.md" in files
    assert any(f.suffix == ".png" for f in files) and any(f.suffix == ".pdf" for f in files)
    saved = json.loads((out / "results.json").read_text())
    assert saved == {k: v for k, v in res.items() if k != "files"}


def test_rlsep_study_smoke(tmp_path):
    res = paper_rlsep.run(tmp_path, smoke=True)
    _check_outputs(res, tmp_path, ["rlsep_runs", "rlsep_label_ranking", "rlsep_comparison",
                                   "rlsep_accuracy_by_num_relevant"])
    for loss in ("CE", "BCE", "LSEP", "RLSEP"):
        assert 0.0 <= res[f"{loss}_R_accuracy"] <= 1.0
        assert 0.0 <= res[f"{loss}_U_f1"] <= 1.0
    assert res["verdict_R_accuracy_vs_LSEP"] in ("beats", "tie", "worse", "differs")


def test_lr2ppo_study_smoke(tmp_path, shared_data):
    res = paper_lr2ppo.run(tmp_path, smoke=True, letor=shared_data / "letor")
    _check_outputs(res, tmp_path, ["lr2ppo_runs", "lr2ppo_annotation", "lr2ppo_gains"])
    assert 0.0 <= res["stage 1|f0|ndcg@10"] <= 1.0
    assert 0.5 <= res["LR2PPO (stage 3)|f0.1|rm_accuracy"] <= 1.0
    assert "gain_ndcg@10_f0.1" in res


def test_lr2ppo_missing_data_says_how_to_pass_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="letor=PATH"):
        paper_lr2ppo.run(tmp_path / "out", smoke=True, letor=tmp_path)
    # a glob names its folder
    with pytest.raises(FileNotFoundError, match=str(tmp_path)):
        paper_lr2ppo.find_letor(tmp_path / "mq2008_S*.txt")


@pytest.mark.slow
def test_rlsep_study_quick_reproduces_the_finding(tmp_path):
    """Quick mode: RLSEP beats CE, BCE and LSEP on every ranked metric; on the unranked
    precision/recall/F1/accuracy it is within the 2-point tie tolerance, but the unranked 0-1 is
    *not* a tie on this data (RLSEP lower). LSEP's ranked accuracy falls from 3 to 6 relevant
    labels by more than twice as much as RLSEP's (cf. RLSEP Fig. 5).
    See papers/rlsep/claims_label_ranking.toml."""
    res = paper_rlsep.run(tmp_path, quick=True, jobs=2)
    assert res["ranked_beats_all"]
    assert res["unranked_ties_except_exact_match"]
    assert res["verdict_U_exact_match_vs_LSEP"] in ("worse", "differs")
    drop = {loss: res[f"{loss}_R_accuracy_m3"] - res[f"{loss}_R_accuracy_m6"]
            for loss in ("LSEP", "RLSEP")}
    assert drop["LSEP"] > 2 * drop["RLSEP"] > 0, drop


@pytest.mark.slow
def test_lr2ppo_study_quick(tmp_path, shared_data):
    """Quick mode on MQ2008 (one seed; the claims cite the 3-seed full run):
    stage 3 raises NDCG@10 over stage 1 at 10 % and 40 % annotation; the reward-model accuracy
    grows with the annotated fraction; fine-tuning directly on the annotated pairs (control)
    gets most of the gain; PPO's original clipped ratio does not collapse (it stays above
    stage 1); delta = 0 and delta = -0.1 end within 0.01 NDCG@10."""
    res = paper_lr2ppo.run(tmp_path, quick=True, letor=shared_data / "letor")
    s1 = res["stage 1|f0|ndcg@10"]
    assert res["stage3_improves_ndcg10_all_fractions"]
    assert (res["LR2PPO (stage 3)|f0.4|rm_accuracy"]
            > res["LR2PPO (stage 3)|f0.1|rm_accuracy"])
    for f in ("0.1", "0.4"):
        control = res[f"stage 1 + pair fine-tune (control)|f{f}|ndcg@10"] - s1
        assert control > 0.5 * res[f"gain_ndcg@10_f{f}"] > 0
    assert res["stage 3, original PPO ratio|f0.1|ndcg@10"] > s1
    assert abs(res["stage 3, delta = 0|f0.1|ndcg@10"]
               - res["LR2PPO (stage 3)|f0.1|ndcg@10"]) < 0.01
