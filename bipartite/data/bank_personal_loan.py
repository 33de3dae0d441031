"""Bank Personal Loan (UniversalBank) loader (docs/theory.md §10); not LA25 §7's Banking data,
which is UCI Bank Marketing (:mod:`bipartite.data.bank_marketing`).
"""


from __future__ import annotations

import csv
import math
import os
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from bipartite._utils.files import first_non_utf8
from bipartite.data.paths import missing_file_error

# ================================================================================================
# Bank Personal Loan (UniversalBank); LA25 §7's Banking data is UCI Bank Marketing
# ================================================================================================

_BANK_HEADER = (
    "ID", "Age", "Experience", "Income", "ZIP Code", "Family", "CCAvg", "Education", "Mortgage",
    "Personal Loan", "Securities Account", "CD Account", "Online", "CreditCard",
)  # fmt: skip
_BANK_BINARY = ("Personal Loan", "Securities Account", "CD Account", "Online", "CreditCard")
_BANK_LABEL_NAMES = {
    "Personal Loan": "personal_loan",
    "Securities Account": "securities_account",
    "CD Account": "cd_account",
    "Online": "online",
    "CreditCard": "credit_card",
}
_BANK_SOURCE = (
    "Bank Personal Loan Modelling (UniversalBank), e.g. "
    "https://www.kaggle.com/itsmesunil/bank-loan-modelling; a copy is "
    "../shared/data/bank_personal_loan.csv (see ../shared/data/README.md)"
)


def load_banking(path: str | os.PathLike) -> Bunch:
    """Load the Bank Personal Loan data as a two-label problem (docs/theory.md §10).

    **Which data set.** ``bank_personal_loan.csv`` is the "Bank Personal Loan Modelling" teaching
    set (UniversalBank, "Thera Bank"; 5000 customers, ``../shared/data/README.md`` §1). It is
    **not the Banking data of LA25 §7**: there the personal loan is predicted with AUC ≈ 0.99 and
    ``Mortgage > 0`` carries no signal, while LA25 reports single-label AUCs of 0.52–0.64. LA25's
    Banking data is UCI Bank Marketing, loaded by :func:`bipartite.data.load_bank_marketing`.
    This loader stays for the MTRUB studies (five binary behaviours) and for the earlier
    ``la25.real`` study.

    Labels ``Y = [personal_loan, has_mortgage]`` with ``has_mortgage = 1[Mortgage > 0]``.
    Features ``X`` = every column except ``ID``, ``Mortgage`` and ``Personal Loan`` (no label
    leakage): Age, Experience, Income, ZIP Code, Family, CCAvg, Education and the four other binary
    columns. For the five-label comparison (MTRUB) ``Y_all`` holds the five binary columns plus
    ``has_mortgage``; use it with ``X_all``, which also drops those four binary columns.

    The file is a CSV with header ``ID,Age,…,CreditCard`` (CRLF and a UTF-8 BOM are accepted).
    A wrong header, a row with the wrong number of fields, a non-number, or a binary column
    outside {0, 1} raises ``ValueError`` naming ``file:line``.

    Returns
    -------
    Bunch with ``X`` (n, 11) float64, ``Y`` (n, 2) int64, ``feature_names``, ``label_names``,
    ``Y_all`` (n, 6) int64, ``all_label_names``, ``X_all`` (n, 7) float64, ``all_feature_names``,
    ``ids`` (n,) int64, ``mortgage`` (n,) float64.

    >>> from bipartite.data import data_file
    >>> d = load_banking(data_file("bank_personal_loan.csv", required=True))
    >>> d.X.shape, d.Y.sum(axis=0).tolist()
    ((5000, 11), [480, 1538])
    """
    path = Path(path)
    if not path.is_file():
        raise missing_file_error(path, "Banking CSV", _BANK_SOURCE)
    rows: list[list[float]] = []
    try:
        return _read_banking(path, rows)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}:{(first_non_utf8(path) or (0,))[0]}: not UTF-8 text ({exc.reason}, "
                         f"byte {exc.object[exc.start:exc.start + 1]!r})") from None


def _read_banking(path: Path, rows: list[list[float]]) -> Bunch:
    seen_ids: dict[float, int] = {}
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header is None:
            raise ValueError(f"{path}:1: empty file; expected the header {','.join(_BANK_HEADER)}")
        header = [h.strip() for h in header]
        if tuple(header) != _BANK_HEADER:
            raise ValueError(
                f"{path}:1: unexpected header {header}; expected {list(_BANK_HEADER)}"
            )
        binary_cols = [_BANK_HEADER.index(c) for c in _BANK_BINARY]
        for fields in reader:
            line = reader.line_num
            if not fields or all(not f.strip() for f in fields):
                continue
            if len(fields) != len(_BANK_HEADER):
                raise ValueError(
                    f"{path}:{line}: expected {len(_BANK_HEADER)} fields, got {len(fields)}: "
                    f"{','.join(fields)[:80]!r}"
                )
            values = []
            for name, text in zip(_BANK_HEADER, fields, strict=True):
                try:
                    v = float(text)
                except ValueError:
                    raise ValueError(
                        f"{path}:{line}: column '{name}' must be a number, got {text!r}"
                    ) from None
                if not math.isfinite(v):
                    raise ValueError(f"{path}:{line}: column '{name}' must be finite, got {text!r}")
                values.append(v)
            for j in binary_cols:
                if values[j] not in (0.0, 1.0):
                    raise ValueError(
                        f"{path}:{line}: column '{_BANK_HEADER[j]}' must be 0 or 1, "
                        f"got {fields[j]!r}"
                    )
            mortgage = values[_BANK_HEADER.index("Mortgage")]
            if mortgage < 0:
                raise ValueError(f"{path}:{line}: column 'Mortgage' must be non-negative, got "
                                 f"{fields[_BANK_HEADER.index('Mortgage')]!r}")
            ident = values[0]
            if ident in seen_ids:
                raise ValueError(f"{path}:{line}: duplicated 'ID' {fields[0]!r} (first on line "
                                 f"{seen_ids[ident]})")
            seen_ids[ident] = line
            rows.append(values)
    if not rows:
        raise ValueError(f"{path}: no data rows after the header")
    A = np.array(rows, dtype=np.float64)
    col = {name: A[:, i] for i, name in enumerate(_BANK_HEADER)}
    has_mortgage = (col["Mortgage"] > 0).astype(np.int64)
    feature_names = [
        c for c in _BANK_HEADER if c not in ("ID", "Mortgage", "Personal Loan")
    ]
    all_feature_names = [c for c in feature_names if c not in _BANK_BINARY]
    all_label_names = [_BANK_LABEL_NAMES[c] for c in _BANK_BINARY] + ["has_mortgage"]
    Y_all = np.column_stack([col[c].astype(np.int64) for c in _BANK_BINARY] + [has_mortgage])
    return Bunch(
        X=np.column_stack([col[c] for c in feature_names]),
        Y=np.column_stack([col["Personal Loan"].astype(np.int64), has_mortgage]),
        feature_names=feature_names,
        label_names=["personal_loan", "has_mortgage"],
        Y_all=Y_all,
        all_label_names=all_label_names,
        X_all=np.column_stack([col[c] for c in all_feature_names]),
        all_feature_names=all_feature_names,
        ids=col["ID"].astype(np.int64),
        mortgage=col["Mortgage"].copy(),
    )
