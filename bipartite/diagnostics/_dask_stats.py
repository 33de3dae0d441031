"""The result of the out-of-core statistics (:func:`bipartite.diagnostics.placement_stats`,
computed by :mod:`bipartite.diagnostics._dask_passes`; docs/theory.md §2.3, §7.5,
docs/out_of_core.md): :class:`PlacementStats`, the per-query and total placement sums of every
scorer and weight pair, and their summary (AUCs, W_{k>j}, DeLong variances, gAUCs), computed by
the formulas of :mod:`bipartite.diagnostics._placement_sums`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bipartite.diagnostics._placement_sums import PlacementSums, unit_stats

__all__ = ["PlacementStats"]


def _ps_counts(per_query: pd.DataFrame, scorer: str, pair: str, qids: np.ndarray,
              col: str) -> np.ndarray:
    """Row counts ``col`` of one scorer × pair in the query order ``qids`` (0 where absent)."""
    t = per_query[(per_query["scorer"] == scorer) & (per_query["pair"] == pair)]
    return t.set_index("qid")[col].reindex(qids).fillna(0).to_numpy(dtype=np.int64)


@dataclass
class PlacementStats:
    """Sufficient statistics of the diagnostics (:func:`placement_stats`).

    Attributes
    ----------
    scores, labels : list of str
    pairs : list of (name, label_k, label_j or None) — the weight pairs: each label (named by
        it), then each cross pair k < j (named ``"k>j"``: positives the k-only rows, negatives
        the j-only rows)
    qid, weight : str or None — the columns used
    n_rows : int; n_queries : int or None
    weight_scale : float — the power of two the weights were multiplied by (sums of masses are
        in scaled weights; every ratio below is unchanged)
    source : str — what was read
    per_query : DataFrame or None (without qid) — one row per scorer × pair × query: ``rows``
        (the query's rows, zero weights included), ``pos``,
        ``neg`` (the masses P_q, N_q), ``n_pos``, ``n_neg`` (rows with mass), ``pos_below`` =
        Σ_{i∈q} pos_i below_i and ``neg_above`` = Σ_{i∈q} neg_i above_i (global placements),
        ``pos_below_q``, ``neg_above_q`` (the same with the within-query placements); when the
        weights span more than 2^400, also ``pos_s``, ``neg_s``, ``n_pos_s``, ``n_neg_s``,
        ``pos_below_qs``: the same with each query's weights times ``2^−exp`` (column ``exp``,
        :func:`bipartite.metrics.query_scaled`'s), from which the per-query AUCs and gAUCs are
        taken (:attr:`PlacementSums.queries`; docs/out_of_core.md)
    totals : DataFrame — one row per scorer × pair: the sums of those over the queries, and the
        second moments ``pos2_below2`` = Σ pos² below², ``pos2_below`` = Σ pos² below,
        ``pos2`` = Σ pos², and ``neg2_above2``, ``neg2_above``, ``neg2``
    """

    scores: list[str]
    labels: list[str]
    pairs: list[tuple[str, str, Any]]
    qid: str | None
    weight: str | None
    n_rows: int
    n_queries: int | None
    weight_scale: float
    source: str
    per_query: pd.DataFrame | None
    totals: pd.DataFrame

    def summary(self) -> dict[str, pd.DataFrame]:
        """``{"auc", "win_rates", "per_query"}`` DataFrames (docs/theory.md §2.3, §7.5):

        * per scorer × label: ``auc`` = Σ pos·below / (P N); ``var_delong``, DeLong's variance
          ``c_P S_P / P² + c_N S_N / N²`` with ``S_P = Σ pos² (below/N − θ)²`` (expanded in the
          three moment sums), ``c_P = m/(m − 1)`` over the m rows with positive mass (as
          :func:`bipartite.diagnostics.delong_auc_variance`); ``var_clustered``, the
          query-clustered (sandwich) variance ``G'/(G' − 1) Σ_q ψ_q²`` (G': the queries with weight
          in the pair) with the query's influence
          ``ψ_q = (A_q + B_q)/(P N) − θ (P_q/P + N_q/N)`` (A_q, B_q its ``pos_below``,
          ``neg_above``); ``gauc_pairs`` = Σ_q A^w_q / Σ_q P_q N_q and ``gauc_uniform`` the
          mean of ``A^w_q / (P_q N_q)`` over the queries with both classes (A^w_q: within-query
          ``pos_below_q``); ``prior`` P/(P + N);
        * per scorer × cross pair: the same for W_{k>j} (``win_rate``);
        * per scorer × query × label: the query's AUC (NaN without both classes).

        Undefined quantities are NaN: AUC without both classes, DeLong with a single row in a
        class, the clustered variance with fewer than 2 queries with weight in the pair, gAUCs
        without qid.
        """
        T = self.totals.copy()
        nan = np.nan
        with np.errstate(invalid="ignore", divide="ignore"):
            P, N = T["pos"].to_numpy(), T["neg"].to_numpy()
            ok = (P > 0) & (N > 0)
            th = np.where(ok, T["pos_below"] / (P * N), nan)
            mp, mn = T["n_pos"].to_numpy(), T["n_neg"].to_numpy()
            cp = np.where(mp > 1, mp / np.maximum(mp - 1, 1), nan)
            cn = np.where(mn > 1, mn / np.maximum(mn - 1, 1), nan)
            # Σ pos² (below/N − θ)² = Σ pos² (x − d)² / N² with x = below − θ₀ N, d = θN − θ₀N
            dn = th * N - T["centre_below"]
            dp = th * P - T["centre_above"]
            Sp = (T["pos2_below2_c"] - 2 * dn * T["pos2_below_c"] + dn**2 * T["pos2"]) / N**2
            Sn = (T["neg2_above2_c"] - 2 * dp * T["neg2_above_c"] + dp**2 * T["neg2"]) / P**2
            T["auc"], T["var_delong"] = th, cp * Sp / P**2 + cn * Sn / N**2
        T["var_clustered"], T["gauc_pairs"], T["gauc_uniform"] = nan, nan, nan
        T["n_queries_defined"] = 0
        pq_rows = pd.DataFrame(columns=["scorer", "qid", "label", "n_pos", "n_neg", "auc"])
        if self.per_query is not None:
            T, pq_rows = self._query_terms(T)
        return {"auc": self._table(T, label=True), "win_rates": self._table(T, label=False),
                "per_query": pq_rows}

    def placement_sums(self, scorer: str) -> PlacementSums:
        """The per-query table of one scorer as the report's
        :class:`bipartite.diagnostics._placement_sums.PlacementSums` (pairs in :attr:`pairs` order, queries
        in sorted id order; needs ``qid``): the one home of every statistic computed from it
        (pooled AUC, clustered DeLong, gAUCs, per-query AUCs, bootstrap and jackknife)."""
        if self.per_query is None:
            raise ValueError("The per-query sums need query ids (qid): this run had none.")
        Q = self.per_query[self.per_query["scorer"] == scorer]
        names = [name for name, _, _ in self.pairs]

        def grid(col: str) -> np.ndarray:
            t = Q.pivot(index="pair", columns="qid", values=col).reindex(names)
            return t.sort_index(axis=1).fillna(0.0).to_numpy(dtype=np.float64)

        pos, neg = grid("pos"), grid("neg")
        n_pos, n_neg = grid("n_pos"), grid("n_neg")
        queries = None
        if "pos_s" in Q:  # weights spanning more than 2^400: each query on its own scale
            ps, ns = grid("pos_s"), grid("neg_s")
            queries = unit_stats(ps, ns, grid("pos_below_qs"), ps[0] + ns[0],
                                 grid("rows").astype(np.int64)[0],
                                 exp=grid("exp").astype(np.int64)[0])
        return PlacementSums(pos=pos, neg=neg, below=grid("pos_below"), above=grid("neg_above"),
                             within=grid("pos_below_q"),
                             # a label's classes split every row: its masses are the query's
                             weight=pos[0] + neg[0], n_rows=grid("rows").astype(np.int64)[0],
                             n_pos=n_pos.sum(axis=1), n_neg=n_neg.sum(axis=1), clustered=True,
                             queries=queries)

    def _query_terms(self, T: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The clustered variances, gAUCs and per-query AUCs, from each scorer's
        :meth:`placement_sums` (the formulas of :mod:`bipartite.diagnostics._placement_sums`)."""
        names = [name for name, _, _ in self.pairs]
        labels = [name for name, _, j in self.pairs if j is None]
        parts, pq = [], []
        # rows with mass per query: on each query's own scale when the weights have one
        npos, nneg = ("n_pos_s", "n_neg_s") if "n_pos_s" in self.per_query else ("n_pos", "n_neg")
        for scorer in self.scores:
            ps = self.placement_sums(scorer)
            gs = ps.grouped()
            ok = gs.defined.T  # on each query's own scale when the weights have one
            parts.append(pd.DataFrame({
                "scorer": scorer, "pair": names, "var_clustered": ps.var(),
                "gauc_pairs": gs.gauc("pairs"), "gauc_uniform": gs.gauc("uniform"),
                "n_queries_defined": ok.sum(axis=1).astype(np.int64)}))
            qids = np.sort(self.per_query.loc[self.per_query["scorer"] == scorer, "qid"].unique())
            for k, name in enumerate(names):
                if name in labels:
                    pq.append(pd.DataFrame({"scorer": scorer, "qid": qids, "label": name,
                                            "n_pos": _ps_counts(self.per_query, scorer, name,
                                                               qids, npos),
                                            "n_neg": _ps_counts(self.per_query, scorer, name,
                                                               qids, nneg),
                                            "auc": gs.auc[:, k]}))
        T = T.drop(columns=["var_clustered", "gauc_pairs", "gauc_uniform", "n_queries_defined"]
                   ).merge(pd.concat(parts, ignore_index=True), on=["scorer", "pair"])
        pq_rows = (pd.concat(pq, ignore_index=True) if pq else
                   pd.DataFrame(columns=["scorer", "qid", "label", "n_pos", "n_neg", "auc"]))
        return T, pq_rows

    def _table(self, T: pd.DataFrame, label: bool) -> pd.DataFrame:
        kinds = {name: (k, j) for name, k, j in self.pairs}
        rows = T[[(kinds[p][1] is None) == label for p in T["pair"]]]
        common = ["var_delong", "var_clustered", "gauc_pairs", "gauc_uniform",
                  "n_queries_defined"]
        if label:
            out = rows.assign(label=rows["pair"], prior=rows["pos"] / (rows["pos"] + rows["neg"]),
                              n_pos=rows["n_pos"].astype(np.int64),
                              n_neg=rows["n_neg"].astype(np.int64))
            return out[["scorer", "label", "prior", "n_pos", "n_neg", "auc", *common]
                       ].reset_index(drop=True)
        out = rows.assign(label_k=[kinds[p][0] for p in rows["pair"]],
                          label_j=[kinds[p][1] for p in rows["pair"]], win_rate=rows["auc"],
                          n_k_only=rows["n_pos"].astype(np.int64),
                          n_j_only=rows["n_neg"].astype(np.int64))
        return out[["scorer", "label_k", "label_j", "n_k_only", "n_j_only", "win_rate", *common]
                   ].reset_index(drop=True)
