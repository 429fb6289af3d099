"""The package lines of DESIGN.md hold: each package imports only downward, and files stay small.

Read from the sources (ast), so a new import that crosses a line fails here, not in review.
"""

import ast
import graphlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from classroom.catalogue import PAGES

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


def core_imports() -> dict[str, set[str]]:
    """Each module of core (by file name; "__init__" for the package) and the core modules it imports,
    imports inside functions included: such an import runs on a call, and a circle through it fails then."""
    modules = {p.stem for p in (ROOT / "core").glob("*.py")} - {"__init__"}
    graph = {}
    for path in (ROOT / "core").glob("*.py"):
        graph[path.stem] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):  # core is flat: a relative import is core's own
                module = ".".join(filter(None, ["core" if node.level else "", node.module]))
                names = [f"{module}.{alias.name}" for alias in node.names] if module == "core" else [module]
            else:
                continue
            for parts in (name.split(".") for name in names if name.split(".")[0] == "core"):
                # `from . import x`: the module x, or, if there is none, a name that core/__init__.py makes
                graph[path.stem].add(parts[1] if len(parts) > 1 and parts[1] in modules else "__init__")
    return graph


def test_core_modules_import_each_other_without_a_circle():
    """A circle holds only while an import waits inside a function; its modules cannot be read, tested or
    moved one at a time."""
    try:
        graphlib.TopologicalSorter(core_imports()).prepare()
    except graphlib.CycleError as err:
        pytest.fail(f"core imports in a circle: {' -> '.join(err.args[1])}")


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


def _anchor_named_or_off(call: ast.Call) -> bool:
    """anchor=False, or an anchor's name (a string, an f-string)."""
    return any(k.arg == "anchor" and (isinstance(k.value, ast.JoinedStr) or isinstance(k.value, ast.Constant) and (
        k.value.value is False or isinstance(k.value.value, str))) for k in call.keywords)


def test_every_dashboard_heading_is_drawn_without_an_anchor_link():
    """A heading's anchor link makes the browser recompute the page's style at once on every redraw
    (Streamlit sizes its icon from the root font size); a slider move redraws every heading several
    times (docs/performance.md, item 8). So every title, header and subheader call on Streamlit or
    one of its containers passes anchor=False, or the name of an anchor the lab itself aims at (the
    Lecture page's player scrolls to its step's heading)."""
    missing = []
    for path in sources("dashboard"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules = {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree)
                   if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names} - {"st"}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args
                    and node.func.attr in ("title", "header", "subheader")
                    and not (isinstance(node.func.value, ast.Name) and node.func.value.id in modules)
                    and not _anchor_named_or_off(node)):
                missing.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert missing == []


def test_the_dashboard_has_at_most_twelve_top_level_modules():
    assert len(list((ROOT / "dashboard").glob("*.py"))) <= 12


