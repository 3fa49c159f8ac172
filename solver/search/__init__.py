"""Board search: the highest-scoring boards of a lexicon, and the best arrangement of given letters.

Rounds. Every method works in rounds: a round builds a batch of boards as
letter codes and scores the whole batch with one call of a scoring backend
(`solver.backends`). Nothing is ever scored one board at a time in Python.

Reproducibility. All random choices come from one
`numpy.random.Generator(PCG64(seed))` and no decision looks at the clock or
at the number of workers, so a search is a pure function of (lexicon, size,
alphabet, method and its options, seed) and the number of rounds it ran. A
budget of rounds or of evaluations is therefore reproduced exactly; a budget
of seconds stops at the first round boundary past the limit, so its result
depends on how far the search got in that time. Ctrl-C stops at once and
keeps the boards of every finished round.

Layout: `symmetry` (canonical forms, fingerprints), `space` (boards as codes
and the moves), `search_run` (the loop every method shares: budget, top list,
progress, Ctrl-C), `methods` (one module per method and the METHODS
registry), `find` (`search`) and `rearrange` (seed 003's contest).
"""

from .find import search
from .methods import METHODS, REARRANGE_METHODS, SearchMethod
from .rearrange import RearrangeResult, rearrange
from .search_run import Budget, ScoredBoard, SearchResult, SearchStatus
from .symmetry import SeenBoards, canonical_board, canonical_codes, fingerprints, symmetries

__all__ = ["METHODS", "REARRANGE_METHODS", "Budget", "RearrangeResult", "ScoredBoard", "SearchMethod",
           "SearchResult", "SearchStatus", "SeenBoards", "canonical_board", "canonical_codes", "fingerprints",
           "rearrange", "search", "symmetries"]
