"""The rooms of bipartite.pareto: names that moved between its modules stay importable from their
old paths without a warning, and the one reading of a HiGHS status (milp.solver_outcome)."""

import importlib
import warnings

import pytest

import bipartite.pareto as pareto
from bipartite.pareto.milp import solver_outcome

#: (old module, name): the public names that moved to pareto.supported and pareto.sweep.
MOVED = [("bipartite.pareto.maxmin", n) for n in
         ("SupportedMaxMin", "BalancedWeights", "max_min_supported", "balanced_weights",
          "reachable_orders")] + [("bipartite.pareto.frontier", n) for n in
                                  ("simplex_grid", "weight_sweep", "SIMPLEX_GRID_MAX_POINTS",
                                   "seed_values")]


@pytest.mark.parametrize(("module", "name"), MOVED)
def test_moved_names_import_from_the_old_module_without_warning(module, name):
    """Claim: each moved name is the same object at its old module path, and importing it there
    warns nothing (the moves are within one package's private layout)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        obj = getattr(importlib.import_module(module), name)
    new = ("bipartite.pareto.supported" if module.endswith("maxmin")
           else "bipartite.pareto.sweep")
    assert obj is getattr(importlib.import_module(new), name)
    if hasattr(pareto, name):
        assert getattr(pareto, name) is obj


@pytest.mark.parametrize(("status", "interface", "expected"), [
    ("kOptimal", "highspy", True), ("kInfeasible", "highspy", False),
    ("kUnboundedOrInfeasible", "highspy", False), ("optimal", "cvxpy", True),
    ("infeasible", "cvxpy", False), ("infeasible_inaccurate", "cvxpy", False),
    (0, "linprog", True), (2, "linprog", False),
])
def test_solver_outcome_reads_optimal_and_infeasible(status, interface, expected):
    assert solver_outcome(status, interface) is expected


@pytest.mark.parametrize(("status", "interface"), [("kTimeLimit", "highspy"),
                                                   ("user_limit", "cvxpy")])
def test_solver_outcome_out_of_time_is_a_timeout(status, interface):
    with pytest.raises(TimeoutError, match="time_limit"):
        solver_outcome(status, interface)


@pytest.mark.parametrize(("status", "interface"), [("kUnbounded", "highspy"),
                                                   ("unbounded", "cvxpy"), (4, "linprog")])
def test_solver_outcome_anything_else_is_an_error_naming_the_status(status, interface):
    with pytest.raises(RuntimeError, match=repr(status)):
        solver_outcome(status, interface)


def test_highspy_status_names_exist():
    """Claim: the highspy names in the status table are members of HighsModelStatus (a renamed
    member would otherwise read as 'anything else')."""
    highspy = pytest.importorskip("highspy")
    for name in ("kOptimal", "kInfeasible", "kUnboundedOrInfeasible", "kTimeLimit"):
        assert getattr(highspy.HighsModelStatus, name).name == name