def readme_layout() -> dict[str, str]:
    """The README's Layout block, each top-level folder's lines joined ("classroom": its text)."""
    block = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Layout\n", 1)[1].split("```")[1]
    out, folder = {}, None
    for line in block.splitlines():
        if found := re.match(r"(\w+)/\s", line):
            folder = found[1]
        if folder:
            out[folder] = f"{out.get(folder, '')} {line.removeprefix(f'{folder}/').strip()}"
    return out


def modules_named(text: str) -> dict[str, set[str]]:
    """The modules a folder's text names: "" for its own, "rooms" for those inside "rooms/ (...)"."""
    named = {}
    while group := re.search(r"(\w+)/ \(", text):
        depth, end = 1, group.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        named[group[1]] = set(re.findall(r"\b(\w+)\.py\b", text[group.end():end]))
        text = text[:group.start()] + text[end:]
    return {"": set(re.findall(r"\b(\w+)\.py\b", text)), **named}


def modules(package: str) -> dict[str, set[str]]:
    """A package's modules as modules_named gives them ("__init__" left out: it is the folder itself)."""
    folders = [ROOT / package, *sorted(p for p in (ROOT / package).iterdir() if p.is_dir() and any(p.glob("*.py")))]
    return {"" if f == ROOT / package else f.name: {p.stem for p in f.glob("*.py")} - {"__init__"} for f in folders}


@pytest.mark.parametrize("package", ["core", "jobs", "classroom", "animations", "dashboard", "hall"])
def test_the_readmes_layout_names_every_module_and_no_other(package):
    named, there = modules_named(readme_layout()[package]), modules(package)
    if package == "dashboard":  # the README names app_pages' helpers; its pages are the catalogue's records
        named["app_pages"] |= {Path(page.file).stem for page in PAGES}
    assert named.keys() == there.keys(), "each sub-package gets its own group: name/ (...)"
    missing = {f"{sub}/{m}.py".lstrip("/") for sub in there for m in there[sub] - named[sub]}
    stale = {f"{sub}/{m}.py".lstrip("/") for sub in there for m in named[sub] - there[sub]}
    assert not missing and not stale, f"the README's {package}/ line lacks {sorted(missing)}, names {sorted(stale)}"


# Against giant files: a file holds one idea (~300 lines is a smell); a longer one is split by idea, never trimmed.
MAX_LINES = 400


def test_no_source_file_is_over_400_lines():
    long = {str(p.relative_to(ROOT)): n for p in sources(*PACKAGES, "tests", "benchmarks")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long


# One fresh Python process for the import tests below (each would start its own and import torch):
# it imports core and classroom first, then the app, and says what each step loaded and left set. No
# kernel runs before core is imported, so a setting core wrote for the CPU's kernels (ATen reads its
# capability from the environment when first asked) would show in the capability asked for after.
IMPORTS = ("import json, os, sys, torch; threads = [torch.get_num_threads()]; env = [dict(os.environ)]; "
           "import core, classroom, classroom.questions, classroom.rooms, dashboard.serve; "
           "streamlit = 'streamlit' in sys.modules; env.append(dict(os.environ)); "
           "capability = torch.backends.cpu.get_cpu_capability(); "
           "threads.append(torch.get_num_threads()); import dashboard.app_pages.steps, dashboard.lesson.rerun, "
           "dashboard.display; threads.append(torch.get_num_threads()); "
           "print(json.dumps({'streamlit': streamlit, 'threads': threads, 'env': env, 'capability': capability}))")
# ATen's and MKL's kernel choices unset, so that a module setting them would be seen
UNSET = {k: v for k, v in os.environ.items() if k not in ("ATEN_CPU_CAPABILITY", "MKL_CBWR")}


@pytest.fixture(scope="module")
def imports() -> dict:
    """{'streamlit': loaded by core and classroom?, 'threads': torch's threads at start, after core
    and classroom, after the app; 'env': the environment at start and after core and classroom;
    'capability': torch's CPU kernels after core and classroom were imported}."""
    run = subprocess.run([sys.executable, "-c", IMPORTS], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env=UNSET)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.splitlines()[-1])


@pytest.mark.slow  # a fresh Python process importing torch
def test_importing_core_and_classroom_loads_no_streamlit_and_changes_no_torch_setting(imports):
    """`pytest tests/core` must not need Streamlit, and importing a module changes nothing global."""
    assert not imports["streamlit"], "streamlit loaded"
    assert imports["threads"][1] == imports["threads"][0], "torch threads changed"


@pytest.mark.slow  # two fresh Python processes importing torch
def test_importing_core_and_classroom_changes_no_environment_variable_and_not_the_cpus_kernels(imports):
    """A library leaves the process's settings to the program: no variable set or changed (ATen's and MKL's
    kernel choices are read from the environment), and torch's CPU kernels those of a process that only
    imported torch. (The app is not asked: importing Streamlit itself sets MPLBACKEND.)"""
    start, after = imports["env"]
    assert after == start
    alone = subprocess.run([sys.executable, "-c", "import torch; print(torch.backends.cpu.get_cpu_capability())"],
                           cwd=ROOT, capture_output=True, text=True, timeout=120, env=UNSET)
    assert alone.returncode == 0, alone.stderr[-2000:]
    assert imports["capability"] == alone.stdout.strip()


@pytest.mark.slow  # a fresh Python process importing torch
def test_importing_the_app_changes_no_torch_setting(imports):
    assert imports["threads"][2] == imports["threads"][0]


@pytest.mark.slow  # a fresh Python process importing torch
def test_collecting_the_core_tests_loads_no_streamlit():
    code = ("import sys, pytest; pytest.main(['tests/core', '-q', '--co', '-p', 'no:cacheprovider']); "
            "assert 'streamlit' not in sys.modules, 'streamlit loaded'")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, (run.stdout + run.stderr)[-2000:]


@pytest.mark.slow  # a fresh Python process importing torch
def test_the_command_line_tools_load_no_streamlit():
    """`make lecture` and `make handout` read a deck as the app does, without the app's Streamlit."""
    code = ("import sys, animations.prepare, animations.handout; "
            "assert 'streamlit' not in sys.modules, 'streamlit loaded'")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, (run.stdout + run.stderr)[-2000:]


def test_every_test_file_of_the_shared_hall_is_in_the_hall_group_before_the_stop():
    """The `hall` fixture is one hall per worker, and test_stop.py ends it: a file that uses it outside
    the scheduler's "hall" group may run after the stop (or start a second hall on the other worker)."""
    from tests.conftest import SHARED_SET_UP

    users = {str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py")
             if re.search(r"def test_\w+\((?:[^)]*\W)?hall\b", p.read_text(encoding="utf-8"))}
    group = [f for f, g in SHARED_SET_UP.items() if g == "hall"]
    assert users and users <= set(group), users - set(group)
    assert sorted(group)[-1] == group[-1] == "tests/hall/test_stop.py", "collected in file order: the stop last"
