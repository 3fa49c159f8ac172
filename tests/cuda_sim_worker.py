"""Score boards with the CUDA backend under numba's CUDA simulator (for tests/test_cuda.py).

The simulator must be chosen before numba is imported, so it runs in a process of its own.
Reads a JSON job on stdin: {"lexicon": build directory, "touched": bitmap words listed per
board or null, "cases": [{"shape": [rows, cols], "codes": [[cell code, ...], ...]}, ...]};
prints {"device": what ran the kernel, "scores": [[score, ...], ...]}, one list per case. A
case with "alphabet": [letter, ...] gives each board's best single-letter change instead, as
[[score, ...], [cell, ...], [letter, ...]].
"""

from __future__ import annotations

import json
import os
import sys

os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

import numpy as np  # noqa: E402

from boggle_dawg.solver.backends import cuda  # noqa: E402
from boggle_dawg.solver.board import Shape  # noqa: E402
from boggle_dawg.solver.lexicon import open_lexicon  # noqa: E402


def main() -> None:
    job = json.load(sys.stdin)
    if job.get("touched") is not None:
        cuda.TOUCHED_PER_THREAD = job["touched"]
    lex = open_lexicon(job["lexicon"], "trie")
    with cuda.CudaScorer(lex, 0, lex.rules) as scorer:
        scores = [run(scorer, case) for case in job["cases"]]
    json.dump({"device": scorer.device, "scores": scores}, sys.stdout)


def run(scorer: cuda.CudaScorer, case: dict) -> list:
    codes, shape = np.array(case["codes"], np.int64), Shape(*case["shape"])
    if "alphabet" in case:
        return [part.tolist() for part in scorer.best_changes(codes, shape, np.array(case["alphabet"]))]
    return scorer.score_codes(codes, shape).tolist()


if __name__ == "__main__":
    main()
