"""Fuzz families for the runner's files: study configs (and a study folder's manifest and task
files) that are FIFOs, folders, sockets or devices, CRLF, UTF-16/32, gzip, binary, empty,
header-only, truncated at every byte, too large or nested too deep; semantic config errors
that name the file, the key and its line; declared parameter constraints.

The claim checked for every bad file: :func:`bipartite.studies.load_config` raises
:class:`~bipartite.studies.ConfigError` naming the file, within a second, without reading a
FIFO or a too-large file and without a ``RecursionError``; the files that are valid TOML in
another form (CRLF, a UTF-8 byte-order mark) give the same configuration as the plain file.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest
from segment_reader import ok_records, remove_records

from bipartite.cli import main as cli_main
from bipartite.studies import (
    STUDIES,
    ConfigError,
    CorruptTaskFileWarning,
    Each,
    OneOf,
    Range,
    load_config,
    load_registered_studies,
    register_study,
    resolve_config,
    resume_study,
    run_study,
    study_status,
)
from bipartite.studies.configfile import MAX_CONFIG_BYTES, MAX_CONFIG_NESTING, toml_key_lines

VALID = """# a small study
[study]
name = "fz"
function = "demo.binormal_auc"
seed = 3
replicates = 2
description = "caf\u00e9 au lait"

[params]
prior = 0.3

[grid]
n = [20, 40]
shift = [0.0, 1.0]

