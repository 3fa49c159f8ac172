"""The scoring-backend seam: a scorer owns exactly its workers, and every backend agrees."""

from __future__ import annotations

import subprocess
import sys
import threading

import numpy as np
import pytest

from boggle_dawg.solver.backends import (
    BACKENDS,
    Backend,
    choose_backend,
    cpu,
    cuda_available,
    devices,
    open_scorer,
    resolve_jobs,
)
from boggle_dawg.solver.backends.cpu import CpuScorer
from boggle_dawg.solver.board import Shape, encode_texts
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.lexicon import open_lexicon

from bruteforce import Reference
from support import REPO

WORDS = ["tea", "teas", "eat", "eats", "seat", "set", "sets", "test", "tests", "state", "taste", "east"]


@pytest.fixture
def lexicon(make_lexicon):
    return open_lexicon(make_lexicon(WORDS))


def _threads_entering_the_kernel(monkeypatch, lex) -> tuple[set[int], list[threading.Barrier]]:
    """Record the thread of every call of the lexicon's compiled batch driver. While a barrier is in the
    returned list, each thread's first call waits at it, so a pool must start that many threads (an idle
    thread would otherwise take the next chunk on a busy machine)."""
    entered: set[int] = set()
    gates: list[threading.Barrier] = []
    choose = cpu._driver

    def recording_driver(walk, example):
        driver = choose(walk, example)

        def recording(*args):
            first_call = threading.get_ident() not in entered
            entered.add(threading.get_ident())
            if first_call and gates:
                gates[0].wait()
            return driver(*args)

        return recording

    monkeypatch.setattr(cpu, "_driver", recording_driver)
    return entered, gates


def _boards(count: int) -> list[str]:
    rng = np.random.default_rng(5)
    return ["".join(rng.choice(list("aestl"), 16)) for _ in range(count)]


def test_fewer_jobs_after_more_use_only_their_threads(monkeypatch, lexicon):
    texts = _boards(4000)
    codes = encode_texts(texts, lexicon.charset, None, False)[Shape(4, 4)][1]
    entered, gates = _threads_entering_the_kernel(monkeypatch, lexicon)
    gates.append(threading.Barrier(4, timeout=60))
    with CpuScorer(lexicon, 4, lexicon.rules) as wide:  # more threads than this machine's cores: no cap here
        wide_scores = wide.score_codes(codes, Shape(4, 4))
    gates.clear()
    assert len(entered) == 4
    for jobs in (2, 1):
        entered.clear()
        with CpuScorer(lexicon, jobs, lexicon.rules) as narrow:
            assert narrow.score_codes(codes, Shape(4, 4)).tolist() == wide_scores.tolist()
        assert 1 <= len(entered) <= jobs
    # one job scores on one thread of its own: the caller waits, so Ctrl-C reaches it mid-board
    assert len(entered) == 1 and threading.get_ident() not in entered
    entered.clear()
    assert lexicon.score_many(texts, jobs=2).tolist() == wide_scores.tolist()
    assert len(entered) <= 2


@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("jobs", [1, 2])
def test_backends_agree_with_brute_force(lexicon, backend, jobs):
    if backend == "cuda" and not cuda_available()[0]:
        pytest.skip(f"the CUDA backend cannot run here: {cuda_available()[1]} (tests/test_cuda.py runs its "
                    f"kernel under the simulator)")
    texts = _boards(300)
    codes = encode_texts(texts, lexicon.charset, None, False)[Shape(4, 4)][1]
    with open_scorer(lexicon, backend, jobs) as scorer:
        scores = scorer.score_codes(codes, Shape(4, 4))
    reference = Reference(WORDS)
    assert scores.tolist() == [reference.score(list(t), 4, 4) for t in texts]


def test_jobs_has_one_rule():
    assert resolve_jobs(0) >= 1 and resolve_jobs(1) == 1 and resolve_jobs(1000) == resolve_jobs(0)
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(DawgError, match="jobs"):
            resolve_jobs(bad)


def test_a_closed_scorer_refuses_to_score_instead_of_waiting_forever(lexicon):
    from boggle_dawg.solver.errors import ParameterError

    scorer = lexicon.scorer(2)
    codes = encode_texts(["abcd"], lexicon.charset, Shape(2, 2))[Shape(2, 2)][1]
    assert scorer.score_codes(codes, Shape(2, 2)).tolist() == [lexicon.score("abcd")]
    scorer.close()
    with pytest.raises(ParameterError, match="^scorer: closed; open another"):
        scorer.score_codes(codes, Shape(2, 2))


def test_unknown_backend_is_named(lexicon):
    with pytest.raises(DawgError, match="backend: unknown backend 'tpu'"):
        open_scorer(lexicon, "tpu")


# --- adding a backend: one entry in BACKENDS ----------------------------------------------------

class Sevens(CpuScorer):
    """A stand-in backend: every board scores 7."""

    def score_codes(self, codes, shape, progress=None):
        return super().score_codes(codes, shape, progress) * 0 + 7


FAKE = Backend(Sevens, "a test's stand-in")


def test_a_backend_is_one_entry(monkeypatch, lexicon):
    monkeypatch.setitem(BACKENDS, "fake", FAKE)
    monkeypatch.setitem(BACKENDS, "cuda", Backend(BACKENDS["cuda"].open, available=lambda: (False, "no GPU")))
    assert devices() == ("cpu", "cuda", "fake", "auto")
    assert choose_backend("fake") == ("fake", None)
    assert choose_backend("auto") == ("fake", None)  # the first usable backend after the CPU's
    monkeypatch.setitem(BACKENDS, "fake", Backend(Sevens, available=lambda: (False, "not today")))
    assert choose_backend("auto") == ("cpu", "the CUDA backend cannot run: no GPU; the FAKE backend cannot run: "
                                             "not today; scoring on the CPU")
    with open_scorer(lexicon, "fake", 1) as scorer:
        assert scorer.score_codes(np.zeros((3, 16), np.int64), Shape(4, 4)).tolist() == [7, 7, 7]


def test_the_command_line_offers_a_backend_added_in_one_entry(make_lexicon):
    """`--device` takes it and its help describes it, with nothing else changed."""
    program = ("from boggle_dawg.solver import backends; from test_backends import FAKE; "
               "backends.BACKENDS['fake'] = FAKE; from boggle_dawg.solve_cli import main; main()")

    def dawg_solve(*args, stdin=None):
        return subprocess.run([sys.executable, "-c", program, *args], input=stdin, capture_output=True, text=True,
                              cwd=REPO / "tests", timeout=120)

    helped = " ".join(dawg_solve("solve", "--help").stdout.split())
    assert "cpu, cuda (an NVIDIA GPU; needs the cuda extra and a trie lexicon), fake (a test's stand-in) or auto " \
           "(cuda or fake when usable, else cpu, said on stderr)" in helped
    proc = dawg_solve(str(make_lexicon(WORDS)), "--boards", "-", "--device", "fake", "-q", stdin="seat\nteas\n")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "7\n7\n", "")
    proc = dawg_solve("--boards", "-", "--device", "tpu", stdin="seat\n")
    assert proc.returncode == 2 and "choose from cpu, cuda, fake, auto" in proc.stderr
