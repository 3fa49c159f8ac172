"""The house's structure, checked from the source: the stages import only downwards, no module-level
import circle, the library never prints, and the package list installs every folder."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from support import REPO

# folder -> the import package it installs as (pyproject.toml's package-dir)
FOLDERS = {"solver": "boggle_dawg.solver", "compiler": "boggle_dawg.compiler", "boggle_dawg": "boggle_dawg"}


def modules() -> dict[str, Path]:
    """Every module of the three folders, by its installed name."""
    found = {}
    for folder, package in FOLDERS.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = list(path.relative_to(REPO / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def imports(name: str, path: Path, top_level_only: bool) -> set[str]:
    """Modules `name` imports (absolute names); with top_level_only, not those inside functions or
    `if TYPE_CHECKING:` blocks, which run later or never."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()

    def visit(node, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = nested or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) or (
                isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test))
            if isinstance(child, ast.Import) and not (top_level_only and inner):
                found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and not (top_level_only and inner):
                base = package
                for _ in range(child.level - 1):
                    base = base.rpartition(".")[0]
                module = f"{base}.{child.module}" if child.level and child.module else base if child.level \
                    else child.module
                found.add(module)
                found.update(f"{module}.{alias.name}" for alias in child.names)
            visit(child, inner)

    visit(tree, False)
    return found


MODULES = modules()


APP_LAYER = tuple(name for name in MODULES  # boggle_dawg.<module>: the layer above both
                  if name.count(".") == 1 and name not in ("boggle_dawg.solver", "boggle_dawg.compiler"))


@pytest.mark.parametrize("stage, forbidden", [
    ("boggle_dawg.solver", ("boggle_dawg.compiler", *APP_LAYER)),
    ("boggle_dawg.compiler", APP_LAYER),
])
def test_stages_import_only_downwards(stage, forbidden):
    """The solver reads and scores and never imports the compiler; neither imports the layer above."""
    assert "boggle_dawg.cli_common" in APP_LAYER and "boggle_dawg.defaults" in APP_LAYER
    bad = {(name, target) for name, path in MODULES.items() if name.startswith(stage)
           for target in imports(name, path, top_level_only=False) if target.startswith(forbidden)}
    assert bad == set()


def find_circle(graph: dict[str, set[str]]) -> list[str]:
    """An import circle of `graph` (node -> nodes it imports), as the path round it; [] if none."""
    state: dict[str, int] = {}
    circle: list[str] = []

    def visit(start: str) -> None:
        stack = [(start, iter(sorted(graph.get(start, ()))))]
        state[start] = 1
        path = [start]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(child) == 1:
                circle.extend(path[path.index(child):] + [child])
                return
            elif child not in state:
                state[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(graph.get(child, ())))))

    for name in sorted(graph):
        if name not in state and not circle:
            visit(name)
    return circle


def test_no_module_level_import_circle():
    graph = {name: {t for t in imports(name, path, top_level_only=True) if t in MODULES and t != name}
             for name, path in MODULES.items()}
    # a package's __init__ importing its own submodules is how a package is assembled, not a circle
    for name in graph:
        graph[name] = {t for t in graph[name] if not (t.startswith(name + ".") and MODULES[name].name == "__init__.py")}
    assert find_circle(graph) == []


def solver_unit(name: str) -> str | None:
    """The part of the solver a module (or a name in it) belongs to: its subpackage of solver/
    (`boggle_dawg.solver.formats`), or the top-level module itself (`boggle_dawg.solver.manifest`)."""
    parts = name.split(".")
    return ".".join(parts[:3]) if len(parts) > 2 and parts[:2] == ["boggle_dawg", "solver"] else None


def test_no_import_circle_between_the_solver_parts():
    """No two parts of the solver (subpackages and top-level modules) import each other, however
    indirectly, counting every import: also those inside functions and under TYPE_CHECKING,
    which run later or only for the type checker but tie the parts together all the same."""
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        source = solver_unit(name)
        if source:
            graph.setdefault(source, set()).update(
                target for target in map(solver_unit, imports(name, path, top_level_only=False))
                if target and target != source)
    assert "boggle_dawg.solver.formats" in graph["boggle_dawg.solver.lexicon"]  # the scan sees these imports
    assert find_circle(graph) == []


def test_no_two_modules_share_a_file_name():
    """Each module's file name says what it holds, once: two `run.py` or `engine.py` in different
    folders read alike in tracebacks, imports and docs (issue 34). Only `__init__.py` repeats, and
    a file's writer in compiler/ may take the name of its reader in solver/, which it imports (the
    layout is defined once, in the reader: compiler/trie.py and solver/formats/trie.py)."""
    by_file: dict[str, list[str]] = {}
    for name, path in MODULES.items():
        if path.name != "__init__.py":
            by_file.setdefault(path.name, []).append(name)

    def writer_and_reader(names: list[str]) -> bool:
        writer = [n for n in names if n.startswith("boggle_dawg.compiler.")]
        reader = [n for n in names if n.startswith("boggle_dawg.solver.")]
        return len(writer) == len(reader) == 1 and len(names) == 2 and \
            reader[0] in imports(writer[0], MODULES[writer[0]], top_level_only=False)

    assert writer_and_reader(by_file["trie.py"])  # the exception holds where it is meant to
    shared = {file: names for file, names in by_file.items() if len(names) > 1 and not writer_and_reader(names)}
    assert shared == {}


