"""What the report's steps share (:mod:`bipartite.diagnostics._diagnose`): the checked table
(:class:`Data`), the point estimates and influence terms (:class:`Estimates`) and the one place
every interval is made (:class:`Ctx`: :meth:`Ctx.interval`, a standard error, analytic or from
bootstrap replicates, or the replicates themselves, turned into an interval by the method
``interval`` names, :func:`bipartite.diagnostics._intervals.interval`; and
:meth:`Ctx.summary_interval` for Min and Diff AUC). docs/theory.md §2.6 gives the variances,
docs/coverage.md their measured coverage."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from bipartite.diagnostics._inference import boot_var, min_diff_delta
from bipartite.diagnostics._intervals import interval as make_interval
from bipartite.diagnostics._packed import COUNT_CELLS, combination_bits, fits, packed
from bipartite.diagnostics._pairs import PairStats
from bipartite.diagnostics._placement_sums import PlacementSums
from bipartite.diagnostics._scan import compiled_walk
from bipartite.metrics import GroupedStats, QuerySegments

__all__ = ["Ctx", "Data", "Estimates", "boot_note", "join_notes", "kind_label"]

def join_notes(*notes: str | None) -> str | None:
    return "; ".join(dict.fromkeys(n for n in notes if n)) or None  # each reason once


def boot_note(bad: float, n_boot: int) -> str | None:
    return (f"{100 * bad:.1f}% of the {n_boot} bootstrap replicates were undefined and left out"
            if n_boot and bad > 0 else None)


@dataclass
class Data:
    """The checked table: scores ``S`` (name → (n,)), labels ``Yt`` (K, n) bool (``Y`` (n, K)
    float64 made from them at first use), row weights ``w`` (``const_w``: their one value when
    every row weighs the same, else None), query codes ``g`` (G queries, ids ``qvalues``) or
    None, the number U of independent units (queries, or rows) and the label pairs (k < j; their
    cross-pair masses are built in blocks, :func:`bipartite.diagnostics._pairs.cross_masks`)."""

    where: str
    n_dropped: int
    score_names: list[str]
    label_names: list[str]
    S: dict[str, np.ndarray]
    Yt: np.ndarray
    w: np.ndarray
    qid: str | None
    g: np.ndarray | None
    G: int
    qvalues: Any
    U: int
    pairs: list[tuple[int, int]]
    #: out of core (no row arrays: ``S``, ``Yt``, ``w``, ``g`` empty): the rows, and the rows
    #: with positive weight per query and label (G, K)
    n_rows: int | None = None
    q_npos: np.ndarray | None = None
    prior: np.ndarray | None = None  # out of core: each label's positive weight share
    #: the weight of every row when they all weigh the same (None: they do not, or unknown)
    const_w: float | None = None

    @property
    def n(self) -> int:
        return len(self.w) if self.n_rows is None else self.n_rows

    @property
    def K(self) -> int:
        return len(self.label_names)

    @cached_property
    def Y(self) -> np.ndarray:
        """(n, K) float64: the labels as 0/1 numbers (made at first use: the one-walk route
        reads ``Yt``)."""
        return np.ascontiguousarray(self.Yt.T, dtype=np.float64)

    @cached_property
    def packed(self) -> tuple[np.ndarray, np.ndarray | None] | None:
        """Every row's labels and query code packed in one integer, and the rows of each
        (query, label combination) (:func:`bipartite.diagnostics._packed.packed`, compiled from
        :data:`~bipartite.diagnostics._scan.COMPILED_MIN_ROWS` rows on,
        :func:`~bipartite.diagnostics._scan.compiled_walk`; None where they do not fit 64
        bits)."""
        G = self.G if self.g is not None else None
        if not fits(self.K, G):
            return None
        return packed(self.Yt, self.g, G, compiled=compiled_walk(self.n))

    @cached_property
    def _counts(self) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
        """``(rows (G,), pos (G, K), total (K,))``: per query the rows with positive weight and
        those of each label that are positive, and the positive rows with weight per label
        (queries None without query ids), counted once for every table that reads them."""
        every = self.const_w is not None and self.const_w > 0 or bool(np.all(self.w > 0))
        K, G = self.K, self.G
        units = G if self.g is not None else 1
        if units << K <= COUNT_CELLS and self.packed is not None:
            lab, cnt = self.packed  # one count of the rows of each (query, label combination)
            if not every:  # the rows with weight only
                cnt = np.bincount(lab[self.w > 0], minlength=units << K).reshape(units, 1 << K)
            pos = cnt @ combination_bits(K)
            if self.g is None:
                return None, None, pos[0]
            return cnt.sum(axis=1), pos, pos.sum(axis=0)
        has = self.w > 0
        Yt = self.Yt if every else self.Yt[:, has]
        if self.g is None:
            return None, None, np.count_nonzero(Yt, axis=1)
        g = self.g if every else self.g[has]
        pos = np.stack([np.bincount(g[y], minlength=G) for y in Yt], axis=1)
        return np.bincount(g, minlength=G), pos, pos.sum(axis=0)

    def query_class_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """``(rows (G,), pos (G, K))``: per query its rows with positive weight, and those of
        each label that are positive (in memory, with query ids)."""
        rows, pos, _ = self._counts
        return rows, pos

    def class_counts(self) -> tuple[list[int], list[int] | None]:
        """Per label the rows with positive weight that are positive, and those that are
        negative (None out of core, where only the positives are counted)."""
        if self.n_rows is not None:
            return [int(c) for c in self.q_npos.sum(axis=0)], None
        n_has = (self.n if self.const_w is not None and self.const_w > 0 else
                 int(np.count_nonzero(self.w > 0)))
        pos = [int(c) for c in self._counts[2]]
        return pos, [n_has - c for c in pos]


@dataclass
class Estimates:
    """Per scorer: pooled AUCs and gAUCs (K,), the per-query statistics, the pair statistics
    (win rates, near ties, variances), the labels' placement sums (the bootstrap's input), the
    scaled influence terms (K, U) of the AUCs and gAUCs (``var = Σ t²``, ``cov = Σ t t'``) and
    the global sort (the bootstrap's pair blocks reuse it)."""

    aucs: dict[str, np.ndarray]
    gaucs: dict[str, np.ndarray]
    stats: dict[str, GroupedStats]
    wins: dict[str, PairStats]
    sums: dict[str, PlacementSums]
    terms: dict[str, dict[str, np.ndarray]]
    segs: dict[str, QuerySegments]
    #: per scorer the cross pairs' sums in blocks ``[(slice, PlacementSums)]`` (out of core,
    #: with their within-query sums; one walk: without), read by the bootstrap and the jackknife
    pair_sums: dict[str, list] = field(default_factory=dict)
    #: per scorer (K,) the queries with weight in each gAUC (λ_q > 0 under the report's
    #: weighting): the G' of the gAUC's clustered variance and its t interval's G' − 1
    gauc_queries: dict[str, np.ndarray] = field(default_factory=dict)


def kind_label(kind: str, clustered: bool) -> str:
    """How an interval method reads in the report's method columns."""
    return {"wald": "est ± z·se", "t": f"est ± t({'G' if clustered else 'n'}−1)·se",
            "percentile": "percentile", "bca": "BCa (jackknife acceleration)"}[kind]


@dataclass
class Ctx:
    """What every interval needs: the level, the units U (queries or rows), the bootstrap size,
    why there is no bootstrap interval (``no_boot``), why an analytic variance can be missing
    (``no_var``), the method's name, whether the units are queries, the interval method
    ``kind`` (resolved: wald, t, percentile, bca) and BCa's jackknife values ``jack``
    (scorer → metric → (rows, U)). ``boot``: whether the intervals come from the bootstrap
    (``n_boot > 0``: every interval, over queries or rows), else analytic (DeLong, clustered by
    query with query ids; the delta method for the gAUC, Min and Diff AUC)."""

    level: float
    U: int
    n_boot: int
    no_boot: str | None
    no_var: str
    method: str
    clustered: bool
    kind: str = "wald"
    jack: dict = field(default_factory=dict)

    @property
    def boot(self) -> bool:
        """Bootstrap intervals (every table's)."""
        return self.n_boot > 0

    def jk(self, s: str, metric: str, i) -> np.ndarray | None:
        """The jackknife values of scorer ``s``'s ``metric`` row(s) ``i`` (BCa only)."""
        return self.jack[s][metric][i] if self.jack else None

    def interval(self, est, var=None, reps=None, lo=0.0, jack=None, df=None):
        """(se, low, high, note) of ``est`` by the method :attr:`kind`
        (:func:`bipartite.diagnostics._intervals.interval`): se from the bootstrap replicates
        ``reps`` (:attr:`boot`; percentile and BCa read them, BCa with the jackknife values
        ``jack``), else from the analytic variance ``var``; the t quantile with ``df`` degrees
        of freedom (default U − 1); clipped to [lo, 1] (Wald, t)."""
        nan = float("nan")
        df = self.U - 1 if df is None else df
        if df < 1 and np.isfinite(est):  # one cluster: no variance, whatever the method
            unit = "query" if self.clustered else "row"
            return nan, nan, nan, (f"defined in a single {unit}: no variance, no interval "
                                   "(docs/theory.md §2.6)")
        if self.boot:
            if self.no_boot:
                return nan, nan, nan, self.no_boot
            var, bad = boot_var(reps, self.U)
            note = boot_note(bad, self.n_boot) if np.isfinite(est) else None
        else:
            note = self.no_var if np.isfinite(est) and not np.isfinite(var) else None
        se = float(np.sqrt(max(var, 0.0))) if np.isfinite(var) and np.isfinite(est) else nan
        low, high = make_interval(self.kind, est, se, df, self.level, reps, jack, lo)
        return se, low, high, note

    def summary_interval(self, aucs, terms, reps, jack=None):
        """Min and Diff AUC of the defined labels' AUCs ``aucs`` (k,): ``(min_lo, min_hi,
        diff_lo, diff_hi, notes)``; from the bootstrap replicates ``reps`` (k, B) with
        ``n_boot > 0`` (the jackknife ``jack`` (k, U) for BCa), else the delta method from the
        terms (k, U) (:func:`bipartite.diagnostics._inference.min_diff_delta`, which says what
        is done at ties; docs/theory.md §2.6)."""
        unit = "queries" if self.clustered else "rows"
        kind = kind_label(self.kind, self.clustered)
        mn, dd = float(aucs.min()), float(np.ptp(aucs))
        if self.boot:
            _, mlo, mhi, mwhy = self.interval(mn, reps=reps.min(axis=0),
                                              jack=None if jack is None else jack.min(axis=0))
            _, dlo, dhi, _ = self.interval(dd, reps=np.ptp(reps, axis=0),
                                           jack=None if jack is None else np.ptp(jack, axis=0))
            notes = [mwhy] if self.no_boot else [mwhy, f"intervals: {kind}, bootstrap over {unit}"]
        else:
            mvar, dvar, tie = min_diff_delta(aucs, terms)
            _, mlo, mhi, _ = self.interval(mn, var=mvar)
            _, dlo, dhi, _ = self.interval(dd, var=dvar)
            delong = "DeLong clustered by query" if self.clustered else "DeLong"
            notes = [tie, f"intervals: delta method ({delong} covariances), {kind}"]
            if not np.isfinite(mvar):
                notes.append(self.no_var)
        return mlo, mhi, dlo, dhi, notes
