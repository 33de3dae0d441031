"""The orders of the loss-aggregation scorers: the arrangement of tie hyperplanes in the weight
simplex (docs/theory.md §6.2, §13.2). A walk of its lines for K = 3 (below), and every face for
any K by a recursion over flats (:func:`arrangement_faces`).

For mixing weights ``a`` on the simplex the loss-aggregation scorer is ``f_a = E a`` with
``E_ik = η_ik / (π_k (1 − π_k))`` (docs/theory.md §4). Every unordered pair ``p = (i, j)``
contributes to the AUC vector of a weak order ``(W_ij + W_ji)/2 + s (W_ij − W_ji)/2`` per label
(``W = pair_weight_stack``), with ``s = +1, 0, −1`` as i is above, tied with, below j. For the
order of ``f_a`` itself ``s = sgn(a·h_p)``, ``h_p = E_i − E_j``, so

    ``V(a) = C + Σ_p sgn(a·h_p) g_p``,  ``C = ½ Σ_ij W_ij``,  ``g_p = (W_ij − W_ji)/2``,

for every ``a``, tie orders included (a tied pair has ``s = 0``: the average of its two
orientations, self-pairs in C). The faces of the arrangement of the tie lines
``{a·h_p = 0}`` on the simplex are enumerated by walking each line (and each facet
``a_k = 0``) once: along a line the sign vector changes only where another line crosses it, so
the vectors of all its vertices and edges, and of the cells on its two sides, are a cumulative
sum of the crossings' jumps ``−2 s_p g_p``. Every cell has an edge on some line or facet, every
edge and vertex lies on one, so the walks meet every face (most several times, with the same
vector). Cost ``O(L·P log P)`` for L distinct lines and P = n(n−1)/2 pairs, vectorised per line:
``O(n⁴ log n)`` in all, against the ``O(n⁴)`` sorts of one order per face.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from bipartite.pareto.dp import pair_weight_stack

if TYPE_CHECKING:
    from bipartite.population import FiniteProblem

#: Geometric resolution of the weight-space arrangement (unit normals, weights on the simplex):
#: two tie hyperplanes closer than this are one, a weight this close to a hyperplane is on it.
GEOM_TOL = 1e-10
#: Relative resolution of scores: two scores within this fraction of the score scale are tied.
SCORE_RTOL = 1e-10


def effective_scores(problem: FiniteProblem) -> np.ndarray:
    """``E_ik = η_ik / (π_k (1 − π_k))``: ``f_a = E a`` (docs/theory.md §4)."""
    from bipartite.bayes import effective_weights

    return problem.eta * effective_weights(problem.pi)


def lex_scores(E: np.ndarray, levels: list[np.ndarray]) -> np.ndarray:
    """Ranks of the weak order of the rows of E under the lexicographic key
    ``(E @ levels[0], E @ levels[1], ...)``: the order of ``f_x`` at ``x = m + δ v_1 + δ² v_2 + …``
    for infinitesimal δ (``levels = [m, v_1, v_2, …]``). At each level, values within
    ``SCORE_RTOL`` of the score scale are equal (a tie), which a pair whose tie hyperplane
    contains the point has up to rounding."""
    n = len(E)
    groups = np.zeros(n, dtype=np.int64)
    scale = float(np.abs(E).max()) or 1.0
    for v in levels:
        f = E @ v
        tau = SCORE_RTOL * scale * float(np.abs(v).sum())
        order = np.lexsort((f, groups))
        brk = np.ones(n, dtype=bool)
        brk[1:] = (np.diff(groups[order]) != 0) | (np.diff(f[order]) > tau)
        groups = np.empty(n, dtype=np.int64)
        groups[order] = np.cumsum(brk) - 1
    return groups.astype(np.float64)


def cuts_simplex(H: np.ndarray, tau: float) -> np.ndarray:
    """(P,) whether each tie normal ``H[p]`` cuts the open simplex: entries of both signs once
    entries within ``tau`` of 0 (the score resolution of :func:`lex_scores`) count as 0. An
    exact sign test would let a rounding difference (two points' η equal up to one ulp in a
    label) turn the facet ``a_k = 0`` into a cutting line, whose cells outside the simplex the
    walk would then take (found by review: Pareto-dominated points in ``supported_frontier``)."""
    Hz = np.where(np.abs(H) <= tau, 0.0, H)
    return (Hz.max(axis=1) > 0) & (Hz.min(axis=1) < 0)


def tie_normals(E: np.ndarray) -> np.ndarray:
    """Unit normals of the distinct tie hyperplanes ``{a : (E_i − E_j)·a = 0}`` that cut the
    open simplex (normals with entries of both signs; a normal ≥ 0 or ≤ 0 is zero on the simplex
    only on one of its faces, whose ties the score resolution finds), then the K facets
    ``a_k = 0``."""
    K = E.shape[1]
    iu, ju = np.triu_indices(len(E), 1)
    H = E[iu] - E[ju]
    H = H[cuts_simplex(H, SCORE_RTOL * (float(np.abs(E).max()) or 1.0))]
    if len(H):
        H = H / np.linalg.norm(H, axis=1, keepdims=True)
        first = H[np.arange(len(H)), np.argmax(np.abs(H) > GEOM_TOL, axis=1)]
        H = H * np.sign(first)[:, None]
        _, idx = np.unique(np.round(H / (100 * GEOM_TOL)), axis=0, return_index=True)
        H = H[np.sort(idx)]
    return np.vstack([H.reshape(-1, K), np.eye(K)])


@dataclass(frozen=True)
class LineFaces:
    """The faces met by the walk of one line (or facet) of the arrangement, K = 3.

    ``V`` (f, K): the AUC vector of each face's order; ``dim`` (f,): 0 vertex, 1 edge, 2 cell;
    ``levels`` (f, 2, K): a symbolic point of the face, ``a + δ u`` for infinitesimal δ
    (``u = 0`` for vertices and edges; see :func:`lex_scores`); ``own`` (f,): the cells that
    this line owns (:func:`walk_faces`: over the whole walk every cell is owned exactly once;
    False for vertices and edges)."""

    V: np.ndarray
    dim: np.ndarray
    levels: np.ndarray
    own: np.ndarray


def _segment(normal: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The end points of ``{a : a·normal = 0, Σ a = 1, a ≥ 0}`` (K = 3), or None when it is
    not a segment (it misses the simplex or touches it in one point)."""
    K = len(normal)
    pts = []
    for j in range(K):
        M = np.vstack([normal, np.eye(K)[j], np.ones(K)])
        if abs(np.linalg.det(M)) < 1e-14:
            continue
        a = np.linalg.solve(M, np.array([0.0, 0.0, 1.0]))
        if np.all(a >= -GEOM_TOL):
            pts.append(np.clip(a, 0.0, None) / np.clip(a, 0.0, None).sum())
    if not pts:
        return None
    P = np.array(pts)
    D = np.abs(P[:, None, :] - P[None, :, :]).max(axis=2)
    i, j = np.unravel_index(int(np.argmax(D)), D.shape)
    if D[i, j] <= GEOM_TOL:
        return None
    return P[i], P[j]


