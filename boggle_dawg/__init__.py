"""boggle-dawg: compile word lists into Boggle lexicons and score boards from them.

The import package of the whole project. `boggle_dawg.compiler` writes
lexicons, `boggle_dawg.solver` reads and scores them (and never imports the
compiler); the modules here sit above both: the command lines, the shipped
default lexicon, and the library a game author uses (`api`):

    import boggle_dawg

    lex = boggle_dawg.build_lexicon(["cat", "cats", "act"], out="build/mine")
    boggle_dawg.solve("catsxxxxxxxxxxxx", lex).score      # 2: cat, cats

`open_lexicon`, `default_lexicon`, `build_lexicon`, `solve`, `Solution`, `Rules` and
`load_rules` are imported on first use, so that `import boggle_dawg` (which every command
line does) loads nothing heavy; each comes from the module that defines it, so that
`boggle_dawg.open_lexicon` loads only what opening a lexicon needs, not the rest of `api`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .solver import __version__

if TYPE_CHECKING:
    from .api import Solution, build_lexicon, default_lexicon, solve
    from .solver.lexicon import open_lexicon
    from .solver.rules import Rules, load_rules

__all__ = ["Rules", "Solution", "__version__", "build_lexicon", "default_lexicon", "load_rules", "open_lexicon",
           "solve"]

_LAZY = {"Solution": "api", "build_lexicon": "api", "default_lexicon": "api", "solve": "api",
         "open_lexicon": "solver.lexicon", "Rules": "solver.rules", "load_rules": "solver.rules"}


def __getattr__(name: str):
    """The public API's names, each imported from its module when first asked for (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'boggle_dawg' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value
    return value
