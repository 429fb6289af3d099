"""The package lines of DESIGN.md hold: each package imports only downward, and files stay small.

Read from the sources (ast), so a new import that crosses a line fails here, not in review.
"""

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "jobs", "classroom", "animations", "dashboard", "hall")
OURS = set(PACKAGES)


def sources(*folders: str) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py"))


def imported(path: Path) -> set[str]:
    """Every module `path` imports (absolute names; relative ones resolved from its package)."""
    package = path.relative_to(ROOT).parent.parts
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            module = ".".join(filter(None, [base, node.module or ""]))
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def tops(path: Path) -> set[str]:
    return {name.split(".")[0] for name in imported(path)}


@pytest.mark.parametrize("package, allowed", [
    ("core", set()),
    ("jobs", {"core"}),
    ("classroom", {"core", "jobs"}),
    ("animations", {"core", "jobs", "classroom"}),
    ("dashboard", {"core", "jobs", "classroom", "animations"}),
])
def test_each_package_imports_only_the_packages_below_it(package, allowed):
    crossing = {str(p.relative_to(ROOT)): sorted(tops(p) & OURS - allowed - {package}) for p in sources(package)}
    assert not {p: names for p, names in crossing.items() if names}


def test_nothing_but_the_hall_and_its_own_tests_and_benchmarks_imports_hall():
    """hall/ is deployment: no package imports it (its tests and the hall's benchmarks start it)."""
    users = [str(p.relative_to(ROOT)) for p in sources("core", "jobs", "classroom", "animations", "dashboard")
             if "hall" in tops(p)]
    users += [str(p.relative_to(ROOT)) for p in sources("tests") if "hall" in tops(p)
              and p.parent.name != "hall"]
    assert not users


def test_jobs_and_classroom_import_no_streamlit():
    assert not [str(p.relative_to(ROOT)) for p in sources("jobs", "classroom") if "streamlit" in tops(p)]


def test_rq_is_imported_in_the_jobs_package_only():
    """One job system: renders and films are its users, and the queue (RQ) is its business alone."""
    users = {str(p.relative_to(ROOT)) for p in sources(*PACKAGES, "tests", "benchmarks") if "rq" in tops(p)}
    assert users and all(user.startswith(("jobs/", "tests/jobs/")) for user in users), sorted(users)


def test_streamlit_internals_are_used_in_one_module_only():
    """Anything of Streamlit's that is not its public API (st.*, streamlit.testing, the components
    API) is used in dashboard/serve.py alone, which checks the pinned version has it."""
    public = ("streamlit", "streamlit.testing.v1", "streamlit.components.v1", "streamlit.components.v2")
    users = {str(p.relative_to(ROOT)) for p in sources("core", "jobs", "classroom", "animations", "dashboard")
             for name in imported(p) if name.startswith("streamlit.") and name not in public
             and not name.startswith(public[1:])}
    assert users == {"dashboard/serve.py"}


def test_the_dashboard_has_at_most_twelve_top_level_modules():
    assert len(list((ROOT / "dashboard").glob("*.py"))) <= 12


def test_no_source_file_is_over_300_lines():
    long = {str(p.relative_to(ROOT)): n for p in sources(*PACKAGES, "tests", "benchmarks")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 300}
    assert not long


# One fresh Python process for the two import tests below (each would start its own and import torch):
# it imports core and classroom first, then the app, and says what each step loaded and left set.
IMPORTS = ("import json, sys, torch; threads = [torch.get_num_threads()]; import core, classroom, "
           "classroom.questions, classroom.rooms, dashboard.serve; streamlit = 'streamlit' in sys.modules; "
           "threads.append(torch.get_num_threads()); import dashboard.app_pages.steps, dashboard.lesson.rerun, "
           "dashboard.display; threads.append(torch.get_num_threads()); "
           "print(json.dumps({'streamlit': streamlit, 'threads': threads}))")


@pytest.fixture(scope="module")
def imports() -> dict:
    """{'streamlit': loaded by core and classroom?, 'threads': torch's threads at start, after core
    and classroom, after the app}."""
    run = subprocess.run([sys.executable, "-c", IMPORTS], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.splitlines()[-1])


@pytest.mark.slow  # a fresh Python process importing torch
def test_importing_core_and_classroom_loads_no_streamlit_and_changes_no_torch_setting(imports):
    """`pytest tests/core` must not need Streamlit, and importing a module changes nothing global."""
    assert not imports["streamlit"], "streamlit loaded"
    assert imports["threads"][1] == imports["threads"][0], "torch threads changed"


@pytest.mark.slow  # a fresh Python process importing torch
def test_importing_the_app_changes_no_torch_setting(imports):
    assert imports["threads"][2] == imports["threads"][0]


@pytest.mark.slow  # a fresh Python process importing torch
def test_collecting_the_core_tests_loads_no_streamlit():
    code = ("import sys, pytest; pytest.main(['tests/core', '-q', '--co', '-p', 'no:cacheprovider']); "
            "assert 'streamlit' not in sys.modules, 'streamlit loaded'")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, (run.stdout + run.stderr)[-2000:]
