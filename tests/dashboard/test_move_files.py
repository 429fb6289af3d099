"""The files one temperature move on page 1 enters are the ones docs/performance.md names for it: a file that
comes onto the path, or leaves it, without the page saying so fails here (issue 50, item 5)."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEADING = "## The files one temperature move enters"


def named_in_docs() -> set[str]:
    text = (ROOT / "docs" / "performance.md").read_text()
    section = text[text.index(HEADING):]
    section = section[:section.index("\n## ", 1)]
    # the hops' list: each file by its full path, the list ends at the first paragraph after it
    hops = section[section.index("\n- "):section.index("\n\n", section.index("\n- "))]
    return set(re.findall(r"`((?:core|dashboard|classroom|jobs|animations)/[\w/]+\.py)`", hops))


def test_the_docs_hop_list_names_files_that_exist():
    named = named_in_docs()
    assert len(named) >= 10, named  # the list was read, not an empty match
    assert all((ROOT / path).is_file() for path in named), sorted(p for p in named if not (ROOT / p).is_file())


def entered() -> set[str]:
    """The files benchmarks/move_files.py lists, in a lab process of its own: in this one, an earlier test may
    have cached the moved lesson's trace, and the move would then enter none of core's trace files."""
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "move_files.py")], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return set(re.findall(r"^\s*\d+\s+(\S+\.py)$", done.stdout, re.MULTILINE))


def test_a_temperature_move_enters_exactly_the_files_the_docs_list():
    files = entered()
    named = named_in_docs()
    assert files - named == set(), f"entered, not in docs/performance.md's list: {sorted(files - named)}"
    assert named - files == set(), f"in docs/performance.md's list, not entered: {sorted(named - files)}"
