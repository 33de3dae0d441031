"""The claims registry (papers/*/claims*.toml): schema, tests that exist, code that resolves,
README tables in sync. Static and fast: test node ids are checked by parsing the test files.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from tests._scripts import load_script

REPO = Path(__file__).resolve().parents[1]
registry = load_script("papers/registry.py", "papers_registry")


@pytest.fixture(scope="module")
def claims():
    """Every registered claim (a schema error in any claims file fails here, naming it)."""
    return registry.load_claims()


def test_registry_loads_every_claims_file(claims):
    files = registry.claims_files()
    assert {f.parent.name for f in files} >= {"hapvr", "rlsep"}
    assert {c.file for c in claims} == {str(f.relative_to(REPO)) for f in files}
    assert len({c.id for c in claims}) == len(claims)  # ids unique over all files
    for c in claims:
        assert c.verdict in registry.VERDICTS
        assert c.statement and c.source and c.test and (c.scope or c.notes)


def test_every_claim_names_an_existing_test(claims):
    missing = [f"{c.id}: {c.test}" for c in claims if not registry.node_exists(c.test)]
    assert not missing, "claims naming tests that do not exist:\n" + "\n".join(missing)


def test_every_claim_code_resolves(claims):
    bad = []
    for c in claims:
        if not c.code:
            continue
        module, _, attr = c.code.rpartition(".")
        try:
            obj = importlib.import_module(module)
        except ImportError:  # the name may be a class attribute: resolve one more level up
            module, _, owner = module.rpartition(".")
            obj = getattr(importlib.import_module(module), owner, None)
        if obj is None or not hasattr(obj, attr):
            bad.append(f"{c.id}: {c.code}")
    assert not bad, "claims naming code that does not exist:\n" + "\n".join(bad)


def test_readme_tables_are_up_to_date():
    stale = registry.stale_readmes()
    assert not stale, f"run `python papers/registry.py --write`; stale: {stale}"


def test_node_exists_handles_classes_and_parametrize(tmp_path):
    f = tmp_path / "tests" / "test_demo.py"
    f.parent.mkdir()
    f.write_text("class TestA:\n    def test_m(self):\n        pass\n\n"
                 "async def test_async():\n    pass\n\ndef test_f(x):\n    pass\n")
    ok = ["tests/test_demo.py::test_f", "tests/test_demo.py::test_f[1-a b]",
          "tests/test_demo.py::TestA::test_m", "tests/test_demo.py::test_async"]
    for node in ok:
        assert registry.node_exists(node, tmp_path), node
    bad = ["tests/test_demo.py::test_g", "tests/test_demo.py::TestA::test_f",
           "tests/test_demo.py::test_m", "tests/missing.py::test_f", "tests/test_demo.py",
           "test_f"]
    for node in bad:
        assert not registry.node_exists(node, tmp_path), node


GOOD = """
[[claim]]
id = "x-one"
statement = "s"
source = "§1"
test = "tests/test_x.py::test_one"
verdict = "holds"
evidence = "exact"
scope = "all"
"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (GOOD.replace('verdict = "holds"', 'verdict = "true"'), "'verdict' must be one of"),
        (GOOD.replace('source = "§1"\n', ""), r"missing required field\(s\) \['source'\]"),
        (GOOD.replace('evidence = "exact"\n', ""), r"missing required field\(s\) \['evidence'\]"),
        (GOOD.replace('"exact"', '"proof"'), "'evidence' must be one of"),
        (GOOD.replace('scope = "all"', 'scope = "all"\nweight = "3"'), "unknown field"),
        (GOOD.replace('scope = "all"', ""), "at least one of 'scope' or 'notes'"),
        (GOOD.replace("tests/test_x.py::test_one", "test_one"), "pytest node id"),
        (GOOD.replace('id = "x-one"', 'id = "X One"'), "'id' must match"),
        (GOOD + 'code = "ap_risk"\n', "'code' must be a dotted name"),
        (GOOD + 'figure = "/tmp/f.png"\n', "repository-relative"),
        (GOOD.replace('statement = "s"', 'statement = ""'), "non-empty string"),
        ('title = "t"\n' + GOOD, "unknown top-level key"),
        ("[paper]\ntitle = 't'\n", r"at least one \[\[claim\]\]"),
        (GOOD + "[[claim", "not valid TOML"),
    ],
)
def test_schema_errors_name_file_and_field(tmp_path, text, message):
    d = tmp_path / "papers" / "demo"
    d.mkdir(parents=True)
    (d / "claims.toml").write_text(text, encoding="utf-8")
    with pytest.raises(registry.ClaimsError, match=message) as info:
        registry.load_claims(tmp_path / "papers")
    assert "claims.toml" in str(info.value)


def test_duplicate_ids_across_files_are_rejected(tmp_path):
    for name in ("a", "b"):
        d = tmp_path / "papers" / name
        d.mkdir(parents=True)
        (d / "claims_core.toml").write_text(GOOD, encoding="utf-8")
    with pytest.raises(registry.ClaimsError, match="'x-one' is already used"):
        registry.load_claims(tmp_path / "papers")


def test_readme_update_keeps_other_text_and_is_idempotent(tmp_path):
    d = tmp_path / "papers" / "demo"
    d.mkdir(parents=True)
    (d / "claims.toml").write_text('[paper]\ntitle = "Demo paper"\n' + GOOD, encoding="utf-8")
    (d / "claims_more.toml").write_text(GOOD.replace("x-one", "x-two").replace('"holds"',
                                                                                 '"refuted"'))
    claims = registry.load_claims(tmp_path / "papers")
    assert [c.id for c in claims] == ["x-one", "x-two"]
    block = registry.render_block(claims)
    assert "| `x-one` | s | §1 | **holds** | exact (proof, enumeration or pinned counterexample " \
        "in the test) | all |" in block
    assert "2 claims: 1 holds, 0 holds-narrower, 0 inconclusive, 1 refuted, 0 not-reproduced." in block
    created = registry.readmes(tmp_path / "papers")[d / "README.md"]
    assert created.startswith("# Demo paper\n") and block in created
    text = "# Demo\n\nIntro kept.\n\n" + registry.START + "\nold table\n" + registry.END + \
        "\n\nOutro kept.\n"
    new = registry.updated_readme(text, block, "Demo")
    assert new.startswith("# Demo\n\nIntro kept.\n\n") and new.endswith("\n\nOutro kept.\n")
    assert "old table" not in new and block in new
    assert registry.updated_readme(new, block, "Demo") == new
    no_markers = registry.updated_readme("# Demo\n\nText.\n", block, "Demo")
    assert no_markers == "# Demo\n\nText.\n\n" + block + "\n"
    with pytest.raises(registry.ClaimsError, match="unbalanced"):
        registry.updated_readme("x " + registry.END + registry.START, block, "Demo")


def test_pipes_in_text_do_not_break_the_table():
    c = registry.Claim(paper="p", file="f", id="a", statement="|x| > 1\nand more", source="§2",
                       test="tests/t.py::test_a", verdict="holds", scope="s")
    row = registry.render_table([c]).splitlines()[2]
    assert "\\|x\\| > 1 and more" in row and row.count(" | ") == 6
