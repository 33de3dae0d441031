"""Census of the fuzz campaign: every bad input of every registered callable, run under the guard,
counted by outcome class.

    python -m tests.fuzz.census            # default registry (slow cases included with --all)
    python -m tests.fuzz.census --all --jobs 2 --list unclear,silent,hang

Prints a markdown table (outcome, calls, share) and, with ``--list``, the calls of those classes.
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import sys
import warnings
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from tests.fuzz.exempt import EXEMPT
from tests.fuzz.guard import OUTCOMES, run_guarded_batch
from tests.fuzz.registry import CASES, bad_inputs, exact_reference, huge_integer_forms


def _batch(item: tuple[str, str]):
    """Every bad input of one parameter, in one guarded worker (looked up again here, so that
    only names cross process boundaries)."""
    name, param = item
    case = CASES[name]
    fams = [(fam, value) for p, fam, value in bad_inputs(name) if p == param]
    calls = [lambda v=value: case.call(**{param: v}) for _, value in fams]
    results = run_guarded_batch(calls, (param,))
    return [((name, param, fam, value), r) for (fam, value), r in zip(fams, results, strict=True)]


def run_census(include_slow: bool = False, jobs: int = 2):
    """Every bad input under the guard, one forked worker per parameter. ``jobs``
    single-threaded worker processes (forked before any thread starts) each fork the guard's
    worker: no fork ever happens while another thread of the same process could hold a lock."""
    work = list(dict.fromkeys((name, param) for name, case in CASES.items()
                              if include_slow or not case.slow
                              for param, _, _ in bad_inputs(name)))
    if jobs <= 1:
        return [x for item in work for x in _batch(item)]
    ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        return [x for batch in pool.map(_batch, work, chunksize=4) for x in batch]


def _same_exact(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_exact(a[k], b[k]) for k in a)
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(_same_exact(x, y) for x, y in zip(a, b, strict=True))
    return np.array_equal(np.asarray(a, float), np.asarray(b, float), equal_nan=True)


def reference_checks(include_slow: bool = False) -> tuple[int, list[str]]:
    """Integers beyond 2**53 (every ``Case.exact`` parameter, every form of
    :func:`huge_integer_forms`) against the answer on the small integers they shift: the number
    of values checked and the mismatches. Each parameter runs in one guarded worker."""
    checked, bad = 0, []
    for name, case in CASES.items():
        if case.slow and not include_slow:
            continue
        for param, how in case.exact.items():
            r = exact_reference(case.kwargs[param], how)
            forms = huge_integer_forms(r)

            def compare(value, case=case, param=param, r=r):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    want = case.call(**{param: r.astype(np.float64)})
                    if not _same_exact(want, case.call(**{param: value})):
                        raise AssertionError("different answer")
                return 0.0

            results = run_guarded_batch([lambda v=v: compare(v) for v in forms.values()])
            for form, res in zip(forms, results, strict=True):
                checked += 1
                if res.outcome != "silent":
                    bad.append(f"{name} {param}={form}: {res.outcome}: {res.message[:120]}")
    return checked, bad


def table(results) -> str:
    counts = collections.Counter(r.outcome for _, r in results)
    total = sum(counts.values())
    rows = ["| outcome | calls | share |", "|---|---|---|"]
    labels = {"clean": "clean error naming the argument", "nan": "documented NaN + warning",
              "unclear": "unclear error", "silent": "silent value", "hang": "hang or memory blow-up"}
    for o in OUTCOMES:
        rows.append(f"| {labels[o]} | {counts[o]} | {100 * counts[o] / max(total, 1):.1f}% |")
    rows.append(f"| total | {total} | |")
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--all", action="store_true", help="include the slow cases (learners, cvxpy)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--list", default="", help="comma-separated outcome classes to list")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    results = run_census(args.all, args.jobs)
    n_cases = sum(1 for c in CASES.values() if args.all or not c.slow)
    n_accepted = sum(len(CASES[n].accepts) for n in CASES if args.all or not CASES[n].slow)
    print(f"registry: {len(CASES)} callables with a valid call ({n_cases} fuzzed here), "
          f"{len(EXEMPT)} exempt with a reason; {n_accepted} family values documented as valid "
          "input (not counted; tested to give a value)\n")
    print(table(results))
    checked, mismatched = reference_checks(args.all)
    print(f"\nvalues checked against a reference (integers beyond 2**53 vs the small-integer "
          f"answer): {checked}, mismatches: {len(mismatched)}")
    for line in mismatched:
        print("  " + line)
    wanted = {w for w in args.list.split(",") if w}
    for (name, param, fam, _), r in results:
        if r.outcome in wanted:
            print(f"{r.outcome:8s} {name} {param}={fam}: {r.kind}: {r.message[:160]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
