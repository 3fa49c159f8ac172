"""Proving the best boards of a shape: board classes, the sum/choice tree bound, branch and bound.

`prove(lexicon, shape, min_score)` finds every board of the shape scoring at
least `min_score` and so proves no other board does; `make_plan` and
`prove_class` split the same work into classes that can run anywhere
(records are small and picklable; `combine` joins them).
"""

from .plan import ProofPlan, make_plan, parse_classes
from .prover import ClassRecord, ProofResult, bound_of, class_entries, combine, prove, prove_class

__all__ = ["ClassRecord", "ProofPlan", "ProofResult", "bound_of", "class_entries", "combine",
           "make_plan", "parse_classes", "prove", "prove_class"]
