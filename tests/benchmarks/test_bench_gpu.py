"""benchmarks/bench_gpu.py on the CPU (its smoke test): every table runs, the two AUC routes
agree, and a CUDA device that is absent is refused by name before any work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from tests._scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_gpu.py"


@pytest.fixture
def bench():
    return load_script("benchmarks/bench_gpu.py")


def test_the_tables_run_on_the_cpu(bench, tmp_path, capsys):
    out = tmp_path / "gpu.json"
    assert bench.main(["--device", "cpu", "--auc-n", "2e4", "--repeats", "1", "--queries", "12",
                       "--epochs", "2", "--batch-sizes", "256", "--items", "16",
                       "--max-batch", "6", "--steps", "2", "--json", str(out)]) == 0
    got = json.loads(out.read_text())
    assert got["auc"]["auc"] == got["auc"]["auc_gpu"] and 0.5 < got["auc"]["auc"] < 1
    assert {(r["objective"], r["batch_size"]) for r in got["mlp"]} == {
        ("loss_aggregation", 256), ("label_aggregation", 256)}
    assert [r["loss"] for r in got["batch"]] == ["pairwise_logistic", "smooth_ap", "quadlinear_ap"]
    assert all(r["largest"] == 6 for r in got["batch"])  # the cap: the CPU reports no OOM
    assert "## Largest batch of 16-item queries" in capsys.readouterr().out


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA is available here")
def test_cuda_without_cuda_is_refused_by_name(bench, capsys):
    with pytest.raises(SystemExit):
        bench.main(["--device", "cuda"])
    assert "--device" in capsys.readouterr().err