[execution]
jobs = 1
"""


def resolved(cfg: dict) -> dict:
    return {k: v for k, v in cfg.items() if k != "source"}


def load_within(path: Path, seconds: float = 1.0):
    """load_config(path) in a thread: (result or exception, elapsed); fails if it blocks."""
    box: dict = {}

    def target():
        start = time.perf_counter()
        try:
            box["value"] = load_config(path)
        except BaseException as exc:  # noqa: BLE001 - returned to the test
            box["value"] = exc
        box["elapsed"] = time.perf_counter() - start

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(max(10.0, 10 * seconds))
    assert not thread.is_alive(), f"load_config({path}) blocked"
    return box["value"], box["elapsed"]


def _fifo(d: Path) -> Path:
    os.mkfifo(d / "c.toml")
    return d / "c.toml"


def _folder(d: Path) -> Path:
    (d / "c.toml").mkdir()
    return d / "c.toml"


def _socket(d: Path) -> Path:
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(d / "c.toml"))
    d.joinpath(".keep-socket").write_text("")  # the socket file stays after close
    s.close()
    return d / "c.toml"


def _link_to_fifo(d: Path) -> Path:
    os.mkfifo(d / "pipe")
    (d / "c.toml").symlink_to(d / "pipe")
    return d / "c.toml"


def _link(d: Path, target: str) -> Path:
    (d / "c.toml").symlink_to(target)
    return d / "c.toml"


def _write(data: bytes):
    def make(d: Path) -> Path:
        (d / "c.toml").write_bytes(data)
        return d / "c.toml"
    return make


def _too_large(d: Path) -> Path:
    path = d / "c.toml"
    with open(path, "wb") as fh:
        fh.truncate(MAX_CONFIG_BYTES + 1)  # sparse: nothing is written
    return path


DEEP_ARRAY = ('[study]\nfunction = "demo.binormal_auc"\n[params]\nn = 10\nx = '
              + "[" * 5000 + "1" + "]" * 5000 + "\n")
DEEP_TABLE = ('[study]\nfunction = "demo.binormal_auc"\n[params]\nn = 10\nx = '
              + "{a = " * 5000 + "1" + "}" * 5000 + "\n")

#: family -> (make the file in a folder, pattern the ConfigError must match)
BAD_FILES = {
    "fifo": (_fifo, r"it is a named pipe \(FIFO\), not a regular file"),
    "symlink to a fifo": (_link_to_fifo, r"it is a named pipe \(FIFO\)"),
    "folder": (_folder, r"it is a folder, not a regular file"),
    "socket": (_socket, r"it is a socket, not a regular file"),
    "character device": (lambda d: _link(d, "/dev/null"), r"it is a character device"),
    "gzip": (_write(gzip.compress(VALID.encode())), r"gzip-compressed; decompress it"),
    "utf-16 (BOM, LE)": (_write(VALID.encode("utf-16")), r"is UTF-16 text; save it as UTF-8"),
    "utf-16 (BOM, BE)": (_write(b"\xfe\xff" + VALID.encode("utf-16-be")), r"is UTF-16 text"),
    "utf-16 (no BOM)": (_write(VALID.encode("utf-16-le")), r"line 1: the file is not UTF-8|"
                                                           r"NUL bytes|looks like UTF-16"),
    "utf-32": (_write(VALID.encode("utf-32")), r"is UTF-32 text"),
    "latin-1": (_write(VALID.encode("latin-1")), r"line 7: the file is not UTF-8 text"),
    "binary": (_write(bytes(range(256)) * 4), r"not UTF-8 text|NUL bytes"),
    "NUL bytes": (_write(VALID.encode().replace(b"jobs", b"jo\x00bs")), r"line 17: .*NUL bytes"),
    "empty": (_write(b""), r"missing key 'function' in \[study\]"),
    "blank lines only": (_write(b"\r\n\n  \n"), r"missing key 'function' in \[study\]"),
    "header only": (_write(b"[study]\n"), r"line 1: missing key 'function' in \[study\]"),
    "headers only": (_write(b"[study]\n[params]\n[grid]\n[execution]\n"),
                     r"missing key 'function'"),
    "cut mid-line": (_write(VALID.encode()[:VALID.encode().index(b"demo") + 3]),
                     r"invalid TOML: Unterminated string .*the file ends at line 4: is it "
                     r"truncated\?"),
    "cut mid-character": (_write(VALID.encode()[:VALID.encode().index("\u00e9".encode()) + 1]),
                          r"line 7: the file is not UTF-8 text"),
    "5000-level array": (_write(DEEP_ARRAY.encode()), rf"line 5: values are nested more than "
                                                      rf"{MAX_CONFIG_NESTING} levels deep"),
    "5000-level inline table": (_write(DEEP_TABLE.encode()), r"line 5: values are nested"),
    "too large": (_too_large, rf"is {MAX_CONFIG_BYTES + 1:,} bytes, above the limit of "
                              rf"{MAX_CONFIG_BYTES:,}"),
}


@pytest.mark.parametrize("family", list(BAD_FILES))
def test_bad_config_files_are_refused_at_once(tmp_path, family):
    make, pattern = BAD_FILES[family]
    path = make(tmp_path)
    outcome, elapsed = load_within(path)
    assert isinstance(outcome, ConfigError), (family, repr(outcome))
    message = str(outcome)
    assert message.startswith(str(path)) and re.search(pattern, message), message
    assert elapsed < 1.0, (family, elapsed)


@pytest.mark.parametrize("family", ["fifo", "folder", "5000-level array"])
def test_bad_config_files_through_the_cli(tmp_path, capsys, family):
    path = BAD_FILES[family][0](tmp_path)
    assert cli_main(["study", "run", str(path), "--out", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "Traceback" not in err and "RecursionError" not in err
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("form", ["crlf", "utf-8 BOM", "crlf + BOM", "no final newline"])
def test_other_forms_of_a_valid_config_give_the_same_config(tmp_path, form):
    (tmp_path / "plain.toml").write_text(VALID, encoding="utf-8")
    data = {"crlf": VALID.replace("\n", "\r\n").encode(),
            "utf-8 BOM": b"\xef\xbb\xbf" + VALID.encode(),
            "crlf + BOM": b"\xef\xbb\xbf" + VALID.replace("\n", "\r\n").encode(),
            "no final newline": VALID.rstrip("\n").encode()}[form]
    (tmp_path / "other.toml").write_bytes(data)
    assert resolved(load_config(tmp_path / "other.toml")) == resolved(
        load_config(tmp_path / "plain.toml"))


def test_every_truncation_is_a_valid_config_or_a_clear_error(tmp_path):
    """Every byte prefix of a valid config (a file cut by a full disk or a bad copy)."""
    data = VALID.encode()
    path = tmp_path / "c.toml"
    outcomes = {"valid": 0, "ConfigError": 0}
    for cut in range(len(data) + 1):
        path.write_bytes(data[:cut])
        try:
            load_config(path)
            outcomes["valid"] += 1
        except ConfigError as exc:
            assert str(exc).startswith(str(path)), (cut, str(exc))
            outcomes["ConfigError"] += 1
    assert outcomes["ConfigError"] > 0 and outcomes["valid"] > 0
    assert sum(outcomes.values()) == len(data) + 1


def test_deep_values_given_in_code_are_refused_by_name():
    deep: list = [1]
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(ConfigError, match=r"<config>: \[params\] key 'x' is nested more than"):
        resolve_config({"study": {"function": "demo.binormal_auc"},
                        "params": {"n": 10, "x": deep}})


# ---------------------------------------------------------------------------------------------
# Semantic errors: the file, the key and the line
# ---------------------------------------------------------------------------------------------

CASES_CONFIG = """[study]
function = "demo.binormal_auc"
description = '''
[grid]
n = 5
'''

