"""The LETOR fold layouts (bipartite.data.letor): LETOR 4.0 parts S1..S5 and MSLR-WEB folds, their
one home (issue 21)."""

from __future__ import annotations

import pytest

from bipartite.data.letor import (
    LETOR4_FOLDS,
    letor4_parts,
    letor_files,
    letor_fold_files,
    letor_layout,
)

_ROW = "1 qid:1 1:0.5 2:0.25\n0 qid:1 1:0.1 2:0.75\n"


def _parts(folder, pattern="mq2008_S{}.txt"):
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(1, 6):
        (folder / pattern.format(i)).write_text(_ROW)
    return folder


def test_letor4_folds_follow_the_letor_readme():
    # LETOR 4.0 readme: Fold1 = train S1-S3, vali S4, test S5; each fold shifts by one part.
    assert LETOR4_FOLDS[1] == ((1, 2, 3), 4, 5)
    for k in range(1, 6):
        train, vali, test = LETOR4_FOLDS[k]
        assert train == tuple((k - 1 + i) % 5 + 1 for i in range(3))
        assert sorted([*train, vali, test]) == [1, 2, 3, 4, 5]
    assert sorted(t for _, _, t in LETOR4_FOLDS.values()) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("pattern", ["mq2008_S{}.txt", "S{}.txt"])
def test_letor4_parts_and_fold_files(tmp_path, pattern):
    folder = _parts(tmp_path / "mq", pattern)
    parts = letor4_parts(folder)
    assert [p.name for p in parts] == [pattern.format(i) for i in range(1, 6)]
    assert letor_layout(folder) == "mq2008"
    train, test, layout = letor_fold_files(folder, 2)
    assert layout == "mq2008"
    assert [p.name for p in train] == [pattern.format(i) for i in (2, 3, 4)]
    assert [p.name for p in test] == [pattern.format(1)]
    assert letor_files(folder) == parts


def test_missing_part_is_no_layout(tmp_path):
    folder = _parts(tmp_path / "mq")
    (folder / "mq2008_S3.txt").unlink()
    assert letor4_parts(folder) is None
    assert letor_layout(folder) is None
    with pytest.raises(FileNotFoundError, match="neither LETOR 4.0 parts"):
        letor_fold_files(folder, 1)
    assert letor_layout(None) is None and letor_layout(folder / "mq2008_S1.txt") is None


def test_mslr_folds(tmp_path):
    root = tmp_path / "MSLR-WEB10K"
    for k in range(1, 6):
        (root / f"Fold{k}").mkdir(parents=True)
        for name in ("train.txt", "vali.txt", "test.txt"):
            (root / f"Fold{k}" / name).write_text(_ROW)
    assert letor_layout(root) == "mslr"
    train, test, layout = letor_fold_files(root, 4)
    assert layout == "mslr"
    assert train == [root / "Fold4" / "train.txt"] and test == [root / "Fold4" / "test.txt"]


@pytest.mark.parametrize("fold", [0, 6, 1.0, True, "1"])
def test_bad_fold_is_refused(tmp_path, fold):
    folder = _parts(tmp_path / "mq")
    with pytest.raises(ValueError, match="The 'fold' parameter must be one of"):
        letor_fold_files(folder, fold)


def test_letor_files_of_a_folder_and_a_file(tmp_path):
    (tmp_path / "a.txt").write_text(_ROW)
    (tmp_path / "notes.txt").write_text("no query ids here\n")
    assert letor_files(tmp_path) == [tmp_path / "a.txt"]
    assert letor_files(tmp_path / "a.txt") == [tmp_path / "a.txt"]
    with pytest.raises(FileNotFoundError, match="does not exist"):
        letor_files(tmp_path / "missing")
    (tmp_path / "a.txt").unlink()
    with pytest.raises(FileNotFoundError, match="no LETOR file"):
        letor_files(tmp_path)
