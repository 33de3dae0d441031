"""Machine-readable output stays machine-readable (issue 26 item 5): no HiGHS banner on stdout
from ``bipartite frontier --format json/csv`` or from ``exact_frontier(P, method="milp")``, and a
frontier time-out gives advice that fits the options given.

HiGHS prints its banner once per process, at the C level (file descriptor 1), so each check runs
in a fresh interpreter: in-process capture would miss it, or see it only in the first test."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from bipartite.cli import main
from bipartite.cli._problems import _coarser_eps

ETA = [[0.9, 0.1], [0.6, 0.7], [0.2, 0.8], [0.1, 0.3], [0.5, 0.5]]
MASS = [0.1, 0.2, 0.3, 0.3, 0.1]


def _run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300)


@pytest.fixture()
def problem(tmp_path):
    src = tmp_path / "p.json"
    src.write_text(json.dumps({"mass": MASS, "eta": ETA}))
    return src


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_frontier_output_parses_while_the_milp_runs(problem, fmt):
    proc = _run(["-m", "bipartite", "frontier", str(problem), "--method", "milp", "--format", fmt])
    assert proc.returncode == 0, proc.stderr
    assert "HiGHS" not in proc.stdout
    if fmt == "json":
        rows = json.load(io.StringIO(proc.stdout))["rows"]
    else:
        rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    # the same frontier as the subset DP, run in this process
    from bipartite.pareto import exact_frontier
    from bipartite.population import FiniteProblem

    ref = exact_frontier(FiniteProblem.from_eta(MASS, ETA), method="dp")
    pts = np.array([[float(r["AUC_1"]), float(r["AUC_2"])] for r in rows
                    if r["point"].startswith("frontier")])
    np.testing.assert_allclose(pts[np.lexsort(pts.T[::-1])], ref[np.lexsort(ref.T[::-1])],
                               atol=1e-9)


@pytest.mark.parametrize("backend", ["highspy", "cvxpy"])
def test_exact_frontier_milp_prints_nothing(backend):
    code = textwrap.dedent(f"""\
        from bipartite.pareto import exact_frontier, max_min_point
        from bipartite.population import FiniteProblem
        P = FiniteProblem.random(5, 2, seed=1)
        exact_frontier(P, method="milp", backend="{backend}")
        max_min_point(P, method="milp")
        """)
    proc = _run(["-c", code])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""


def test_frontier_time_out_advice_fits_the_options(tmp_path, capsys):
    from bipartite.population import FiniteProblem

    P = FiniteProblem.random(15, 2, seed=0)
    src = tmp_path / "p.json"
    src.write_text(json.dumps({"mass": P.mass.tolist(), "label_probs": P.label_probs.tolist()}))
    assert main(["frontier", str(src), "--time-limit", "0.5"]) == 2
    err = capsys.readouterr().err.split("time-limit 0.5 s;")[-1]
    assert "try --eps 0.01" in err
    assert main(["frontier", str(src), "--eps", "0.01", "--time-limit", "0.3"]) == 2
    err = capsys.readouterr().err.split("time-limit 0.3 s;")[-1]
    assert "try --eps 0.01" not in err and "--eps 0.01" in err and "--eps 0.05" in err
    assert "longer --time-limit" in err


def test_coarser_eps():
    assert _coarser_eps(0.01) == pytest.approx(0.05)
    assert _coarser_eps(0.05) == pytest.approx(0.1)
    assert _coarser_eps(0.1) == pytest.approx(0.2)
