"""bipartite.data.load_bank_marketing: UCI Bank Marketing as LA25 §7's Banking data
(docs/theory.md §10.5). References: pandas' own CSV reader and a hand-written one-hot encoding of
the documented categories."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from bipartite.data import (
    BANK_MARKETING_CATEGORIES,
    BANK_MARKETING_FEATURE_SETS,
    DATA_ENV,
    load_bank_marketing,
    load_bank_personal_loan,
)

HEADER = ("age,job,marital,education,default,balance,housing,loan,contact,day,month,duration,"
          "campaign,pdays,previous,poutcome,Y")
ROWS = [
    "58,management,married,tertiary,no,2143,yes,no,unknown,5,may,261,1,-1,0,unknown,no",
    "44,technician,single,secondary,no,29,yes,no,unknown,5,may,151,1,-1,0,unknown,no",
    "33,entrepreneur,married,secondary,no,2,yes,yes,unknown,5,may,76,1,-1,0,unknown,no",
    "47,blue-collar,married,unknown,no,1506,no,no,unknown,5,may,92,1,-1,0,unknown,yes",
    "33,unknown,single,unknown,yes,-1,no,yes,cellular,17,nov,198,2,150,3,failure,no",
]


def _write(tmp_path, lines, name="bank.csv"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def _uci(lines):
    """The UCI original's punctuation: ';'-separated, strings quoted, target 'y'."""
    out = []
    for i, line in enumerate(lines):
        fields = line.split(",")
        if i == 0:
            fields = [f'"{f.lower()}"' for f in fields]
        else:
            fields = [f if re.fullmatch(r"-?\d+", f) else f'"{f}"' for f in fields]
        out.append(";".join(fields))
    return out


def _reference_labels(path, sep=","):
    """Y by pandas: [housing == yes, loan == yes]."""
    df = pd.read_csv(path, sep=sep)
    return np.column_stack([df["housing"] == "yes", df["loan"] == "yes"]).astype(np.int64)


def test_small_file_matches_a_hand_written_encoding(tmp_path):
    p = _write(tmp_path, [HEADER, *ROWS])
    d = load_bank_marketing(p)
    assert d.label_names == ["mortgage", "personal_loan"]
    assert d.Y.tolist() == [[1, 0], [1, 0], [1, 1], [0, 0], [0, 1]]
    # every documented category gets a column, whatever the file holds: 2 + 12 + 3 + 4 + 1
    assert d.X.shape == (5, 22) and d.features == "client"
    np.testing.assert_array_equal(d.Y, _reference_labels(p))
    names = d.feature_names
    X = pd.DataFrame(d.X, columns=names)
    assert X["age"].tolist() == [58, 44, 33, 47, 33]
    assert X["balance"].tolist() == [2143, 29, 2, 1506, -1]
    for c, cats in BANK_MARKETING_CATEGORIES.items():
        if c not in BANK_MARKETING_FEATURE_SETS["client"]:
            assert not any(n.startswith(f"{c}_") for n in names)  # no label, no campaign column
            continue
        block = [f"{c}_{v}" for v in cats] if cats != ("no", "yes") else [f"{c}_yes"]
        assert all(b in names for b in block)
        if len(block) > 1:  # one-hot: exactly one 1 per row
            np.testing.assert_array_equal(X[block].sum(axis=1), 1.0)
    assert X["job_management"].tolist() == [1, 0, 0, 0, 0]
    assert X["default_yes"].tolist() == [0, 0, 0, 0, 1]


def test_all_features_adds_the_campaign_columns(tmp_path):
    p = _write(tmp_path, [HEADER, *ROWS])
    d = load_bank_marketing(p, features="all")
    assert d.X.shape == (5, 47)
    X = pd.DataFrame(d.X, columns=d.feature_names)
    assert X["duration"].tolist() == [261, 151, 76, 92, 198]
    assert X["y_yes"].tolist() == [0, 0, 0, 1, 0]
    assert X["month_nov"].tolist() == [0, 0, 0, 0, 1]
    assert not any(n.startswith(("housing", "loan")) for n in d.feature_names)