def test_the_library_never_prints():
    printing = [f"{name}:{node.lineno}" for name, path in MODULES.items()
                if name.startswith(("boggle_dawg.solver", "boggle_dawg.compiler"))
                for node in ast.walk(ast.parse(path.read_text()))
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print"]
    assert printing == []


def test_every_package_folder_is_installed():
    """A non-editable install ships only the packages pyproject.toml lists: every folder of code or
    data must be there."""
    declared = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {"boggle_dawg.lexicons"}
    for folder, package in FOLDERS.items():
        for directory in [REPO / folder, *(REPO / folder).rglob("*")]:
            if directory.is_dir() and directory.name != "__pycache__":
                on_disk.add(".".join([package, *directory.relative_to(REPO / folder).parts]))
    assert declared == on_disk


def imported(code: list[str]) -> set[str]:
    """The modules a fresh interpreter imports to run `python CODE...` (from -X importtime)."""
    run = subprocess.run([sys.executable, "-X", "importtime", *code], cwd=REPO, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    loaded = {line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines() if line.startswith("import time:")}
    assert "numpy" in loaded  # what it does need: the parse of -X importtime's lines works
    return loaded


def test_one_board_imports_only_what_one_board_needs(make_lexicon):
    """`dawg-solve DIR BOARD` loads no compiler, no CLI framework, no JIT, no thread pool, no TOML parser
    (the standard rules are built in) and no dataclasses: the start-up path stays lazy (each of these
    costs a millisecond to tens of milliseconds)."""
    loaded = imported(["-m", "boggle_dawg.dawg_solve", str(make_lexicon(["tea", "eat", "ate", "tee"])), "teae"])
    for heavy in ("numba", "typer", "rich", "concurrent.futures", "boggle_dawg.compiler", "importlib.resources",
                  "json", "dask", "tomllib", "dataclasses"):
        assert heavy not in loaded, f"{heavy} is imported on the one-board path"


def test_opening_a_lexicon_imports_no_board_code(make_lexicon):
    """What a word query needs, importing `open_lexicon` and opening a lexicon, reads no board, no rules
    and no language file, nor imports what those need (issue 32)."""
    directory = make_lexicon(["tea", "eat", "ate", "tee"])
    loaded = imported(["-c", f"from boggle_dawg.solver.lexicon import open_lexicon; open_lexicon({str(directory)!r})"])
    for module in ("boggle_dawg.solver.board", "boggle_dawg.solver.board_walk", "boggle_dawg.solver.rules",
                   "boggle_dawg.solver.language", "tomllib", "dataclasses"):
        assert module not in loaded, f"{module} is imported to open a lexicon"


def test_an_open_imports_numpy_only_for_the_node_checks(make_lexicon, tmp_path):
    """Everything before a format's node checks (the modules, the manifest, the files' sums, the
    header) is read without numpy, so that a process pays for numpy's start as late as it can."""
    build = make_lexicon(["cat", "cats", "act"])
    damaged = tmp_path / "damaged.bin"
    data = bytearray((build / "trie.bin").read_bytes())
    data[-1] ^= 1
    damaged.write_bytes(bytes(data))
    code = ("import sys\n"
            "from boggle_dawg.solver.errors import DawgError\n"
            "from boggle_dawg.solver.lexicon import open_lexicon, read_manifest\n"
            f"read_manifest({str(build / 'manifest.msgpack')!r})\n"
            "try:\n"
            f"    open_lexicon({str(damaged)!r})\n"
            "except DawgError as err:\n"
            "    assert 'checksum mismatch' in str(err), err\n"
            "assert 'numpy' not in sys.modules, 'numpy before the node checks'\n"
            f"assert 'cats' in open_lexicon({str(build)!r})\n"
            "assert 'numpy' in sys.modules\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.skipif(not Path("/proc/self/task").is_dir() or (os.cpu_count() or 1) < 2,
                    reason="counts threads in /proc (Linux), of a pool that has one per core at most")
@pytest.mark.parametrize("given", [None, "2"])
def test_the_programs_run_numpy_with_one_blas_thread_unless_told(given):
    """Both programs import cli_common before numpy, and it asks OpenBLAS for one thread (its pool costs
    a third of a one-board run's CPU beyond the interpreter, and no command multiplies matrices); a
    user's own setting stands. Counted as the threads of a process that imported the program and numpy."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given:
        env["OPENBLAS_NUM_THREADS"] = given
    for program in ("boggle_dawg.dawg_solve", "boggle_dawg.dawgc_cli"):
        code = f"import os, {program}, numpy; print(len(os.listdir('/proc/self/task')))"
        run = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                             timeout=60)
        assert run.stdout.strip() == (given or "1"), (program, run.stderr)
