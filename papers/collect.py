"""Save the per-split results of a ``bipartite reproduce`` run into the repository, so that the
claims registry can recompute its verdicts from them (``papers/README.md``, "Verdicts").

Usage, from the repository root::

    python papers/collect.py RESULTS_FOLDER                      # the studies the claims name
    python papers/collect.py RESULTS_FOLDER --study section7_and  # and/or other studies
    python papers/collect.py RESULTS_FOLDER --study multilabel --only-named  # just that one

``RESULTS_FOLDER`` is the output folder of ``bipartite reproduce --paper P --out RESULTS_FOLDER``
(it holds ``reproduce.json`` and ``studies/<study>/results.csv``). For each study it writes
``papers/<P>/results/<study>.csv``: the rows of ``studies/<study>/results.csv`` without curve
points (rows with a sweep or frontier coordinate ``t``) and without the runner's bookkeeping
columns (:data:`BOOKKEEPING`), floats to :data:`SIGNIFICANT` significant digits; a study with
per-label rows (:data:`PER_LABEL`) keeps one row per task. It also writes
``papers/<P>/results/provenance.json``: the run's ``reproduce.json`` fields and, per study, the
SHA-256 of the source file and the row counts.

By default it collects every study that a claim of paper ``P`` names in its ``results`` field,
so that adding a claim backed by a new study is one ``[[claim]]`` entry plus one run of this
script; ``--study`` adds studies by name.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

PAPERS_DIR = Path(__file__).resolve().parent
REPO_ROOT = PAPERS_DIR.parent
#: Columns of a study's results.csv that identify the run, not the result.
BOOKKEEPING = ("study", "function", "task", "seed", "path", "data", "t")
SIGNIFICANT = 8


def _registry():
    import importlib.util

    spec = importlib.util.spec_from_file_location("_papers_registry_collect",
                                                  PAPERS_DIR / "registry.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def claimed_studies(paper: str, root: Path = PAPERS_DIR) -> list[str]:
    """Studies whose saved results a claim of ``paper`` names (``papers/<paper>/results/<s>.csv``)."""
    prefix = f"papers/{paper}/results/"
    names = {Path(c.results).stem for c in _registry().load_claims(root)
             if c.paper == paper and c.results.startswith(prefix)}
    return sorted(names)


#: Per-label columns of studies that repeat their per-task metrics on every label's row
#: (``la25.multilabel``: Min, Diff, macro-, micro-AUC and the win rates on each kept label's
#: row): they are dropped and the task's rows collapse to one, since the claims contrast the
#: per-task metrics only (and the per-label rows of the 7 Mulan sets are 6 MB).
PER_LABEL = {"multilabel": ("label", "label_index", "prior_train", "prior_test", "alpha_share",
                            "auc", "fit_s")}


def reduce_results(frame, study: str | None = None):
    """The rows and columns kept from a study's results frame (see the module docstring)."""
    if "t" in frame.columns:
        frame = frame[frame["t"].isna()]
    per_label = PER_LABEL.get(study or "", ())
    if per_label:
        keys = [c for c in ("task", "replicate") if c in frame.columns]
        frame = frame.drop_duplicates(subset=keys).drop(
            columns=[c for c in per_label if c in frame.columns])
    return frame.drop(columns=[c for c in BOOKKEEPING if c in frame.columns])


def collect(folder: Path, studies: list[str] | None = None, *, papers_dir: Path = PAPERS_DIR,
            paper: str | None = None, claimed: bool = True) -> list[Path]:
    """Write ``papers/<paper>/results/<study>.csv`` for each study, and ``provenance.json``."""
    import pandas as pd

    folder = Path(folder)
    meta_path = folder / "reproduce.json"
    if not meta_path.is_file():
        raise FileNotFoundError(f"{folder}: no reproduce.json; pass the output folder of "
                                "`bipartite reproduce`.")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    paper = paper or meta.get("paper")
    if not isinstance(paper, str) or not (papers_dir / paper).is_dir():
        raise ValueError(f"{meta_path}: paper {paper!r} has no folder under {papers_dir}.")
    wanted = sorted(set(studies or []) | (set(claimed_studies(paper, papers_dir)) if claimed
                                          else set()))
    if not wanted:
        raise ValueError(f"no study to collect: no claim of {paper} names a results file and "
                         "no --study was given.")
    out_dir = papers_dir / paper / "results"
    out_dir.mkdir(parents=True, exist_ok=True)
    prov_path = out_dir / "provenance.json"
    prov = json.loads(prov_path.read_text(encoding="utf-8")) if prov_path.is_file() else {}
    prov.setdefault("studies", {})
    written = []
    for study in wanted:
        src = folder / "studies" / study / "results.csv"
        if not src.is_file():
            raise FileNotFoundError(f"{src}: missing; run `bipartite reproduce --paper {paper} "
                                    f"--only {study}` into {folder}.")
        raw = src.read_bytes()
        frame = pd.read_csv(src)
        kept = reduce_results(frame, study)
        dest = out_dir / f"{study}.csv"
        kept.to_csv(dest, index=False, float_format=f"%.{SIGNIFICANT}g")
        prov["studies"][study] = {
            "source": f"studies/{study}/results.csv", "sha256": hashlib.sha256(raw).hexdigest(),
            "rows": int(len(frame)), "rows_kept": int(len(kept)),
            "run": {k: meta.get(k) for k in ("paper", "size", "bipartite_version",
                                             "finished_at")},
            "only": (meta.get("options") or {}).get("only")}
        written.append(dest)
    prov_path.write_text(json.dumps(prov, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return [*written, prov_path]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="output folder of `bipartite reproduce`")
    parser.add_argument("--study", action="append", default=[],
                        help="a study to collect besides those the claims name (repeatable)")
    parser.add_argument("--paper", default=None,
                        help="the paper folder under papers/ (default: reproduce.json's paper)")
    parser.add_argument("--only-named", action="store_true",
                        help="collect only the --study studies (a run of some studies only, "
                             "e.g. `reproduce --only multilabel`)")
    args = parser.parse_args(argv)
    for path in collect(args.folder, args.study, paper=args.paper, claimed=not args.only_named):
        print(f"wrote {path.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