def test_uci_punctuation_and_column_order_give_the_same_data(tmp_path):
    ref = load_bank_marketing(_write(tmp_path, [HEADER, *ROWS]), features="all")
    uci = load_bank_marketing(_write(tmp_path, _uci([HEADER, *ROWS]), "bank-full.csv"),
                              features="all")
    np.testing.assert_array_equal(uci.X, ref.X)
    np.testing.assert_array_equal(uci.Y, ref.Y)
    # columns in another order (the header is matched by name)
    table = [line.split(",") for line in [HEADER, *ROWS]]
    order = list(range(len(table[0])))[::-1]
    shuffled = [",".join(row[j] for j in order) for row in table]
    rev = load_bank_marketing(_write(tmp_path, shuffled, "rev.csv"), features="all")
    np.testing.assert_array_equal(rev.X, ref.X)
    assert rev.feature_names == ref.feature_names


def test_folder_and_data_path_setting(tmp_path, monkeypatch):
    _write(tmp_path, [HEADER, *ROWS], "bank_marketing_full.csv")
    assert load_bank_marketing(tmp_path).X.shape == (5, 22)  # a folder: the known file names
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    d = load_bank_marketing()  # the data-path setting
    assert d.file == str(tmp_path / "bank_marketing_full.csv")


@pytest.mark.parametrize(
    ("edit", "line", "message"),
    [
        (lambda rows: rows[:2] + [rows[2] + ",extra"] + rows[3:], 3, "expected 17 fields, got 18"),
        (lambda rows: [rows[0], rows[1].replace("58,", "5x,", 1), *rows[2:]], 2,
         "column 'age' must be an integer"),
        (lambda rows: rows[:3] + [rows[3].replace("entrepreneur", "astronaut")] + rows[4:], 4,
         "column 'job' must be one of"),
        (lambda rows: rows[:5] + [rows[5].replace(",no,yes,cellular", ",maybe,yes,cellular")],
         6, "column 'housing' must be one of"),
        (lambda rows: [rows[0].replace("balance", "salary"), *rows[1:]], 1, "unexpected header"),
    ],
)
def test_malformed_rows_name_file_and_line(tmp_path, edit, line, message):
    p = _write(tmp_path, edit([HEADER, *ROWS]))
    with pytest.raises(ValueError, match=rf"{re.escape(str(p))}:{line}: .*{message}"):
        load_bank_marketing(p)


def test_empty_missing_and_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match=r":1: empty file"):
        load_bank_marketing(_write(tmp_path, [""]))
    with pytest.raises(ValueError, match=r"no data rows"):
        load_bank_marketing(_write(tmp_path, [HEADER], "head.csv"))
    with pytest.raises(FileNotFoundError, match="UCI Machine Learning Repository"):
        load_bank_marketing(tmp_path / "nope.csv")
    with pytest.raises(FileNotFoundError, match="bank_marketing_full.csv"):
        load_bank_marketing(tmp_path / "empty_folder_that_does_not_exist")
    with pytest.raises(ValueError, match="'features' parameter must be one of"):
        load_bank_marketing(_write(tmp_path, [HEADER, *ROWS]), features="campaign")
    with pytest.raises(TypeError, match="'path' parameter"):
        load_bank_marketing(3)


def test_full_data_counts(shared_data):
    """The documented counts of ../shared/data/README.md §0: 45 211 rows, housing yes 25 130
    (π = 0.556), loan yes 7 244 (π = 0.160); the same rows as pandas reads."""
    path = shared_data / "bank_marketing_full.csv"
    d = load_bank_marketing(path)
    assert d.X.shape == (45211, 22)
    assert d.Y.sum(axis=0).tolist() == [25130, 7244]
    np.testing.assert_allclose(d.Y.mean(axis=0), [0.556, 0.160], atol=5e-4)
    df = pd.read_csv(path)
    np.testing.assert_array_equal(d.X[:, d.feature_names.index("balance")], df["balance"])
    assert load_bank_marketing(path, features="all").X.shape == (45211, 47)


def test_load_bank_personal_loan_is_a_different_data_set(shared_data):
    """The UniversalBank loader stays, and its docstring says it is not LA25's data."""
    assert "not the" in load_bank_personal_loan.__doc__ and "LA25" in load_bank_personal_loan.__doc__
    d = load_bank_personal_loan(shared_data / "bank_personal_loan.csv")
    assert d.X.shape[0] == 5000