[params]
shift = 0.5   # comment [grid]

[grid]
prior = [0.3,
         0.4]

[[cases]]
n = 50

[[cases]]
n = {bad}
"""


@pytest.mark.parametrize("text, line, key, pattern", [
    (VALID.replace("prior = 0.3", "n_bogus = 1"), 10, "[params] key 'n_bogus'",
     r"has no parameter 'n_bogus'"),
    (VALID.replace("prior = 0.3", "prior = 1.5"), 10, "[params] key 'prior'",
     r"must be a number in \(0, 1\), got 1\.5 \(a constraint of study function "
     r"'demo\.binormal_auc'\)"),
    (VALID.replace("n = [20, 40]", "n = [20, -100]"), 13, "[grid] key 'n' (value #1)",
     r"must be an integer >= 1, got -100"),
    (VALID.replace("seed = 3", "seed = -3"), 5, "[study] key 'seed'", r"non-negative integer"),
    (VALID.replace("jobs = 1", "jobs = 0"), 17, "[execution] key 'jobs'", r"integer >= 1"),
    (VALID.replace("jobs = 1", "jbos = 1"), 17, "unknown key 'jbos' in [execution]", ""),
    (CASES_CONFIG.format(bad="-100"), 19, "[[cases]] #1 key 'n'", r"integer >= 1, got -100"),
    (CASES_CONFIG.format(bad='"x"'), 19, "[[cases]] #1 key 'n'", r"must be of type int"),
    (CASES_CONFIG.format(bad="5").replace("shift = 0.5", "shift = 0.5\nseed = 2"), 10,
     "[params] key 'seed'", r"set by the runner per task"),
    ('params = { n = -100 }\n\n[study]\nfunction = "demo.binormal_auc"\n', 1,
     "[params] key 'n'", r"integer >= 1"),
    ('study.function = "demo.binormal_auc"\n\nparams.n = -100\n', 3, "[params] key 'n'",
     r"integer >= 1"),
])
def test_semantic_errors_name_the_file_the_key_and_the_line(tmp_path, text, line, key, pattern):
    for name, data in (("lf.toml", text.encode()),
                       ("crlf.toml", text.replace("\n", "\r\n").encode())):
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(ConfigError) as info:
            load_config(path)
        message = str(info.value)
        assert message.startswith(f"{path}, line {line}: "), message
        assert key in message and re.search(pattern, message), message


def test_key_lines_skip_strings_comments_and_arrays():
    text = CASES_CONFIG.format(bad="1")
    lines = toml_key_lines(text)
    assert lines[("study", "description")] == 3 and ("grid", "n") not in lines
    assert lines[("params", "shift")] == 9 and lines[("grid", "prior")] == 12
    assert (lines[("cases", 0, "n")], lines[("cases", 1, "n")]) == (16, 19)


def test_constraints_are_checked_before_any_task_runs(tmp_path, capsys):
    cfg = {"study": {"function": "demo.binormal_auc", "name": "neg"}, "params": {"n": -100}}
    with pytest.raises(ConfigError, match=r"\[params\] key 'n' must be an integer >= 1"):
        run_study(cfg, tmp_path / "s", progress=False)
    assert not (tmp_path / "s").exists()
    path = tmp_path / "c.toml"
    path.write_text('[study]\nfunction = "demo.binormal_auc"\n[params]\nn = 100\n'
                    'prior = 1.5\n')
    assert cli_main(["study", "run", str(path), "--out", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err
    assert f"{path}, line 5: [params] key 'prior' must be a number in (0, 1), got 1.5" in err
    assert not (tmp_path / "t").exists()


def test_constraint_declarations_are_checked_at_registration():
    with pytest.raises(TypeError, match=r"constraint on 'm', which is not a parameter"):
        register_study("test.bad_constraint", constraints={"m": Range(0)})(
            lambda *, seed, n=1: {"n": n})
    with pytest.raises(TypeError, match=r"must have problem\(\) and describe\(\)"):
        register_study("test.bad_constraint", constraints={"n": ">= 1"})(
            lambda *, seed, n=1: {"n": n})
    assert "test.bad_constraint" not in STUDIES
    assert Range(0, 1, low_open=True, high_open=True).problem(float("nan")) is not None
    assert Range(1, integer=True).problem(True) is not None
    assert Range(1, integer=True).problem(2.0) is not None  # an integer parameter
    assert OneOf(("a", 1)).problem(1.0) is None and OneOf(("a",)).problem("b") is not None
    assert Each(Range(1, integer=True), min_len=1).problem([]) is not None


def test_the_paper_studies_declare_their_constraints():
    load_registered_studies()
    declared = {"demo.binormal_auc": {"n", "prior"}, "mtrub.synthetic": {"n_train", "epochs"},
                "mtrub.banking": {"epochs"}, "hapvr.synthetic": {"loss", "epochs"},
                "hapvr.mq2008": {"loss", "fold"}, "rlsep.label_ranking": {"loss", "n_train"},
                "lr2ppo.mq2008": {"fraction", "ppo_iters"}, "la25.skew": {"pi1", "pi2"},
                "la25.frontier": {"n"}, "la25.real": {"learner"}}
    for name, keys in declared.items():
        assert keys <= set(STUDIES[name].constraints), name
    with pytest.raises(ConfigError, match=r"\[params\] key 'loss' must be one of"):
        resolve_config({"study": {"function": "rlsep.label_ranking"}, "params": {"loss": "l2"}})
    with pytest.raises(ConfigError, match=r"\[grid\] key 'fraction' \(value #1\) must be a "
                                          r"number in \[0, 1\], got 1\.5"):
        resolve_config({"study": {"function": "lr2ppo.mq2008"},
                        "params": {"letor": "x"}, "grid": {"fraction": [0.5, 1.5]}})


# ---------------------------------------------------------------------------------------------
# A study folder's own files
# ---------------------------------------------------------------------------------------------


def test_task_files_and_manifests_that_are_not_regular_files(tmp_path):
    cfg = {"study": {"function": "demo.binormal_auc", "name": "f", "replicates": 3},
           "params": {"n": 20}}
    out = tmp_path / "s"
    run_study(cfg, out, progress=False)
    keys = sorted(ok_records(out))[:2]
    remove_records(out, keys)
    # in their place, "records" of the 0.5.0 layout (tasks/<key>.json) that are not files
    os.mkfifo(out / "tasks" / f"{keys[0]}.json")  # a FIFO: never opened for blocking reads
    (out / "tasks" / f"{keys[1]}.json").mkdir()
    start = time.perf_counter()
    status = study_status(out)
    assert time.perf_counter() - start < 5
    assert (status["corrupt"], status["complete"]) == (2, False)
    with pytest.warns(CorruptTaskFileWarning) as caught:
        res = resume_study(out, progress=False)
    reasons = " ".join(str(w.message) for w in caught)
    assert "a named pipe (FIFO)" in reasons and "a folder" in reasons
    assert res.n_run == 2 and study_status(out)["complete"]

    shutil.copy(out / "manifest.json", tmp_path / "manifest.keep")
    (out / "manifest.json").unlink()
    os.mkfifo(out / "manifest.json")
    with pytest.raises(ConfigError, match=r"manifest\.json: the manifest is a named pipe"):
        study_status(out)
    (out / "manifest.json").unlink()
    shutil.copy(tmp_path / "manifest.keep", out / "manifest.json")
    assert json.loads((out / "manifest.json").read_text())["name"] == "f"
