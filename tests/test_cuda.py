"""The CUDA backend: its kernel under the CUDA simulator, its errors and fallback without a GPU,
and (only where one is usable) its scores on a real GPU.

The simulator must be chosen before numba is imported, so the kernel runs in a worker process
(tests/cuda_sim_worker.py) and its scores are compared with the CPU backend's here. numba ships
the simulator, so these tests need no extra and run everywhere.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from boggle_dawg.solver.backends import choose_backend, cuda_available, devices, open_scorer
from boggle_dawg.solver.board import Shape, encode_texts
from boggle_dawg.solver.errors import DawgError, ParameterError
from boggle_dawg.solver.lexicon import open_lexicon

from support import REPO, assert_clean_error, run_cli, shared_path

WORKER = Path(__file__).with_name("cuda_sim_worker.py")
NO_SIMULATOR = {"NUMBA_ENABLE_CUDASIM": "0"}
WORDS = ["tea", "teas", "eat", "eats", "seat", "set", "sets", "test", "tests", "state", "taste", "east",
         "rain", "train", "trains", "stain", "satin", "inert", "inter", "ants", "than", "then", "there", "their",
         "thin", "thine", "quest", "quint", "quintet", "quiet", "quite", "aqua", "heat", "hate", "heater",
         "theater", "neither", "tenth", "tint", "hint", "shear", "share", "hare", "hear", "near", "earn",
         "interstate", "strainer", "restrain", "retrains", "terrains", "antiheroes"]
# faces of the random boards: letters of the words, the Qu die, blanks and two-letter faces
FACES = list("aeinrsthq.") + ["(th)", "(er)", "(in)", "(he)", "(an)"]
SHAPES = [((1, 1), 20), ((2, 2), 60), ((3, 3), 60), ((4, 4), 120), ((5, 5), 60), ((3, 5), 40), ((8, 8), 20)]


def random_boards(rng: np.random.Generator, shape: Shape, count: int) -> list[str]:
    return ["/".join("".join(rng.choice(FACES, shape.cols)) for _ in range(shape.rows)) for _ in range(count)]


def simulate(lexicon: Path, cases: list[tuple[Shape, np.ndarray]], touched: int | None = None,
             alphabet: list[int] | None = None) -> dict:
    """Scores of each case's boards by the CUDA kernel under the simulator (with `alphabet`: each
    board's best single-letter change, as (scores, cells, letters))."""
    extra = {"alphabet": alphabet} if alphabet is not None else {}
    job = {"lexicon": str(lexicon), "touched": touched,
           "cases": [{"shape": [s.rows, s.cols], "codes": c.tolist(), **extra} for s, c in cases]}
    proc = subprocess.run([sys.executable, str(WORKER)], input=json.dumps(job), capture_output=True, text=True,
                          timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def cpu_scores(lex, cases: list[tuple[Shape, np.ndarray]]) -> list[list[int]]:
    with open_scorer(lex, "cpu", 1) as scorer:
        return [scorer.score_codes(codes, shape).tolist() for shape, codes in cases]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A small lexicon with Qu and two-letter-face words, and boards of every tested shape."""
    from boggle_dawg.compiler.build import build_lexicon
    from boggle_dawg.solver.charset import parse_charset

    root = tmp_path_factory.mktemp("cuda")
    source = root / "words.txt"
    source.write_text("\n".join(WORDS) + "\n")
    build_lexicon(source, parse_charset("26"), root / "build")
    lex = open_lexicon(root / "build", "trie")
    rng = np.random.default_rng(11)
    cases = []
    for (rows, cols), count in SHAPES:
        shape = Shape(rows, cols)
        cases.append((shape, encode_texts(random_boards(rng, shape, count), lex.charset, shape)[shape][1]))
    return root / "build", lex, cases


def test_simulated_kernel_scores_as_the_cpu_backend(small):
    path, lex, cases = small
    result = simulate(path, cases)
    assert "simulator" in result["device"]
    expected = cpu_scores(lex, cases)
    for (shape, _), got, want in zip(cases, result["scores"], expected):
        assert got == want, shape
    assert sum(map(sum, expected)) > 0 and any(s for (shape, _), s in zip(cases, expected) if shape.cells == 64)


def test_simulated_kernel_clears_the_whole_bitmap_when_the_touched_list_overflows(small):
    path, lex, cases = small
    chosen = [case for case in cases if case[0].cells in (16, 64)]
    assert simulate(path, chosen, touched=1)["scores"] == cpu_scores(lex, chosen)


@pytest.mark.slow
def test_simulated_kernel_finds_the_best_change_of_each_board_as_the_cpu_backend(small):
    path, lex, cases = small
    chosen = [(shape, codes[:4]) for shape, codes in cases if shape.cells <= 25]
    alphabet = [lex.charset.letters.index(ch) for ch in "aeqst"]
    got = simulate(path, chosen, alphabet=alphabet)["scores"]
    with open_scorer(lex, "cpu", 1) as scorer:
        want = [[part.tolist() for part in scorer.best_changes(codes, shape, np.array(alphabet))]
                for shape, codes in chosen]
        # the CPU's own answer, checked against every change scored one by one
        shape, codes = chosen[3]
        for board, score, cell, letter in zip(codes, *want[3]):
            changes = [(cell_, letter_) for cell_ in range(shape.cells) for letter_ in alphabet
                       if board[cell_] != letter_]
            changed = np.array([board] * len(changes))
            changed[np.arange(len(changes)), [c for c, _ in changes]] = [k for _, k in changes]
            points = scorer.score_codes(changed, shape).tolist()
            assert (score, (cell, letter)) == (max(points), changes[points.index(max(points))])
    assert got == want


@pytest.mark.slow
def test_simulated_kernel_scores_twl06_bench_boards_as_the_cpu_backend(built):
    lex = open_lexicon(built("twl06"), "trie")
    cases = []
    for name, shape, count in (("dice4x4-10k.txt", Shape(4, 4), 24), ("dice5x5-10k.txt", Shape(5, 5), 12)):
        texts = shared_path("bench", name).read_text().split()[:count]
        cases.append((shape, encode_texts(texts, lex.charset, shape)[shape][1]))
    assert simulate(built("twl06"), cases)["scores"] == cpu_scores(lex, cases)


def test_a_large_batch_is_checked_over_the_cores_as_in_one_pass(small):
    """The CUDA backend checks a large batch's codes in blocks of rows on every core: the same int16
    codes as one `checked_codes`, and a bad code in any block is the same error (numba.cuda not needed)."""
    from boggle_dawg.solver.backends.cuda import PARALLEL_CHECK_ROWS, checked_int16
    from boggle_dawg.solver.board_walk import checked_codes

    _, lex, cases = small
    shape, codes = next(case for case in cases if case[0] == Shape(4, 4))
    many = np.tile(codes, (-(-(PARALLEL_CHECK_ROWS + 7) // len(codes)), 1))
    got_shape, got = checked_int16(many, (4, 4), lex.charset)
    assert got_shape == shape and got.dtype == np.int16 and got.flags.c_contiguous
    assert got.tolist() == checked_codes(many, shape, lex.charset)[1].tolist()
    for row in (0, len(many) // 2, len(many) - 1):
        bad = many.copy()
        bad[row, 3] = 40  # a letter index past the charset
        with pytest.raises(ParameterError, match="^codes: cell codes must be"):
            checked_int16(bad, shape, lex.charset)
    with pytest.raises(ParameterError, match=r"^codes: must have shape \(boards, 16\).*got \(65543, 25\)"):
        checked_int16(np.zeros((PARALLEL_CHECK_ROWS + 7, 25), np.int64), shape, lex.charset)


def test_cuda_backend_needs_a_trie(make_lexicon):
    lex = open_lexicon(make_lexicon(WORDS), "dawg")
    with pytest.raises(DawgError, match="trie lexicons only, and this one is dawg"):
        open_scorer(lex, "cuda")


def test_choosing_a_device():
    assert choose_backend("cpu") == ("cpu", None)
    assert choose_backend("cuda") == ("cuda", None)  # taken as asked: opening its scorer says what is wrong
    with pytest.raises(ParameterError, match="device: unknown device 'gpu'"):
        choose_backend("gpu")
    usable, reason = cuda_available()
    backend, note = choose_backend("auto")
    if usable:
        assert (backend, note) == ("cuda", None)
    else:
        assert backend == "cpu" and note == f"the CUDA backend cannot run: {reason}; scoring on the CPU"
    assert devices() == ("cpu", "cuda", "auto")


def test_importing_the_backends_leaves_numba_cuda_unloaded():
    code = "import sys, boggle_dawg.solver.backends; print('numba.cuda' in sys.modules, 'numba' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert proc.stdout.split() == ["False", "False"]


# --- the command line without a GPU --------------------------------------------------------------


@pytest.fixture
def no_gpu():
    """Skip where the CUDA backend can run (these tests are about machines where it cannot)."""
    proc = subprocess.run([sys.executable, "-c", "from boggle_dawg.solver.backends import cuda_available; "
                           "print(cuda_available()[0])"], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, **NO_SIMULATOR}, check=True)
    if proc.stdout.strip() == "True":
        pytest.skip("a usable GPU is here: the no-GPU error and fallback cannot be seen")


@pytest.fixture
def batch(tmp_path, make_lexicon):
    boards = tmp_path / "boards.txt"
    boards.write_text("seatrainthenquit\nhearearnstaintea\n(th)eaqrsin.(er)tanise\n")
    return make_lexicon(WORDS), boards


def test_device_cuda_without_a_gpu_is_one_line_and_status_1(no_gpu, batch):
    lexicon, boards = batch
    proc = run_cli("boggle_dawg.dawg_solve", str(lexicon), "--boards", str(boards), "--device", "cuda",
                   env=NO_SIMULATOR)
    assert_clean_error(proc, "error: the CUDA backend cannot run: ")
    assert proc.returncode == 1 and proc.stdout == ""
    for command in (["search", str(lexicon), "--rounds", "1"], ["rearrange", str(lexicon), "seatrainthenquit"]):
        proc = run_cli("boggle_dawg.dawg_solve", *command, "--device", "cuda", env=NO_SIMULATOR)
        assert_clean_error(proc, "error: the CUDA backend cannot run: ")
        assert proc.returncode == 1


def test_device_auto_without_a_gpu_falls_back_to_the_cpu_and_says_so(no_gpu, batch):
    lexicon, boards = batch
    on_cpu = run_cli("boggle_dawg.dawg_solve", str(lexicon), "--boards", str(boards), "-q", env=NO_SIMULATOR)
    auto = run_cli("boggle_dawg.dawg_solve", str(lexicon), "--boards", str(boards), "-q", "--device", "auto",
                   env=NO_SIMULATOR)
    assert auto.returncode == on_cpu.returncode == 0, auto.stderr
    assert auto.stdout == on_cpu.stdout and len(on_cpu.stdout.split()) == 3
    assert auto.stderr.count("\n") == 1
    assert auto.stderr.startswith("dawg-solve: --device auto: the CUDA backend cannot run: ")
    assert auto.stderr.rstrip().endswith("; scoring on the CPU")
    search = ["search", str(lexicon), "--size", "3x3", "--rounds", "2", "--seed", "5", "-q"]
    auto = run_cli("boggle_dawg.dawg_solve", *search, "--device", "auto", env=NO_SIMULATOR)
    on_cpu = run_cli("boggle_dawg.dawg_solve", *search, env=NO_SIMULATOR)
    assert auto.returncode == 0 and auto.stdout == on_cpu.stdout
    assert "scoring on the CPU" in auto.stderr


# --- the command line under the simulator ---------------------------------------------------------


@pytest.mark.slow
def test_batch_and_search_on_the_simulated_gpu_print_what_the_cpu_prints(batch):
    lexicon, boards = batch
    simulator = {"NUMBA_ENABLE_CUDASIM": "1"}
    for args in (["--boards", str(boards), "-q"],
                 ["search", "--size", "3x3", "--alphabet", "aest", "--pool", "4", "--rounds", "3", "--seed", "7", "-q"],
                 ["search", "--size", "3x3", "--alphabet", "aeqst", "--method", "steepest", "--pool", "3",
                  "--rounds", "6", "--seed", "7", "-q"],
                 ["rearrange", "--size", "2x3", "--rounds", "2", "--seed", "7", "-q", "teaset"]):
        if args[0] in ("search", "rearrange"):
            args = [args[0], str(lexicon), *args[1:]]
        else:
            args = [str(lexicon), *args]
        on_gpu = run_cli("boggle_dawg.dawg_solve", *args, "--device", "cuda", env=simulator)
        on_cpu = run_cli("boggle_dawg.dawg_solve", *args, env=simulator)
        assert on_gpu.returncode == on_cpu.returncode == 0, on_gpu.stderr
        assert on_gpu.stdout == on_cpu.stdout and on_cpu.stdout


# --- on a real GPU only ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gpu():
    usable, reason = cuda_available()
    if not usable or "simulator" in reason:
        pytest.skip(f"needs a usable NVIDIA GPU and the cuda extra ({reason})")
    return reason


@pytest.mark.slow
@pytest.mark.parametrize("name, shape", [("dice4x4-10k.txt", Shape(4, 4)), ("dice5x5-10k.txt", Shape(5, 5))])
def test_gpu_scores_the_bench_boards_as_the_cpu_backend(gpu, built, name, shape):
    lex = open_lexicon(built("twl06"), "trie")
    codes = encode_texts(shared_path("bench", name).read_text().split(), lex.charset, shape)[shape][1]
    with open_scorer(lex, "cuda") as on_gpu, open_scorer(lex, "cpu", 0) as on_cpu:
        assert on_gpu.score_codes(codes, shape).tolist() == on_cpu.score_codes(codes, shape).tolist()


def test_kernel_compiles_for_a_real_gpu():
    """Each kernel (plain and single-letter changes, narrow and wide tries) types with the arguments
    `CudaScorer._launch` passes and compiles to PTX for an H100 (sm_90) with its launch bounds, and
    ptxas fits it in 64 registers (1,024 threads per SM), a narrow trie's without spills: needs
    numba-cuda and NVVM (the cuda extra), not a GPU. It skips only where a trivial kernel cannot
    compile either; our kernels failing to is a failure."""
    script = textwrap.dedent("""
        import importlib.util, json, os, shutil, subprocess, sys, tempfile
        if importlib.util.find_spec("numba_cuda") is None:
            sys.exit("skip: numba-cuda (the cuda extra) is not installed")
        from boggle_dawg.solver.backends import cuda as backend
        backend.availability()  # the numpy 2.5 alias, as a scorer would
        from numba import cuda, types as t
        from boggle_dawg.solver.backends import cuda_kernels
        try:
            cuda.compile_ptx(lambda x: None, (t.int64,), cc=(9, 0))
        except Exception as err:
            sys.exit(f"skip: cannot compile PTX here: {' '.join(str(err).split())[:200]}")
        a = lambda ty, nd=1: t.Array(ty, nd, "C")
        # nodes, word_index, codes, code_len, neighbour table, neighbour counts, card, bitmap, touched,
        # counter, scores, alphabet, letters, best
        sig = (a(t.int64), a(t.int32), a(t.int16, 2), a(t.int64), a(t.int64, 2), a(t.int64), a(t.int32),
               a(t.uint32), a(t.int32), a(t.int32), a(t.int32), a(t.int64), t.int64, a(t.int64))
        spec = importlib.util.find_spec("nvidia.cuda_nvcc")
        ptxas = spec and os.path.join(list(spec.submodule_search_locations)[0], "bin", "ptxas")
        ptxas = ptxas if ptxas and os.path.exists(ptxas) else shutil.which("ptxas")
        results = []
        for changes in (False, True):
            for wide in (False, True):
                kernel = cuda_kernels.scoring_kernel(15, backend.block_size(15, wide), changes, wide,
                                                     backend.THREADS_PER_SM)
                ptx, _ = cuda.compile_ptx(kernel.py_func, sig, cc=(9, 0),
                                          launch_bounds=kernel.targetoptions["launch_bounds"])
                result = {"ptx": len(ptx), "wide": wide}
                if ptxas:
                    with tempfile.NamedTemporaryFile("w", suffix=".ptx") as f:
                        f.write(ptx)
                        f.flush()
                        result["ptxas"] = subprocess.run([ptxas, "-arch=sm_90", "-v", f.name, "-o", os.devnull],
                                                         capture_output=True, text=True, check=True).stderr
                results.append(result)
        print(json.dumps(results))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, **NO_SIMULATOR}, timeout=300)
    if proc.returncode and proc.stderr.startswith("skip: "):
        pytest.skip(proc.stderr.strip()[6:])
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    print(results)  # ptxas's report, for the record (pytest -s)
    assert len(results) == 4
    for result in results:
        assert result["ptx"] > 0
        if "ptxas" in result:  # 1,024 threads fit an SM's 65,536 registers; a narrow trie's kernels spill none
            registers = int(result["ptxas"].split("Used ")[1].split(" registers")[0])
            assert registers <= 64, result["ptxas"]
            assert result["wide"] or "0 bytes spill stores" in result["ptxas"], result["ptxas"]
