"""Type-check the public API with mypy, as [tool.mypy] in pyproject.toml says (a lane of .ci/run).

mypy finds a module by its path, and this checkout's folders are not the package's module paths:
setuptools' package-dir ([tool.setuptools.package-dir]) maps boggle_dawg.solver to solver/ and
boggle_dawg.compiler to compiler/. So mypy reads the package through a tree of symbolic links laid
out as it installs, made here from that table in [tool.mypy]'s mypy_path.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def link_tree(config: dict) -> None:
    """The package as it installs: a folder per mapped package, holding links to its folder's entries."""
    tree = ROOT / config["tool"]["mypy"]["mypy_path"]
    shutil.rmtree(tree, ignore_errors=True)
    for package, folder in sorted(config["tool"]["setuptools"]["package-dir"].items()):  # parents first
        where = tree.joinpath(*package.split("."))
        where.mkdir(parents=True)
        for entry in (ROOT / folder).iterdir():
            if entry.name != "__pycache__":
                (where / entry.name).symlink_to(entry)


def main() -> int:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    link_tree(config)
    return subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
