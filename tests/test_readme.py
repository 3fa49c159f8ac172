"""Every command the README shows runs as written and prints what the README says it prints.

The commands run in order in a temporary working directory laid out as the README assumes (this
checkout's `.venv` and `lexicons/` linked in, `../shared` beside it, the environment active), so
each starts from the state the ones before it left: `build/` holds only what the README builds.
Where the README shows output, the output must match it, `...` standing for any text and timings
(`0.39 s`, `40.6 CPU-seconds`) for any figure.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess

import pytest

from support import REPO, shared_path

pytestmark = pytest.mark.slow

SETUP = "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && "  # what .ci/run does, not redone here
TIMING = re.compile(r"\\ [0-9]+\\.[0-9]+\\ (s|CPU\\-seconds)\b")
EXIT_STATUS = {"lookup": 1}  # `dawgc lookup` exits 1 when a word is absent, as the README says


def blocks(text: str) -> list[list[str]]:
    """The README's indented code blocks, each as its lines with the indent removed."""
    found, current = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("    "):
            current.append(line[4:])
        elif current:
            found.append(current)
            current = []
    return found


def examples(block: list[str]) -> list[tuple[str, list[str]]]:
    """(command, the output the README shows for it) for each `$ ...` line of a block."""
    out: list[tuple[str, list[str]]] = []
    for line in block:
        if line.startswith("$ "):
            out.append((line[2:], []))
        else:
            out[-1][1].append(line)
    return out


def pattern(shown: list[str]) -> re.Pattern:
    """What matches shown output: the lines exactly, `...` for any text, timings for any figure."""
    text = re.escape("\n".join(shown) + "\n")
    text = TIMING.sub(lambda m: r" [0-9.,]+ " + m[1], text)
    return re.compile(text.replace(r"\.\.\.", ".*?"), re.DOTALL)


def run(command: str, cwd, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", f". .venv/bin/activate && {command}"], cwd=cwd, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=600, **kwargs)


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    """A working directory as the README's commands expect one, with nothing built yet."""
    root = tmp_path_factory.mktemp("readme")
    (root / "shared").symlink_to(shared_path("lexicons").parent)
    work = root / "work"
    work.mkdir()
    for name in (".venv", "lexicons"):
        (work / name).symlink_to(REPO / name)
    return work


def test_the_two_commands_are_what_ci_runs():
    """The setup command installs as .ci/run does, and the test command is the one .ci/run ends with."""
    setup, tests = (b[0] for b in blocks((REPO / "README.md").read_text())[:2])
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    assert setup.startswith(SETUP)
    assert "python3 -m venv .venv" in ci and ".venv/bin/pip install --quiet -e '.[test]'" in ci
    assert tests == ".venv/bin/python -m pytest" and ci[-1] == tests


def test_every_readme_example_runs_as_shown(checkout):
    readme = blocks((REPO / "README.md").read_text())
    setup = readme[0][0].removeprefix(SETUP)
    proc = run(setup, checkout)
    assert proc.returncode == 0 and proc.stdout.startswith("built build/sowpods-26/"), proc.stderr
    server = None
    try:
        for block in readme[2:]:
            if block[0].startswith(">>> "):
                python_example(block, checkout)
                continue
            for command, shown in examples(block):
                if command.startswith("curl"):
                    server = server or start_server(checkout)
                    command = command.replace("localhost:8000", f"localhost:{server[1]}")
                proc = run(command, checkout)
                words = shlex.split(command.split("|")[0])
                assert proc.returncode == EXIT_STATUS.get(words[1], 0), (command, proc.stderr)
                if shown:
                    output = proc.stdout.rstrip("\n") + "\n"  # curl ends without one
                    assert pattern(shown).fullmatch(output), (command, proc.stdout)
    finally:
        if server:
            server[0].terminate()
            server[0].wait(10)
            server[0].stderr.close()


def start_server(checkout) -> tuple[subprocess.Popen, int]:
    """`dawg-solve serve`, as the README starts it, on a free port (8000 may be taken here)."""
    proc = subprocess.Popen(["bash", "-c", ". .venv/bin/activate && exec dawg-solve serve --port 0"], cwd=checkout,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1", "BOGGLE_DAWG_DATA": str(checkout / "data")})
    for line in proc.stderr:
        found = re.search(r"at http://[^:]+:(\d+)/ ", line)
        if found:
            return proc, int(found[1])
    raise AssertionError("the server did not start")


def python_example(block: list[str], checkout) -> None:
    """The README's Python session, run as a doctest in the README's working directory."""
    test = doctest.DocTestParser().get_doctest("\n".join(block), {}, "README", "README.md", 0)
    cwd = os.getcwd()
    os.chdir(checkout)
    try:
        runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
        lines: list[str] = []
        runner.run(test, out=lines.append)
    finally:
        os.chdir(cwd)
    assert not runner.failures, "".join(lines)