#: The "up" direction of the weight triangle that gives every cell its lowest vertex
#: (:func:`walk_faces`), and a second one that breaks the ties of the first (an edge
#: perpendicular to the first): generic, so no tie line of a problem is perpendicular to both.
_UP = np.array([0.5772156649015329, -0.2614972128476428, -0.3157184520538901])
_UP2 = np.array([-0.1415926535897932, 0.4142135623730950, -0.2726209087833018])


def _upward(w: np.ndarray) -> np.ndarray:
    """The directions w (m, 3) in the plane ``Σ a = 0``, each turned to point up: ``w·_UP > 0``,
    or ``w·_UP2 > 0`` where ``w·_UP`` is zero to rounding (a lexicographic order of the plane)."""
    d1, d2 = w @ _UP, w @ _UP2
    flat = np.abs(d1) <= 1e-12 * np.abs(w).sum(axis=-1)
    return w * np.where(flat, np.sign(d2), np.sign(d1))[..., None]


def _ccw(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The orientation of the turn from a to b in the plane ``Σ a = 0`` (seen from (1, 1, 1)):
    > 0 counter-clockwise."""
    return np.cross(a, b) @ np.ones(3)


def walk_faces(problem: FiniteProblem) -> Iterator[LineFaces]:
    """For K = 3: the faces met along every line of the arrangement of tie lines on the closed
    simplex and along its three facets (module docstring), one :class:`LineFaces` per line.

    Signs follow the resolution of :func:`lex_scores`: ``|a·h_p| ≤ SCORE_RTOL·max|E|`` is a
    tie (``Σ a = 1`` on the simplex). Crossings within ``GEOM_TOL`` of each other along a line
    are one vertex.

    **Each cell once** (``own``). A cell is met once per edge, so the walk meets it several times.
    With a generic "up" direction of the triangle (``_UP``, ties broken by ``_UP2``) every
    cell, a convex polygon, has one lowest vertex v, where its two edges both go up. At a vertex
    v where k lines meet (tie lines that cut the open simplex, and facets; three points' three
    tie lines always meet in one vertex) the k upward directions cut the half-plane above v into
    k − 1 sectors between consecutive directions, and these are exactly the cells whose lowest
    vertex is v. Each is **owned** by the line on its clockwise side: the cell beside that line's
    upward edge from v, on the counter-clockwise side, when it lies inside the simplex (the edge
    exists, and for a facet the side is the inside). Over the walk every cell is owned by
    exactly one (line, vertex): ``O(#cells)`` rows instead of one per edge side."""
    E = effective_scores(problem)
    K = E.shape[1]
    if K != 3:
        raise ValueError(f"walk_faces is the K = 3 walk; the problem has K = {K} labels.")
    Ws = pair_weight_stack(problem)
    n = problem.n
    iu, ju = np.triu_indices(n, 1)
    H = E[iu] - E[ju]                                    # (P, K)
    G = 0.5 * (Ws[:, iu, ju] - Ws[:, ju, iu]).T          # (P, K)
    C = 0.5 * Ws.sum(axis=(1, 2))
    tau = SCORE_RTOL * (float(np.abs(E).max()) or 1.0)
    normals = tie_normals(E)
    n_cut = len(normals) - K
    # the lines through a vertex that bound cells: tie lines that cut the open simplex (as in
    # tie_normals), and the facets; their upward directions in the plane Σ a = 0
    cuts = cuts_simplex(H, tau)
    up_p = _upward(np.cross(H, np.ones(K)))
    up_f = _upward(np.cross(np.eye(K), np.ones(K)))
    for li, nl in enumerate(normals):
        seg = _segment(nl)
        if seg is None:
            continue
        A0, A1 = seg
        al, be = H @ A0, H @ (A1 - A0)
        end = al + be
        on = (np.abs(al) <= tau) & (np.abs(end) <= tau)
        at0 = ~on & (np.abs(al) <= tau)
        at1 = ~on & ~at0 & (np.abs(end) <= tau)
        inner = ~on & ~at0 & ~at1 & (np.sign(al) != np.sign(end))
        cross = np.flatnonzero(at0 | at1 | inner)
        t = np.where(at0[cross], 0.0, np.where(at1[cross], 1.0, 0.0))
        ic = inner[cross]
        t[ic] = -al[cross[ic]] / be[cross[ic]]
        o = np.argsort(t, kind="stable")
        cross, t = cross[o], t[o]
        # vertices: 0 and 1, and every group of crossings (gaps ≤ GEOM_TOL) in between
        brk = np.concatenate([[True], np.diff(t) > GEOM_TOL]) if len(t) else np.zeros(0, bool)
        gid = np.cumsum(brk) - 1                         # group of each crossing
        tg = t[brk] if len(t) else np.zeros(0)
        first0 = len(tg) > 0 and tg[0] <= GEOM_TOL
        last1 = len(tg) > 0 and tg[-1] >= 1.0 - GEOM_TOL
        if not first0:
            tg = np.concatenate([[0.0], tg])
            gid = gid + 1
        else:
            tg[0] = 0.0
        if not last1:
            tg = np.append(tg, 1.0)
        else:
            tg[-1] = 1.0
        nv = len(tg)
        tm = 0.5 * (tg[:-1] + tg[1:])                    # edge midpoints
        s0 = np.where(on, 0.0, np.sign(al + tm[0] * be))  # signs on the first edge
        d = s0[cross, None] * G[cross]                   # jump of each crossing: −2 d
        Dg = np.zeros((nv, K))
        np.add.at(Dg, gid, d)
        Ve0 = C + s0 @ G
        Ve = Ve0 - 2.0 * np.concatenate([np.zeros((1, K)), np.cumsum(Dg[1:nv - 1], axis=0)])
        Vv = np.vstack([Ve0 - Dg[0], Ve - Dg[1:]])
        # the cells beside each edge: the pairs on the line take the sign of h_p·u
        if li < n_cut:
            u = nl - nl.mean()
            sides = (1.0, -1.0)
        else:
            u = np.eye(K)[li - n_cut] - 1.0 / K
            sides = (1.0,)
        son = np.where(on, np.sign(H @ u), 0.0) @ G
        A = A0 + tg[:, None] * (A1 - A0)
        Am = A0 + tm[:, None] * (A1 - A0)
        zero = np.zeros_like(Am)
        Vs = [Vv, Ve] + [Ve + s * son for s in sides]
        dims = [np.zeros(nv), np.ones(nv - 1)] + [np.full(nv - 1, 2) for _ in sides]
        lv = ([np.stack([A, np.zeros_like(A)], axis=1), np.stack([Am, zero], axis=1)]
              + [np.stack([Am, np.broadcast_to(s * u, Am.shape)], axis=1) for s in sides])
        own = [np.zeros(nv, bool), np.zeros(nv - 1, bool)] + [
            _owned(s, u, A1 - A0, cross[cuts[cross]], gid[cuts[cross]], nv, up_p, up_f,
                   A, li - n_cut) for s in sides]
        yield LineFaces(np.vstack(Vs), np.concatenate(dims).astype(np.int64), np.vstack(lv),
                        np.concatenate(own))


def _owned(side: float, u: np.ndarray, w: np.ndarray, pairs: np.ndarray, gid: np.ndarray,
           nv: int, up_p: np.ndarray, up_f: np.ndarray, A: np.ndarray, facet: int) -> np.ndarray:
    """Which cells on ``side`` of a line's nv − 1 edges the line owns (:func:`walk_faces`): for
    each vertex (row of A) where the line's upward direction is the most clockwise of the lines
    through it (the crossing ``pairs`` in group ``gid`` that cut the simplex, and the facets
    through the vertex), the cell on the counter-clockwise side of its upward edge from there.
    ``facet``: the facet the line is (0..K − 1), or negative for a tie line."""
    K = len(w)
    wu = _upward(w[None])[0]
    # the vertices where some other line through the vertex turns up counter-clockwise of wu
    # (then the sector between wu and the next such direction is a cell whose lowest vertex
    # is there, and this line bounds it on its clockwise side)
    ahead = np.zeros(nv, dtype=bool)
    if len(pairs):
        np.logical_or.at(ahead, gid, _ccw(wu, up_p[pairs]) > 0)
    on_facet = A <= GEOM_TOL                                   # (nv, K): facets through vertex
    if 0 <= facet < K:
        on_facet[:, facet] = False
    ahead |= ((_ccw(wu, up_f) > 0)[None, :] & on_facet).any(axis=1)
    own = np.zeros(nv - 1, dtype=bool)
    if _ccw(wu, side * u) <= 0:        # the cell on this side is clockwise of the upward edge
        return own
    forward = float(wu @ w) > 0        # upward is the direction of increasing t
    v = np.flatnonzero(ahead)
    # the upward edge from vertex v: edge v (forward) or v − 1; none past the segment's ends
    e = v if forward else v - 1
    own[e[(e >= 0) & (e < nv - 1)]] = True
    return own


def best_faces(problem: FiniteProblem, keep: Callable[[LineFaces], np.ndarray]) -> LineFaces:
    """The faces that ``keep`` selects on each line (a boolean mask per :class:`LineFaces`),
    gathered over every line of :func:`walk_faces`."""
    parts = []
    for lf in walk_faces(problem):
        m = keep(lf)
        parts.append(LineFaces(lf.V[m], lf.dim[m], lf.levels[m], lf.own[m]))
    K = problem.K
    if not parts:
        return LineFaces(np.zeros((0, K)), np.zeros(0, np.int64), np.zeros((0, 2, K)),
                         np.zeros(0, bool))
    return LineFaces(np.vstack([p.V for p in parts]), np.concatenate([p.dim for p in parts]),
                     np.vstack([p.levels for p in parts]), np.concatenate([p.own for p in parts]))


def _distinct(V: np.ndarray, levels: np.ndarray, quantum: float) -> tuple[np.ndarray, np.ndarray]:
    """One row per value of ``round(V / quantum)`` (the first in lexicographic order)."""
    if len(V) <= 1:
        return V, levels
    Q = np.round(V / quantum).astype(np.int64)
    o = np.lexsort(Q.T[::-1])
    new = np.concatenate([[True], np.any(np.diff(Q[o], axis=0) != 0, axis=1)])
    keep = o[new]
    return V[keep], levels[keep]


def cell_vectors(problem: FiniteProblem, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """The AUC vectors of the cells of the arrangement (K = 3): the orders of ``f_a`` for
    generic ``a`` in the open simplex, i.e. the supported vertices (docs/theory.md §6.2), and a
    symbolic point of each cell (``levels`` (m, 2, K), see :class:`LineFaces`).

    Each cell is taken once, from the line that owns it (:func:`walk_faces`); cells whose
    vectors coincide (points with equal η, deterministic labels) are then merged on a grid of
    ``tol`` (which can leave two copies on either side of a grid line), and the caller's
    within-``tol`` merge removes the rest."""
    parts_v: list[np.ndarray] = []
    parts_l: list[np.ndarray] = []
    for lf in walk_faces(problem):
        parts_v.append(lf.V[lf.own])
        parts_l.append(lf.levels[lf.own])
    if not parts_v:
        K = problem.K
        return np.zeros((0, K)), np.zeros((0, 2, K))
    return _distinct(np.vstack(parts_v), np.vstack(parts_l), tol)


# --------------------------------------------------------------------------------------------
# Every face of the arrangement, any K (recursion over flats)
# --------------------------------------------------------------------------------------------
def _inside(levels: list[np.ndarray]) -> bool:
    """Whether ``m + δ v_1 + δ² v_2 + …`` lies in the simplex for small δ > 0 (lexicographic
    non-negativity of every coordinate)."""
    L = np.array(levels)
    for k in range(L.shape[1]):
        big = np.flatnonzero(np.abs(L[:, k]) > GEOM_TOL)
        if big.size and L[big[0], k] < 0:
            return False
    return True


def arrangement_faces(E: np.ndarray) -> list[tuple[list[np.ndarray], int]]:
    """One symbolic point ``[m, v_1, …]`` (see :func:`~bipartite.pareto.arrangement.lex_scores`) in the relative interior of
    every face of the arrangement of tie hyperplanes restricted to the simplex, with the face's
    dimension. Recursion over flats (intersections of hyperplanes, memoised by the set of
    hyperplanes that contain them): the faces of a flat G are the faces of every ``G ∩ h`` plus
    its cells, and every cell is entered from the relative interior of one of its facets by a
    step along G's normal of that facet's hyperplane (docs/theory.md §13)."""
    K = E.shape[1]
    H = tie_normals(E)
    memo: dict[frozenset, list[tuple[list[np.ndarray], int]]] = {}

    def faces(p0: np.ndarray, B: np.ndarray, cand: np.ndarray, key: frozenset):
        if key in memo:
            return memo[key]
        d = B.shape[1]
        if d == 0:
            out = [([p0], 0)] if np.all(p0 >= -GEOM_TOL) else []
            memo[key] = out
            return out
        out: list[tuple[list[np.ndarray], int]] = []
        seen: set[tuple] = set()
        for j in cand:
            g = B.T @ H[j]
            gn = float(np.linalg.norm(g))
            p1 = p0 - (H[j] @ p0) / gn**2 * (B @ g)
            Q = np.linalg.svd(g[None, :])[2][1:].T          # basis of g⊥ in R^d
            B1 = B @ Q
            rest = cand[cand != j]
            par = np.linalg.norm(H[rest] @ B1, axis=1) <= GEOM_TOL
            on = par & (np.abs(H[rest] @ p1) <= GEOM_TOL)
            sub = faces(p1, B1, rest[~par], key | {int(j)} | set(rest[on].tolist()))
            out.extend(sub)
            u = B @ g / gn                                   # step off h_j inside G
            for lv, dim in sub:
                if dim != d - 1:
                    continue
                for s in (1.0, -1.0):
                    lv2 = [*lv, s * u]
                    if not _inside(lv2):
                        continue
                    r = tuple(lex_scores(E, lv2).astype(np.int64))
                    if r not in seen:
                        seen.add(r)
                        out.append((lv2, d))
        memo[key] = out
        return out

    p0 = np.full(K, 1.0 / K)
    B = np.linalg.svd(np.ones((1, K)))[2][1:].T              # basis of 1⊥: Σ_k a_k = 1
    return faces(p0, B, np.arange(len(H)), frozenset())


def concrete_weights(E: np.ndarray, levels: list[np.ndarray]) -> np.ndarray:
    """A weighting on the simplex whose scorer induces the order of the symbolic point
    ``[m, v_1, …]``: from ``a = m``, step along each ``v_l`` by half the distance to the nearest
    tie hyperplane or simplex facet that does not pass through the current ``a`` (so each step
    enters the next face of the symbolic point and crosses nothing else)."""
    target = lex_scores(E, levels)
    a = np.array(levels[0], dtype=np.float64)
    iu, ju = np.triu_indices(len(E), 1)
    scale = float(np.abs(E).max()) or 1.0
    for v in levels[1:]:
        f, fv = E @ a, E @ v
        df, dv = f[iu] - f[ju], fv[iu] - fv[ju]
        off = np.abs(df) > SCORE_RTOL * scale
        with np.errstate(divide="ignore", invalid="ignore"):
            steps = np.concatenate([-df[off] / dv[off], -a[a > GEOM_TOL] / v[a > GEOM_TOL]])
        steps = steps[np.isfinite(steps) & (steps > 0)]
        eps = 0.5 * float(steps.min()) if steps.size else 1.0
        a = a + eps * v
    a = np.clip(a, 0.0, None)
    a = a / a.sum()
    if not np.array_equal(lex_scores(E, [a]), target):
        raise RuntimeError("could not find a weighting inducing the order of a face of the "
                           "weight arrangement (scores closer than the resolution).")
    return a


def cell_scores(E: np.ndarray) -> np.ndarray:
    """The orders (r, n) of the cells of the arrangement of tie hyperplanes in the open simplex,
    any K: the orders of ``f_a = E a`` for generic ``a > 0`` (docs/theory.md §6.2), one row per
    distinct order, from :func:`arrangement_faces` (the faces of dimension K − 1)."""
    K = E.shape[1]
    S = [lex_scores(E, lv) for lv, dim in arrangement_faces(E) if dim == K - 1]
    return np.array(S, dtype=np.float64).reshape(len(S), len(E))
