"""LA25 tables and figures, from the tidy results of the studies only (no recomputation).

* :mod:`~bipartite.experiments.la25.figures.sweeps` — the sweeps' tables and figures, the theory
  figures, and the summary section of each sweep (:func:`~bipartite.experiments.la25.figures.sweeps.sweep_summary_lines`);
* :mod:`~bipartite.experiments.la25.figures.section7` — LA25 §7's tables (the paper's layout,
  the paired verdicts, the synthetic sweep, the balance check, the learners' gap) and figures;
* :mod:`~bipartite.experiments.la25.figures.maxmin` — the max-min AUC tables, figure and summary
  section (docs/theory.md §13);
* :mod:`~bipartite.experiments.la25.figures.learners_vs_bayes` — the figure and table of
  ``la25.learners_vs_bayes``.

Tables are written through the one table writer, :func:`bipartite.studies.report.write_table`
(CSV and Markdown).
"""


def __getattr__(name: str):  # the names of the former module la25/figures.py, for a release
    from bipartite.experiments.la25._moved import OLD_PACKAGE_NAMES, forward

    if name.startswith("__"):
        raise AttributeError(name)
    return forward(__name__, OLD_PACKAGE_NAMES[__name__], name)
