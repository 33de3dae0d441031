"""Finite problems from files: :func:`load_problem` reads a
:class:`bipartite.population.FiniteProblem` (docs/theory.md §1.3) from JSON or NPZ.

The format is the one the ``bipartite frontier`` and ``bipartite dictatorship`` commands read::

    {"mass": [0.5, 0.5], "label_probs": [[0, 0, 1, 0], [0, 1, 0, 0]], "labels": ["rel", "click"]}

with ``mass`` (n,) and exactly one of ``label_probs`` (n, 2**K; columns ordered as
``itertools.product([0, 1], repeat=K)``) and ``eta`` (n, K; labels independent given x); the
optional ``labels`` names the K labels. An NPZ file holds the same keys as arrays.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np

from bipartite.population import FiniteProblem

__all__ = ["load_problem"]


def load_problem(path: str | os.PathLike, *, return_labels: bool = False
                 ) -> FiniteProblem | tuple[FiniteProblem, list[str]]:
    """A :class:`bipartite.population.FiniteProblem` from a JSON or NPZ file.

    Keys: ``mass`` (n,) and ``label_probs`` (n, 2**K) or ``eta`` (n, K); optional ``labels``: the
    K label names (default ``"1"``, ..., ``"K"``, as the CLI and the figures number labels). With
    ``return_labels=True`` returns ``(problem, names)``. Errors name the file and the key;
    malformed files (not JSON, not a zip archive, nested too deeply, not UTF-8) are refused with
    the file's name.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such problem file.")
    if path.suffix.lower() == ".npz":
        try:
            with np.load(path, allow_pickle=False) as npz:
                data = {k: npz[k] for k in npz.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise ValueError(f"{path}: cannot read the NPZ file: {exc}") from None
        if "labels" in data:
            data["labels"] = [str(v) for v in np.atleast_1d(data["labels"]).tolist()]
    else:
        try:
            data = json.loads(path.read_text(encoding="utf-8-sig"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: invalid JSON: {exc}") from None
        except UnicodeDecodeError as exc:
            raise ValueError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}).") from None
        except RecursionError:
            raise ValueError(f"{path}: the JSON is nested too deeply to be a problem file.") from None
        if not isinstance(data, dict):
            raise ValueError(f"{path}: the problem must be a JSON object with keys 'mass' and "
                             f"'label_probs' or 'eta', got {type(data).__name__}.")
    unknown = sorted(set(data) - {"mass", "label_probs", "eta", "labels"})
    if unknown:
        raise ValueError(f"{path}: unknown key(s) {unknown}; expected 'mass' and 'label_probs' "
                         "or 'eta' (optional 'labels': label names).")
    if "mass" not in data:
        raise ValueError(f"{path}: missing key 'mass' (the n point masses).")
    has_lp, has_eta = "label_probs" in data, "eta" in data
    if has_lp == has_eta:
        raise ValueError(f"{path}: give exactly one of 'label_probs' (n, 2**K) and 'eta' (n, K).")
    try:
        if has_lp:
            problem = FiniteProblem(data["mass"], data["label_probs"])
        else:
            problem = FiniteProblem.from_eta(data["mass"], data["eta"])
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    names = [str(k + 1) for k in range(problem.K)]
    if "labels" in data:
        given = data["labels"]
        if (not isinstance(given, list) or len(given) != problem.K
                or not all(isinstance(v, str) and v for v in given) or len(set(given)) != len(given)):
            raise ValueError(f"{path}: 'labels' must be a list of {problem.K} distinct non-empty "
                             f"names, got {given!r}.")
        names = list(given)
    return (problem, names) if return_labels else problem
