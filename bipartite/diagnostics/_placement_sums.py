"""Per-unit placement sums: the sufficient statistics of the report's intervals
(docs/theory.md §2.3, §2.5, §2.6, §7.5).

Every AUC the report gives — the pooled per-label AUC, the gAUC, the cross-pair win rate
``W_{k>j}`` — is a two-sample statistic of one *weight pair*: positive weights ``pos`` and
negative weights ``neg`` over the same n scored rows. A label k is the pair ``pos = w y_k``,
``neg = w (1 − y_k)``; the label pair (k, j) of ``W_{k>j}`` is ``pos = w y_k (1 − y_j)`` ("k
only"), ``neg = w y_j (1 − y_k)`` ("j only"). The rows fall into G *units*: the queries when
query ids are given (a bootstrap resamples whole queries, DeLong is clustered by query), else
the rows themselves (DeLong 1988).

Schema
------
A :class:`PlacementSums` holds, for m weight pairs ``p`` and G units ``q``, float64 arrays of
shape (m, G):

=========  ==================================================================================
``pos``    ``P_pq = Σ_{i∈q} pos_pi`` — positive weight of the unit
``neg``    ``N_pq = Σ_{i∈q} neg_pi`` — negative weight of the unit
``below``  ``Σ_{i∈q} pos_pi B_pi``, with the *global* placement ``B_pi = Σ_j neg_pj ([s_j <
           s_i] + ½ [s_j = s_i])`` over **all** n rows (negative weight scored below row i,
           ties ½)
``above``  ``Σ_{j∈q} neg_pj A_pj``, with ``A_pj = Σ_i pos_pi ([s_i > s_j] + ½ [s_i = s_j])``
           over all rows (positive weight scored above row j, ties ½)
``within`` ``Σ_{i∈q} pos_pi B^q_pi``: the same placement restricted to the rows of unit q, the
           numerator of the unit's own AUC (``AUC_pq = within / (P_pq N_pq)``); ``None`` when
           the units are rows
=========  ==================================================================================

and per unit ``weight`` (G,) (the row weight ``Σ_{i∈q} w_i``, for the "impressions" gAUC weighting)
and ``n_rows`` (G,); per pair ``n_pos``, ``n_neg`` (m,) (rows with positive weight in each class:
DeLong's ``m/(m − 1)`` corrections); ``clustered`` (the units are queries); ``queries``, when set,
the per-unit AUCs taken scale-free per query (:meth:`PlacementSums.grouped`). The
weights may carry any common power-of-two scale per pair (every statistic below is a ratio).
Sums over units are additive, so an out-of-core engine that computes the per-row placements
``B``, ``A`` (one global sort) and the per-query ``within`` (one sort per query) by partition
builds the same table by summing partial tables, and everything downstream is unchanged;
:func:`placement_sums` (any weight pairs) and :func:`label_sums` (labels, label pairs) build it in
memory from the grouped engine
(:class:`bipartite.metrics.QuerySegments`, one global and one per-query sort per scorer).

What follows from the table (O(m G) each, no sort)
---------------------------------------------------
* pooled AUC ``θ_p = Σ_q below_pq / (P_p N_p)`` (``= Σ_q above_pq / (P_p N_p)``), with
  ``P_p = Σ_q P_pq``, ``N_p = Σ_q N_pq`` (:meth:`PlacementSums.auc`);
* its influence per unit (the Hájek projection of the two-sample U-statistic)
  ``ψ_pq = (below_pq + above_pq) / (P_p N_p) − θ_p (P_pq / P_p + N_pq / N_p)``, ``Σ_q ψ_pq = 0``;
  DeLong's variance is ``Σ_q ψ_pq² · G'/(G' − 1)`` clustered by query (Obuchowski 1997; G':
  the units with weight in the pair, docs/theory.md §2.6), and with
  rows as units DeLong, DeLong & Clarke-Pearson (1988)'s ``S10/m + S01/n``, i.e. the positive
  and negative parts of ψ with their own ``m/(m − 1)`` factors. :meth:`PlacementSums.terms`
  returns the scaled ψ, so that a variance is ``Σ_q t_pq²`` and a covariance (two labels, two
  scorers on the same units: paired tests, Diff AUC) ``Σ_q t_pq t_p'q``;
* the gAUC ``Σ_q λ_pq AUC_pq / Σ_q λ_pq`` (:class:`bipartite.metrics.GroupedStats`, whose
  ``query_weights`` define λ) and its delta-method (ratio) variance from
  ``ψ_pq = λ_pq (AUC_pq − gAUC_p) / Σ_q λ_pq`` (:meth:`PlacementSums.gauc_terms`);
* bootstrap replicates for unit multiplicities ``M`` (B, G) (:meth:`PlacementSums.boot_gauc`,
  :meth:`PlacementSums.boot_auc`). The gAUC replicate ``Σ_q M_bq λ_pq AUC_pq / Σ_q M_bq
  λ_pq`` is **exact**: a query drawn twice is two queries, as when the resampled rows are
  rebuilt. A pooled AUC's exact replicate needs the cross-unit pair counts ``U_qr`` (G × G:
  ``U* = Σ_{q,r} M_q M_r U_qr``); it is replaced by its linearisation (the Hájek projection)
  ``U* ≈ Σ_q M_q (below_q + above_q) − U`` with the exact denominators ``P* N*``. Its
  first-order term is the clustered DeLong's (the bootstrap variance tends to ``Σ_q ψ_q²``),
  the neglected term ``Σ_{q,r} (M_q − 1)(M_r − 1) U_qr`` is O(1/G) relative to the AUC, one
  order below the O(1/√G) spread (the tests measure it); with rows as units it is about
  ``1/√(P N)`` (P, N: the rows of each class), one order below the spread likewise
  (docs/theory.md §2.6);
* the leave-one-unit-out pooled AUCs, exact: leaving out one unit drops only its own
  cross-unit pairs and its ``within`` pairs (:meth:`PlacementSums.jackknife_auc`).

One replicate therefore costs O(m G): O(queries) with query ids, O(n) (no sort) without.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bipartite._utils.validation import pow2_scale
from bipartite.metrics import GroupedStats, QuerySegments, tie_placements

__all__ = ["PlacementSums", "influence_var", "label_pair_weights", "label_sums", "placement_sums",
           "side_scales", "unit_stats", "weight_rows"]


@dataclass(frozen=True)
class PlacementSums:
    """Per (weight pair, unit) sums of placements; the schema is the module docstring's."""

    pos: np.ndarray
    neg: np.ndarray
    below: np.ndarray
    above: np.ndarray
    within: np.ndarray | None
    weight: np.ndarray
    n_rows: np.ndarray
    n_pos: np.ndarray
    n_neg: np.ndarray
    clustered: bool
    queries: GroupedStats | None = None

    @property
    def m(self) -> int:
        return self.pos.shape[0]

    @property
    def G(self) -> int:
        return self.pos.shape[1]

    def totals(self) -> tuple[np.ndarray, np.ndarray]:
        """(P, N) (m,): each pair's positive and negative weight."""
        return self.pos.sum(axis=1), self.neg.sum(axis=1)

    def auc(self) -> np.ndarray:
        """(m,) pooled AUC (ties ½), NaN where a class has no weight."""
        P, N = self.totals()
        num = self.below.sum(axis=1)
        return np.divide(num, P * N, out=np.full(self.m, np.nan), where=(P > 0) & (N > 0))

    def influence(self) -> tuple[np.ndarray, np.ndarray]:
        """(ψ⁺, ψ⁻) (m, G): the pooled AUC's influence per unit, split into its positive
        (``below / (P N) − θ P_q / P``) and negative (``above / (P N) − θ N_q / N``) parts;
        NaN rows where the AUC is undefined."""
        P, N = self.totals()
        theta = self.auc()[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            PN = (P * N)[:, None]
            return (self.below / PN - theta * self.pos / P[:, None],
                    self.above / PN - theta * self.neg / N[:, None])

    def terms(self) -> np.ndarray:
        """(m, G) scaled influence ``t`` of the pooled AUC: ``var = Σ_q t²``, ``cov = Σ_q t t'``
        (DeLong; clustered by unit when ``clustered``; docs/theory.md §2.6). NaN rows where the variance is
        undefined: an empty class, a class with a single row (rows as units) or a single unit
        with weight for the pair (clustered; the factor is ``√(G'/(G' − 1))`` over those G'
        units, as rows count only the rows with weight)."""
        ip, im = self.influence()
        if self.clustered:
            # G' = the units with weight for the pair (as rows count only rows with weight): a
            # unit without any has influence 0 and does not enter the small-sample factor
            g = np.count_nonzero((self.pos > 0) | (self.neg > 0), axis=1)[:, None]
            with np.errstate(invalid="ignore", divide="ignore"):
                c = np.where(g > 1, np.sqrt(g / np.maximum(g - 1, 1)), np.nan)
            return (ip + im) * c
        with np.errstate(invalid="ignore", divide="ignore"):
            cp = np.where(self.n_pos > 1, np.sqrt(self.n_pos / np.maximum(self.n_pos - 1, 1)),
                          np.nan)
            cn = np.where(self.n_neg > 1, np.sqrt(self.n_neg / np.maximum(self.n_neg - 1, 1)),
                          np.nan)
        # a row is positive or negative for a pair, never both: (cp ψ⁺ + cn ψ⁻)² has no cross
        # term, and Σ t² is DeLong's S10/m + S01/n
        return ip * cp[:, None] + im * cn[:, None]

    def var(self) -> np.ndarray:
        """(m,) DeLong variance of the pooled AUC (NaN as :meth:`terms`)."""
        return influence_var(self.terms())

    # -- per-unit AUCs and the gAUC -------------------------------------------------------
    def grouped(self) -> GroupedStats:
        """The units' :class:`bipartite.metrics.GroupedStats` (K = m), whose ``gauc`` and
        ``query_weights`` are the one home of the gAUC weightings: :attr:`queries` when set
        (each query's AUC on its own scale, as :func:`bipartite.metrics.group_auc` takes it
        when the weights span more than 2^400: :func:`bipartite.metrics.query_scaled`), else
        made from ``within``."""
        if self.queries is not None:
            return self.queries
        if self.within is None:
            raise ValueError("The per-unit AUCs need 'within' sums: the units are rows.")
        return unit_stats(self.pos, self.neg, self.within, self.weight, self.n_rows)

    def gauc_terms(self, weighting: str = "pairs") -> np.ndarray:
        """(m, G) scaled influence of the gAUC (delta method for the ratio ``Σ λ a / Σ λ``,
        clustered by query; docs/theory.md §2.6): ``t = λ_q (AUC_q − gAUC) / Σ λ · √(G'/(G' −
        1))`` with G' the queries that define it (λ_q > 0); NaN when fewer than two do."""
        gs = self.grouped()
        lam = gs.query_weights(weighting).T
        g = gs.gauc(weighting)[:, None]
        a = np.where(lam > 0, gs.auc.T, 0.0)
        gd = np.count_nonzero(lam > 0, axis=1)[:, None]  # the queries defining each gAUC
        with np.errstate(invalid="ignore", divide="ignore"):
            c = np.where(gd > 1, np.sqrt(gd / np.maximum(gd - 1, 1)), np.nan)
            return lam * (a - g) / lam.sum(axis=1, keepdims=True) * c

    # -- bootstrap replicates -------------------------------------------------------------
    def boot_gauc(self, M: np.ndarray, weighting: str = "pairs") -> np.ndarray:
        """(m, B) exact gAUC replicates for unit multiplicities ``M`` (B, G); NaN where no
        drawn query has both classes."""
        lam, la = self._gauc_parts(weighting)
        num, den = M @ la, M @ lam
        return np.divide(num, den, out=np.full(num.shape, np.nan), where=den > 0).T

    def jackknife_gauc(self, weighting: str = "pairs") -> np.ndarray:
        """(m, G) exact gAUCs with each query left out in turn (the replicate of
        :meth:`boot_gauc` for ``M = 1 − e_q``, in O(m G)); NaN where no other query has both
        classes."""
        lam, la = self._gauc_parts(weighting)
        num, den = la.sum(axis=0) - la, lam.sum(axis=0) - lam
        return np.divide(num, den, out=np.full(num.shape, np.nan), where=den > 0).T

    def _gauc_parts(self, weighting: str) -> tuple[np.ndarray, np.ndarray]:
        """(λ, λ·AUC) (G, m): the query weights of the gAUC and their products with the
        queries' AUCs (0 where λ is 0)."""
        gs = self.grouped()
        lam = gs.query_weights(weighting)  # (G, m)
        return lam, lam * np.where(lam > 0, gs.auc, 0.0)

    def jackknife_auc(self) -> np.ndarray:
        """(m, G) exact pooled AUCs with each unit left out in turn (BCa's acceleration,
        :func:`bipartite.diagnostics._intervals.acceleration`; docs/theory.md §2.6): the pairs
        that unit q takes part
        in are ``below_q + above_q − within_q`` (``within_q`` counted in both), so
        ``θ_(q) = (U − below_q − above_q + within_q) / ((P − P_q)(N − N_q))``. With rows as
        units ``within`` is 0 (a row is on one side of a weight pair only); with queries it
        needs the ``within`` sums. NaN where a class loses all its weight."""
        if self.clustered and self.within is None:
            raise ValueError("The leave-one-query-out AUCs need 'within' sums.")
        P, N = self.totals()
        U = self.below.sum(axis=1, keepdims=True)
        num = U - self.below - self.above + (0.0 if self.within is None else self.within)
        den = (P[:, None] - self.pos) * (N[:, None] - self.neg)
        return np.divide(num, den, out=np.full(num.shape, np.nan), where=den > 0)

    def boot_auc(self, M: np.ndarray) -> np.ndarray:
        """(m, B) linearised pooled-AUC replicates for unit multiplicities ``M`` (B, G):
        ``(Σ_q M_q (below_q + above_q) − U) / (P* N*)`` (module docstring, docs/theory.md
        §2.6); NaN where a class
        has no weight in a replicate."""
        U = self.below.sum(axis=1)
        num = M @ (self.below + self.above).T - U
        P, N = M @ self.pos.T, M @ self.neg.T
        ok = (P > 0) & (N > 0)
        return np.divide(num, P * N, out=np.full(num.shape, np.nan), where=ok).T


def unit_stats(pos: np.ndarray, neg: np.ndarray, within: np.ndarray, weight: np.ndarray,
               n_rows: np.ndarray, exp: np.ndarray | None = None) -> GroupedStats:
    """The units' :class:`bipartite.metrics.GroupedStats` (K = m) from per-unit masses ``pos``,
    ``neg`` and ``within`` sums (m, G) (``AUC_pq = within / (P_pq N_pq)``, NaN where a class
    has no weight), row weights ``weight`` and rows ``n_rows`` (G,); ``exp`` (G,): the masses
    are each query's times ``2^−exp_q`` (:func:`bipartite.metrics.query_scaled`; out of core,
    :func:`bipartite.diagnostics._dask_kernels.within_part`)."""
    ok = (pos > 0) & (neg > 0)
    auc = np.divide(within, pos * neg, out=np.full(pos.shape, np.nan), where=ok)
    return GroupedStats(query_ids=None, n=n_rows, weight=weight, pos=pos.T, neg=neg.T,
                        auc=auc.T, exp=exp)


def influence_var(t: np.ndarray) -> np.ndarray:
    """Variances ``Σ_u t²`` (...,) of scaled influence terms ``t`` (..., U) on common units
    (:meth:`PlacementSums.terms`, :meth:`PlacementSums.gauc_terms`, or differences of them: a
    paired or a Diff variance; NaN rows stay NaN)."""
    return np.einsum("...u,...u->...", t, t)


def side_scales(top: np.ndarray) -> np.ndarray:
    """The powers of two that bring the largest weights ``top`` (m,) of the sides of m weight
    pairs into [½, 1) (1 for an empty side). The label pairs' sides take them: a pair's "k
    only" and "j only" rows may all be light where the heavy rows have both labels or neither
    (weights 1e-170 against 1: ``P N`` would underflow to 0 and a defined win rate read NaN);
    every statistic of the table is a ratio of sums scaled alike, unchanged by them."""
    return pow2_scale(top)


def label_pair_weights(Y: np.ndarray, w: np.ndarray, pairs: np.ndarray | None = None
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The weight pairs (m, n) of the labels (``pairs`` None: ``w y_k``, ``w (1 − y_k)``) or of
    the label pairs ``pairs`` (p, 2) (``w y_k (1 − y_j)``, ``w y_j (1 − y_k)``)."""
    return weight_rows(np.ascontiguousarray(np.asarray(Y).astype(bool).T), w, pairs)


def weight_rows(Yt: np.ndarray, w: np.ndarray | float, pairs: np.ndarray | None
                ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`label_pair_weights` of the 0/1 labels given transposed, ``Yt`` (K, n) bool, with row
    weights ``w`` (n,) or one weight for every row (a float)."""
    if pairs is None:
        pos = np.multiply(w, Yt)
        return pos, w - pos  # exact: w − w·1 = 0, w − w·0 = w
    Yk, Yj = Yt[pairs[:, 0]], Yt[pairs[:, 1]]
    return np.multiply(w, Yk & ~Yj), np.multiply(w, Yj & ~Yk)


def _unit_sums(X: np.ndarray, codes_sorted: np.ndarray | None, G: int) -> np.ndarray:
    """(m, G) sums of the rows' values ``X`` (m, n), given in segment order, per unit (their
    codes in the same order); without codes the units are the rows."""
    if codes_sorted is None:
        return X
    return np.stack([np.bincount(codes_sorted, x, minlength=G) for x in X]).reshape(-1, G)


def placement_sums(s: np.ndarray, pos: np.ndarray, neg: np.ndarray, *,
                   codes: np.ndarray | None = None, G: int | None = None,
                   weight: np.ndarray | None = None, seg: QuerySegments | None = None,
                   qseg: QuerySegments | None = None, within: bool = True) -> PlacementSums:
    """:class:`PlacementSums` of the scores ``s`` (n,) for the weight pairs ``pos``, ``neg``
    (m, n), in memory from the grouped engine.

    ``codes``: query codes 0..G−1 (the units; None: the rows), ``weight`` (n,): the row
    weights (default ``pos[0] + neg[0]``), ``seg`` / ``qseg``: the scores' global and per-query
    :class:`~bipartite.metrics.QuerySegments`, when already built; ``within``: also the per-unit
    AUCs (from ``qseg``; the win rates, pooled, do not need them). One pass over the global
    tie groups gives every row's placements."""
    pos, neg = np.atleast_2d(pos), np.atleast_2d(neg)
    w = pos[0] + neg[0] if weight is None else np.asarray(weight, dtype=np.float64)

    def pairs_in(o):
        return (pos, neg) if o is None else (np.take(pos, o, axis=1), np.take(neg, o, axis=1))

    return _build(s, pairs_in, w, codes, G, seg, qseg, within)


def label_sums(s: np.ndarray, Y: np.ndarray, w: np.ndarray, pairs: np.ndarray | None = None,
               *, codes: np.ndarray | None = None, G: int | None = None,
               seg: QuerySegments | None = None, qseg: QuerySegments | None = None,
               within: bool = True) -> PlacementSums:
    """:func:`placement_sums` of the labels of ``Y`` (n, K) 0/1 with row weights ``w`` (or of
    the label pairs ``pairs``: :func:`label_pair_weights`), gathering the 0/1 labels and the
    weights into each sort order once instead of the m weight rows twice (the gathers are the
    cost at 10⁶ rows and more)."""
    Yt = np.ascontiguousarray(np.asarray(Y).astype(bool).T)  # (K, n), 1 byte a label
    w = np.asarray(w, dtype=np.float64)
    scales: list = []  # the label pairs' sides' powers of two (side_scales), from the first call

    def pairs_in(o):
        pos, neg = weight_rows(Yt, w, pairs) if o is None else weight_rows(
            np.take(Yt, o, axis=1), w[o], pairs)
        if pairs is None:
            return pos, neg
        if not scales:
            scales.extend([side_scales(pos.max(axis=1, initial=0.0))[:, None],
                           side_scales(neg.max(axis=1, initial=0.0))[:, None]])
        return pos * scales[0], neg * scales[1]

    return _build(s, pairs_in, w, codes, G, seg, qseg, within)


def _build(s, pairs_in, w, codes, G, seg, qseg, within) -> PlacementSums:
    """The table from ``pairs_in(order)``: the weight pairs (m, n) in that row order (None: the
    input order)."""
    s = np.asarray(s, dtype=np.float64)
    n = len(s)
    seg = QuerySegments(s, check_input=False) if seg is None else seg
    o = seg.order
    Ps, Ns = pairs_in(o)
    ties = len(seg.starts) < n  # else every tie group is one row: no segment sums
    Gp = np.add.reduceat(Ps, seg.starts, axis=1) if ties else Ps
    Gn = np.add.reduceat(Ns, seg.starts, axis=1) if ties else Ns
    Bt, At = tie_placements(Gp, Gn)  # per tie group: negatives below, positives above
    if ties:
        sizes = np.diff(np.r_[seg.starts, n])
        Bt, At = np.repeat(Bt, sizes, axis=1), np.repeat(At, sizes, axis=1)
    below_rows, above_rows = np.multiply(Ps, Bt, out=Bt), np.multiply(Ns, At, out=At)
    n_pos, n_neg = np.count_nonzero(Ps, axis=1), np.count_nonzero(Ns, axis=1)
    if codes is None:
        inv = np.empty(n, dtype=np.int64)
        inv[o] = np.arange(n)
        pos, neg = pairs_in(None)
        return PlacementSums(pos=pos, neg=neg, below=np.take(below_rows, inv, axis=1),
                             above=np.take(above_rows, inv, axis=1), within=None, weight=w,
                             n_rows=np.ones(n, dtype=np.int64), n_pos=n_pos, n_neg=n_neg,
                             clustered=False)
    G = int(codes.max()) + 1 if G is None else G
    cs = codes[o]
    below, above = _unit_sums(below_rows, cs, G), _unit_sums(above_rows, cs, G)
    del below_rows, above_rows
    if within:
        qseg = QuerySegments(s, codes, check_input=False) if qseg is None else qseg
        # the engine's per-query AUC (times P N), the rows gathered into its order once
        auc, P, N = qseg.auc(*pairs_in(qseg.order), presorted=True)
        inner = np.where((P > 0) & (N > 0), auc * P * N, 0.0)
        pad = ((0, 0), (0, G - P.shape[1]))  # codes past the largest present: empty units
        inner, P, N = np.pad(inner, pad), np.pad(P, pad), np.pad(N, pad)
    else:
        P, N, inner = _unit_sums(Ps, cs, G), _unit_sums(Ns, cs, G), None
    return PlacementSums(pos=P, neg=N, below=below, above=above, within=inner,
                         weight=np.bincount(codes, w, minlength=G),
                         n_rows=np.bincount(codes, minlength=G), n_pos=n_pos, n_neg=n_neg,
                         clustered=True)


def query_notes(auc: np.ndarray, n_pos: np.ndarray, n_neg: np.ndarray | None, label: str
                ) -> np.ndarray:
    """The note of each query's AUC of ``label`` (None where it is defined): which class the
    query lacks (``n_pos``, ``n_neg``: its rows with positive weight in each class; ``n_neg``
    None when not counted, out of core), or, when it has both, that its weights underflow in
    float64 beside the heaviest rows' (the AUC is then NaN, not a missing class)."""
    lost = (f"AUC undefined for {label!r}: the query has both classes, but its positive or "
            "negative weight underflows to 0 in float64 beside the heaviest rows' (weights "
            "below about 2^-1074 of the largest); rescale its weights")
    no_neg = (f"query has no negative for {label!r}" if n_neg is not None else
              f"query has no negative with weight for {label!r} (or its negatives' weights "
              "underflow in float64 beside the heaviest rows')")
    out = np.full(len(auc), None, dtype=object)  # the notes of the undefined AUCs only (no
    bad = ~np.isfinite(auc)  # array of long strings per query: 10⁵ queries and more)
    if bad.any():
        texts = np.array([f"query has no positive for {label!r}", no_neg, lost], dtype=object)
        which = np.where(np.asarray(n_pos)[bad] == 0, 0,
                         np.where(np.asarray(n_neg)[bad] == 0, 1, 2) if n_neg is not None else 1)
        out[bad] = texts[which]
    return out

