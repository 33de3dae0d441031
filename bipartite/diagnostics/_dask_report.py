"""The report out of core (docs/out_of_core.md): what :func:`bipartite.diagnostics.diagnose` and
``bipartite report`` need from a Parquet folder, glob or list of files, or a dask DataFrame, to
build **the same tables** as in memory.

:func:`out_of_core_sums` runs :func:`bipartite.diagnostics.placement_stats` (exact, on dask) and
returns, per scorer, the per-query :class:`~bipartite.diagnostics._placement_sums.PlacementSums` of every
label and cross pair (:meth:`PlacementStats.placement_sums`), with the queries in sorted id
order as in memory. Every table of the report — per-label AUC and gAUC, W_{k>j}, Min and Diff
AUC, the effective weights and the dictator, DeLong's standard errors (clustered by query), the
paired comparisons, the per-query AUCs and the query bootstrap (and BCa's jackknife) — is then
built by the in-memory report's own steps from these sums (docs/theory.md §2.6, §7.5): there is
one report, fed by either engine.

What is not computed out of core, explicitly:

* the **near-tie rates** of the win-rate table (pairs scored within ``tol``: a band join across
  the range partitions): NaN, with :data:`NEAR_TIE_NOTE` in the row's note;
* a report **without query ids**: its units are the rows, and the covariances of Min and Diff
  AUC and of the paired tests are sums over rows of two labels' or two scorers' placements,
  which the per-query sums do not hold: a ``ValueError`` (per-label AUCs, W_{k>j} and their
  unclustered DeLong variances without query ids: :meth:`PlacementStats.summary`);
* ``positive_label`` and ``dropna`` (the Parquet columns must already be 0/1 labels with no
  missing value): a ``ValueError``. ``progress`` shows each pass's tasks as a bar with its
  measured remaining time (:mod:`bipartite.diagnostics._dask_wait`).
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from bipartite.diagnostics._placement_sums import PlacementSums

__all__ = ["NEAR_TIE_NOTE", "OUT_OF_CORE_NOTE", "OutOfCoreSums", "is_out_of_core",
           "out_of_core_sums", "rows_of"]

#: The note of a win-rate row out of core.
NEAR_TIE_NOTE = "near-tie rate not computed out of core (docs/out_of_core.md)"
#: ``meta["out_of_core"]`` of an out-of-core report.
OUT_OF_CORE_NOTE = ("exact per-query placement sums on dask (placement_stats); every table as in "
                    "memory but the near-tie rates (not computed: NaN); docs/out_of_core.md")


@dataclass
class OutOfCoreSums:
    """The out-of-core report's input: per scorer the per-query sums of the K labels then the
    cross pairs k < j (``sums``), the query ids in sorted order (``qvalues``, G of them), the
    rows with positive weight per query and label (``q_npos`` (G, K)), the rows and what was
    read."""

    where: str
    score_names: list[str]
    label_names: list[str]
    qid: str
    n_rows: int
    G: int
    qvalues: Any
    q_npos: np.ndarray
    sums: dict[str, PlacementSums]


def is_out_of_core(data: object) -> bool:
    """Whether ``data`` is read out of core: a dask DataFrame, a folder, a glob pattern that is
    not an existing file, or a list or tuple of paths (one file, a table or a mapping: in
    memory)."""
    if type(data).__module__.startswith("dask"):
        return True
    if isinstance(data, list | tuple):
        return len(data) > 0 and all(isinstance(x, str | os.PathLike) for x in data)
    if isinstance(data, str | os.PathLike):
        p = os.fspath(data)
        return os.path.isdir(p) or (not os.path.isfile(p) and glob.has_magic(p))
    return False


def rows_of(st: PlacementSums, rows: slice) -> PlacementSums:
    """The sums of the weight pairs ``rows`` of ``st`` (the units unchanged), with their
    scale-free per-query statistics when set (:attr:`PlacementSums.queries`)."""
    q = st.queries
    if q is not None:
        q = replace(q, pos=q.pos[:, rows], neg=q.neg[:, rows], auc=q.auc[:, rows],
                    ap=None if q.ap is None else q.ap[:, rows])
    return replace(st, pos=st.pos[rows], neg=st.neg[rows], below=st.below[rows],
                   above=st.above[rows], within=None if st.within is None else st.within[rows],
                   n_pos=st.n_pos[rows], n_neg=st.n_neg[rows], queries=q)


def out_of_core_sums(data: Any, score_names: list[str], label_names: list[str], *,
                     qid: str | None, weight: str | None, scheduler: Any = None,
                     positive_label: Any = None, dropna: bool = False,
                     **kw: Any) -> OutOfCoreSums:
    """:class:`OutOfCoreSums` of ``data`` (a Parquet folder, glob, file or list of files, or a
    dask or pandas DataFrame) on ``scheduler`` (:func:`bipartite.diagnostics.placement_stats`,
    which checks every column and names the file and row of a bad value; ``kw``: its
    ``rows_per_partition`` and ``n_cuts``)."""
    from bipartite.diagnostics._dask_io import parquet_files
    from bipartite.diagnostics._dask_passes import placement_stats

    if isinstance(data, str | os.PathLike | list | tuple):
        parquet_files(data)  # a folder or glob with no Parquet file: said first
    if qid is None:
        raise ValueError("The out-of-core report needs query ids ('qid', --qid): without them "
                         "its units are the rows, and the covariances of Min and Diff AUC and "
                         "of the paired tests are sums over rows that the per-query sums do "
                         "not hold. Without qid, placement_stats(...).summary() gives the "
                         "per-label AUCs, W_{k>j} and their DeLong variances (docs/out_of_core.md).")
    if positive_label is not None:
        raise ValueError("The 'positive_label' parameter (--positive-label) is in-memory only: "
                         "out of core the label columns must hold 0/1 or booleans, got "
                         f"positive_label={positive_label!r}.")
    if dropna:
        raise ValueError("The 'dropna' parameter (--dropna) is in-memory only: out of core a "
                         "missing value is an error naming its file and row, got dropna=True.")
    st = placement_stats(data, score_names, label_names, qid=qid, weight=weight,
                         scheduler=scheduler, **kw)
    sums = {s: st.placement_sums(s) for s in score_names}
    pq = st.per_query
    first = pq[pq["scorer"] == score_names[0]]
    # rows with positive weight: on each query's own scale when its weights have one
    npos = first.pivot(index="qid", columns="pair", values="n_pos_s" if "n_pos_s" in first
                       else "n_pos").sort_index()
    qvalues = pd.Index(npos.index)
    q_npos = npos.reindex(columns=label_names).fillna(0).to_numpy(dtype=np.int64)
    return OutOfCoreSums(where=st.source, score_names=list(score_names),
                         label_names=list(label_names), qid=qid, n_rows=st.n_rows,
                         G=len(qvalues), qvalues=qvalues, q_npos=q_npos, sums=sums)
