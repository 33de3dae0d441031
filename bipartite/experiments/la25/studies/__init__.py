"""LA25 study functions, registered with the runner (:mod:`bipartite.studies`) on import.

This package is the ``la25`` entry of the ``bipartite.studies`` entry-point group
(``pyproject.toml``): importing it registers every ``la25.*`` study. One module per family of
studies; a new family (a new module here) is imported below and gets its folder in
:func:`bipartite.experiments.la25.run.configs`.

* :mod:`~bipartite.experiments.la25.studies.sweeps` — ``la25.skew``, ``la25.frontier``,
  ``la25.correlation``, ``la25.weights``, ``la25.learning_curve``, ``la25.consistency``,
  ``la25.real``;
* :mod:`~bipartite.experiments.la25.studies.section7` — LA25 §7 as the paper ran it:
  ``la25.section7_synthetic`` (six label-dependence regimes) and ``la25.section7_data`` (UCI Bank
  Marketing, the MQ2008 stand-in, MSLR folds);
* :mod:`~bipartite.experiments.la25.studies.theory` — ``la25.section7_balance``, the K = 2
  condition of docs/theory.md §12 on random problems;
* :mod:`~bipartite.experiments.la25.studies.gap` — ``la25.section7_gap``, learners vs Bayes at a
  skewed prior;
* :mod:`~bipartite.experiments.la25.studies.maxmin` — ``la25.maxmin_frequency`` and the max-min
  bracket of the §7 synthetic study (docs/theory.md §13);
* :mod:`~bipartite.experiments.la25.studies.learners_vs_bayes` — ``la25.learners_vs_bayes``.

Their tables and figures are in :mod:`bipartite.experiments.la25.figures`.
"""

# Importing the modules registers their study functions (each is documented in its module).
from bipartite.experiments.la25.studies import (  # noqa: F401
    gap,
    learners_vs_bayes,
    maxmin,
    multilabel,
    section7,
    sweeps,
    theory,
)

__all__: list[str] = []


def __getattr__(name: str):  # the names of the former module la25/studies.py, for a release
    from bipartite.experiments.la25._moved import OLD_PACKAGE_NAMES, forward

    if name.startswith("__"):
        raise AttributeError(name)
    return forward(__name__, OLD_PACKAGE_NAMES[__name__], name)
