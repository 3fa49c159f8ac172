"""boggle-dawg: compile word lists into Boggle lexicons and score boards from them.

The import package of the whole project. `boggle_dawg.compiler` writes
lexicons, `boggle_dawg.solver` reads and scores them (and never imports the
compiler); the modules here sit above both: the command lines and the shipped
default lexicon, which the solving commands compile on first use.
"""

from .solver import __version__

__all__ = ["__version__"]
