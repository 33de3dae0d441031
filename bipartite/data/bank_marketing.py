"""UCI Bank Marketing loader: the "Banking" data of LA25 §7 (docs/theory.md §10.5).

LA25 §7 ranks bank clients by two labels, *mortgage* and *personal loan*, and reports
single-label AUCs of 0.52–0.64. Those labels and numbers fit the UCI Bank Marketing data (Moro,
Laureano & Cortez 2011; Moro, Cortez & Rita 2014; 45 211 clients of a Portuguese bank, CC BY 4.0):

* ``Y[:, 0]`` = **mortgage** = ``housing == "yes"`` (has a housing loan), π ≈ 0.556;
* ``Y[:, 1]`` = **personal loan** = ``loan == "yes"``, π ≈ 0.160.

They do not fit :func:`bipartite.data.load_bank_personal_loan` (the UniversalBank "Bank Personal Loan" set),
where the personal loan is predicted with AUC ≈ 0.99 and ``Mortgage > 0`` carries no signal.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from bipartite._utils.files import first_non_utf8
from bipartite.data.paths import data_dir, missing_file_error

__all__ = ["BANK_MARKETING_CATEGORIES", "BANK_MARKETING_FEATURE_SETS", "load_bank_marketing"]

#: File names looked up in a data folder, in order: this project's copy, then the UCI names.
_FILE_NAMES = ("bank_marketing_full.csv", "bank-full.csv", "bank.csv")
_SOURCE = (
    "the UCI Machine Learning Repository, 'Bank Marketing' (https://archive.ics.uci.edu/dataset/"
    "222/bank+marketing; bank-full.csv), or ../shared/data/bank_marketing_full.csv (see "
    "../shared/data/README.md, section 0)"
)

#: Allowed values of every categorical column (UCI documentation; ``unknown`` is a value).
BANK_MARKETING_CATEGORIES: dict[str, tuple[str, ...]] = {
    "job": ("admin.", "blue-collar", "entrepreneur", "housemaid", "management", "retired",
            "self-employed", "services", "student", "technician", "unemployed", "unknown"),
    "marital": ("divorced", "married", "single"),
    "education": ("primary", "secondary", "tertiary", "unknown"),
    "default": ("no", "yes"),
    "housing": ("no", "yes"),
    "loan": ("no", "yes"),
    "contact": ("cellular", "telephone", "unknown"),
    "month": ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
    "poutcome": ("failure", "other", "success", "unknown"),
    "y": ("no", "yes"),
}
_INTEGER = ("age", "balance", "day", "duration", "campaign", "pdays", "previous")
#: The 17 columns of the file (the target is ``y`` in the UCI original, ``Y`` in this project's
#: copy; the header is matched case-insensitively).
_COLUMNS = ("age", "job", "marital", "education", "default", "balance", "housing", "loan",
            "contact", "day", "month", "duration", "campaign", "pdays", "previous", "poutcome",
            "y")

#: Feature columns of each feature set (the labels ``housing`` and ``loan`` are never features).
BANK_MARKETING_FEATURE_SETS: dict[str, tuple[str, ...]] = {
    "client": ("age", "job", "marital", "education", "default", "balance"),
    "all": ("age", "job", "marital", "education", "default", "balance", "contact", "day",
            "month", "duration", "campaign", "pdays", "previous", "poutcome", "y"),
}


def _resolve(path: str | os.PathLike | None) -> Path:
    """The CSV file: ``path`` itself, or the first known file name in the folder ``path`` (default:
    the data folder, :func:`bipartite.data.data_dir`)."""
    if path is not None and not isinstance(path, str | os.PathLike):
        raise TypeError(f"The 'path' parameter must be a path or None, got {type(path).__name__}.")
    target = data_dir(path) if path is None else Path(path)
    if target.is_dir():
        for name in _FILE_NAMES:
            if (target / name).is_file():
                return target / name
        raise missing_file_error(target / _FILE_NAMES[0], "Bank Marketing CSV", _SOURCE)
    if not target.is_file():
        raise missing_file_error(target, "Bank Marketing CSV", _SOURCE)
    return target


class _checked_rows:
    """A csv reader whose errors (a field over ``csv.field_size_limit()``, 128 KiB by default; a
    NUL byte; a quote left open at the end) name the file and the line."""

    def __init__(self, path: Path, reader) -> None:
        self.path, self.reader = path, reader

    @property
    def line_num(self) -> int:
        return self.reader.line_num

    def __iter__(self):
        return self

    def __next__(self) -> list[str]:
        try:
            return next(self.reader)
        except csv.Error as exc:
            raise ValueError(f"{self.path}:{self.reader.line_num}: malformed CSV line ({exc}; "
                             f"the field size limit is {csv.field_size_limit()} characters)"
                             ) from None


def _read_rows(path: Path) -> dict[str, list]:
    """Parse the CSV (``,`` or ``;``, quoted or not) into columns, checking every row; a bad row
    raises ``ValueError`` naming ``file:line``."""
    with open(path, encoding="utf-8-sig", newline="") as fh:
        first = fh.readline()
        if not first.strip():
            raise ValueError(f"{path}:1: empty file; expected the header "
                             f"{','.join(_COLUMNS[:-1])},y")
        delimiter = ";" if first.count(";") > first.count(",") else ","
        fh.seek(0)
        reader = _checked_rows(path, csv.reader(fh, delimiter=delimiter, quotechar='"'))
        header = [h.strip().lower() for h in next(reader)]
        if sorted(header) != sorted(_COLUMNS) or len(header) != len(_COLUMNS):
            raise ValueError(f"{path}:1: unexpected header {header}; expected the 17 Bank "
                             f"Marketing columns {list(_COLUMNS)} (target 'y' or 'Y'), separated "
                             "by ',' or ';'.")
        cols: dict[str, list] = {c: [] for c in header}
        for fields in reader:
            line = reader.line_num
            if not fields or all(not f.strip() for f in fields):
                continue
            if len(fields) != len(header):
                raise ValueError(f"{path}:{line}: expected {len(header)} fields, got "
                                 f"{len(fields)}: {delimiter.join(fields)[:80]!r}")
            for name, text in zip(header, fields, strict=True):
                value = text.strip()
                if name in _INTEGER:
                    try:
                        cols[name].append(int(value))
                    except ValueError:
                        raise ValueError(f"{path}:{line}: column '{name}' must be an integer, "
                                         f"got {text!r}") from None
                else:
                    if value not in BANK_MARKETING_CATEGORIES[name]:
                        raise ValueError(f"{path}:{line}: column '{name}' must be one of "
                                         f"{list(BANK_MARKETING_CATEGORIES[name])}, got {text!r}")
                    cols[name].append(value)
    if not cols["age"]:
        raise ValueError(f"{path}: no data rows after the header")
    return cols


def _encoder(columns: tuple[str, ...]):
    """The scikit-learn encoder of a feature set: one-hot for the categorical columns (every
    known category, in the order of :data:`BANK_MARKETING_CATEGORIES`; a yes/no column becomes
    one 0/1 column, ``drop="if_binary"``), the integer columns passed through."""
    from sklearn.compose import ColumnTransformer
    from sklearn.preprocessing import OneHotEncoder

    categorical = [c for c in columns if c in BANK_MARKETING_CATEGORIES]
    numeric = [c for c in columns if c not in BANK_MARKETING_CATEGORIES]
    onehot = OneHotEncoder(categories=[list(BANK_MARKETING_CATEGORIES[c]) for c in categorical],
                           drop="if_binary", sparse_output=False, dtype=np.float64)
    return ColumnTransformer([("numeric", "passthrough", numeric), ("onehot", onehot, categorical)],
                             verbose_feature_names_out=False)


def load_bank_marketing(path: str | os.PathLike | None = None, *, features: str = "client"
                        ) -> Bunch:
    """Load UCI Bank Marketing as the two-label problem of LA25 §7 (docs/theory.md §10.5).

    Labels ``Y = [mortgage, personal_loan]``: ``mortgage = 1[housing == "yes"]`` (π ≈ 0.556 on the
    full data) and ``personal_loan = 1[loan == "yes"]`` (π ≈ 0.160).

    Parameters
    ----------
    path : path or None
        The CSV file, or a folder holding ``bank_marketing_full.csv`` (this project's copy),
        ``bank-full.csv`` or ``bank.csv`` (the UCI names). Default: that lookup in the data folder
        (:func:`bipartite.data.data_dir`: ``$BIPARTITE_DATA``, else ``../shared/data``).
        Both layouts are read: this project's copy (``,``-separated, unquoted, target ``Y``) and
        the UCI original (``;``-separated, quoted strings, target ``y``); the header is matched
        case-insensitively and in any column order.
    features : {"client", "all"}
        ``"client"`` (default): the client's own attributes, ``age``, ``job``, ``marital``,
        ``education``, ``default``, ``balance``. ``"all"``: also the columns of the phone
        campaign, ``contact``, ``day``, ``month``, ``duration``, ``campaign``, ``pdays``,
        ``previous``, ``poutcome`` and its outcome ``y``. The default is ``"client"`` because
        LA25 ranks *clients* by what they hold (a mortgage, a personal loan); the campaign
        columns describe when and how the bank called them, ``duration`` is known only after the
        call and ``y`` is the campaign's result, and LA25 does not say it used them. They also
        change the problem: with them the mortgage label becomes much easier (a gradient-boosted
        single-label AUC of about 0.86 instead of 0.71, ``../shared/data/README.md``), further
        from LA25's reported 0.52–0.64.

    Encoding: :class:`sklearn.compose.ColumnTransformer` with a
    :class:`sklearn.preprocessing.OneHotEncoder` over the categorical columns (every documented
    category, ``unknown`` included, so the columns do not depend on which values a file holds;
    yes/no columns give one 0/1 column) and the integer columns passed through unscaled.

    A missing file raises ``FileNotFoundError`` saying where to get it. A wrong header, a row with
    the wrong number of fields, a non-integer in an integer column or an undocumented category
    raises ``ValueError`` naming ``file:line``.

    Returns
    -------
    Bunch with ``X`` (n, p) float64, ``Y`` (n, 2) int64, ``feature_names`` (p,),
    ``label_names`` ``["mortgage", "personal_loan"]``, ``features`` (the feature set),
    ``columns`` (the raw columns behind ``X``), ``encoder`` (the fitted ColumnTransformer) and
    ``file``. ``p`` is 22 for ``"client"`` and 47 for ``"all"``.

    >>> from bipartite.data import data_file
    >>> d = load_bank_marketing(data_file("bank_marketing_full.csv", required=True))
    >>> d.X.shape, d.Y.sum(axis=0).tolist()
    ((45211, 22), [25130, 7244])
    """
    if features not in BANK_MARKETING_FEATURE_SETS:
        raise ValueError(f"The 'features' parameter must be one of "
                         f"{list(BANK_MARKETING_FEATURE_SETS)}, got {features!r}.")
    file = _resolve(path)
    try:
        cols = _read_rows(file)
    except UnicodeDecodeError as exc:
        line = (first_non_utf8(file) or (0,))[0]
        raise ValueError(f"{file}:{line}: not UTF-8 text ({exc.reason})") from None
    import pandas as pd

    columns = BANK_MARKETING_FEATURE_SETS[features]
    frame = pd.DataFrame({c: cols[c] for c in columns})
    encoder = _encoder(columns)
    X = np.asarray(encoder.fit_transform(frame), dtype=np.float64)
    Y = np.column_stack([np.asarray(cols["housing"]) == "yes",
                         np.asarray(cols["loan"]) == "yes"]).astype(np.int64)
    return Bunch(X=X, Y=Y, feature_names=[str(f) for f in encoder.get_feature_names_out()],
                 label_names=["mortgage", "personal_loan"], features=features,
                 columns=list(columns), encoder=encoder, file=str(file))
