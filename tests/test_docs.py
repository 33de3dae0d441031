"""The mathematics ships with the repository: every ``docs/theory.md §n`` that a docstring, a paper
registry or the README cites exists as a heading of ``docs/theory.md``."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
THEORY = REPO / "docs" / "theory.md"
CITATION = re.compile(r"docs/theory\.md\s+§\s?(\d+(?:\.\d+)?)")
HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)?)[.\s]", re.M)


def cited_sections() -> dict[str, list[str]]:
    cited: dict[str, list[str]] = {}
    files = [*(REPO / "bipartite").rglob("*.py"), *(REPO / "papers").rglob("*.toml"),
             *(REPO / "papers").rglob("*.md"), REPO / "README.md", *(REPO / "tests").rglob("*.py")]
    for path in files:
        if path.name == Path(__file__).name:
            continue
        for m in CITATION.finditer(path.read_text(encoding="utf-8")):
            cited.setdefault(m.group(1), []).append(str(path.relative_to(REPO)))
    return cited


def test_theory_sections_are_numbered_one_to_eleven_at_least():
    numbers = {int(h.split(".")[0]) for h in HEADING.findall(THEORY.read_text(encoding="utf-8"))}
    assert set(range(1, 12)) <= numbers


def test_every_cited_section_exists():
    headings = set(HEADING.findall(THEORY.read_text(encoding="utf-8")))
    cited = cited_sections()
    assert len(cited) >= 11  # the docstrings do cite the theory
    missing = {s: sorted(set(where))[:3] for s, where in cited.items() if s not in headings}
    assert not missing, f"cited but missing in docs/theory.md: {missing}"


def test_the_check_can_fail():
    assert CITATION.findall("see docs/theory.md §99.1 and docs/theory.md §4") == ["99.1", "4"]
    assert "99.1" not in set(HEADING.findall(THEORY.read_text(encoding="utf-8")))
