"""`dawg-solve search` and `dawg-solve rearrange`: board search from the command line.

The search itself is `solver.search`; this module reads the options, shows
progress on stderr (a live line on a terminal, else a plain line every few
seconds; nothing with --quiet) and prints the results. Standard output holds
only what the seed and budget determine, so two runs with the same seed and a
--rounds or --evaluations budget print the same bytes (timings go to stderr,
and to the JSON).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from .cli_common import (
    MAX_SECONDS,
    RULES_HELP,
    UsageError,
    cli_lexicon,
    device_help,
    device_option,
    finite_option,
    jobs_option,
    lone_path_error,
    plural,
    rules_option,
    stop_cause,
    workers_label,
)
from .cluster_cli import (
    check_engine_options,
    checkpoint_option,
    count,
    resume_option,
    run_on_engine,
    scheduler_option,
    stored,
    workers_option,
)
from .progress import SearchProgress, closing_line
from .solver.board import Board, Shape, parse_board, parse_size
from .solver.charset import Charset
from .solver.cluster.search_job import MAX_TASKS, check_tasks
from .solver.dice_sets import random_seed
from .solver.errors import DawgError
from .solver.formats import format_help
from .solver.search import METHODS, REARRANGE_METHODS, Budget, RearrangeResult, SearchResult
from .solver.search import rearrange as rearrange_letters
from .solver.search import search as search_boards
from .solver.search.methods import MAX_POOL_BYTES

DEFAULT_SECONDS = 10.0
DEFAULT_SIZE = "4x4"
MAX_TEMPERATURE = 1e9  # anneal --t0/--t1: far above any score difference; larger is a typo

STOPPED = {"seconds": "time limit reached", "rounds": "round limit reached",
           "evaluations": "evaluation limit reached", "target": "target score reached",
           "interrupted": "interrupted"}

_BUDGET_HELP = (f"At most {MAX_SECONDS:g}. Without --seconds, --rounds or --evaluations the search runs for "
                f"{DEFAULT_SECONDS:g} s.")
_ANNEAL = METHODS["anneal"].options
_POOL_LIMIT = f" At most what a round can hold in {MAX_POOL_BYTES >> 30} GiB (the error says how many)."


def _anneal_help(text: str, name: str) -> str:
    return f"{text} (anneal only; default {_ANNEAL[name]})"


def _methods_help(methods) -> str:
    return "; ".join(f"{m.name}: {m.summary}" for m in methods.values()) + "."


def _pool_help(methods) -> str:
    return "; ".join(f"{m.name}: {m.pool_meaning} ({m.default_pool})" for m in methods.values()) + "."


def _budget(seconds: float | None, rounds: int | None, evaluations: int | None,
            target: int | None = None) -> Budget:
    finite_option("--seconds", seconds, 0, MAX_SECONDS)
    if seconds is None and rounds is None and evaluations is None:
        seconds = DEFAULT_SECONDS
    return Budget(seconds=seconds, rounds=rounds, evaluations=evaluations, target=target)


def _anneal_options(steps: int | None, t0: float | None, t1: float | None,
                    swap_share: float | None) -> dict:
    finite_option("--t0", t0, 0, MAX_TEMPERATURE)
    finite_option("--t1", t1, 0, MAX_TEMPERATURE)
    finite_option("--swap-share", swap_share, 0, 1, low_inclusive=True)
    given = dict(steps=steps, t0=t0, t1=t1, swap_share=swap_share)
    return {name: value for name, value in given.items() if value is not None}


def _summary(result: SearchResult, tasks: int = 1, done: int | None = None) -> str:
    finished = f"{done:,} of {count(tasks, 'task')}" if done is not None and done < tasks else count(tasks, "task")
    return (f"{result.method} search of {result.shape} boards over {result.alphabet.upper()}, seed {result.seed}: "
            + (f"{finished}, " if tasks > 1 else "")
            + f"{count(result.rounds, 'round')}, {count(result.evaluations, 'board')} scored; "
            f"{STOPPED[result.stopped]}")


def _result_json(result: SearchResult, rules) -> dict:
    rate = result.evaluations / result.seconds if result.seconds > 0 else 0.0
    return {"method": result.method, "size": str(result.shape), "rules": rules.as_dict(),
            "alphabet": result.alphabet.upper(),
            "seed": result.seed, "rounds": result.rounds, "evaluations": result.evaluations,
            "stopped": result.stopped, "complete": result.stopped != "interrupted",
            "seconds": round(result.seconds, 3), "boards_per_second": round(rate),
            "best": {"board": result.best.board, "score": result.best.score},
            "top": [{"board": b.board, "score": b.score} for b in result.top]}


def search(
    file: Path | None = typer.Argument(None, metavar="[FILE]", help="Lexicon (default: the shipped one)."),
    size: str | None = typer.Option(None, "--size", "-s", metavar="RxC",
                                    help=f"Board size RxC [default: the --start board's, else {DEFAULT_SIZE}]."),
    method: str = typer.Option("hillclimb", "--method", "-m", help=_methods_help(METHODS)),
    seconds: float | None = typer.Option(None, "--seconds", "-t", help="Stop at the first round boundary "
                                            "after this many seconds. " + _BUDGET_HELP),
    rounds: int | None = typer.Option(None, "--rounds", help="Stop after this many rounds "
                                         "(reproducible with --seed)."),
    evaluations: int | None = typer.Option(None, "--evaluations", help="Stop after the round that "
                                              "reaches this many boards scored (reproducible with --seed)."),
    target: int | None = typer.Option(None, "--target", help="Stop once a board scores this much."),
    seed: int | None = typer.Option(None, "--seed", help="Random seed [default: a fresh one, printed]."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Scoring threads (0 = all cores); never changes results."),
    device: str = typer.Option("cpu", "--device", help=device_help() + " Never changes results."),
    top: int = typer.Option(10, "--top", "-k", help="How many distinct boards to report."),
    alphabet: str | None = typer.Option(None, "--alphabet", help="Letters to use [default: the lexicon's "
                                           "charset]; 'q' is the Qu die."),
    start: str | None = typer.Option(None, "--start", help="Board the first climb or run starts from."),
    pool: int | None = typer.Option(None, "--pool", help=_pool_help(METHODS) + _POOL_LIMIT),
    steps: int | None = typer.Option(None, "--steps", help=_anneal_help("Rounds per cooling run", "steps")),
    t0: float | None = typer.Option(None, "--t0", help=_anneal_help("Starting temperature", "t0")),
    t1: float | None = typer.Option(None, "--t1", help=_anneal_help("Final temperature", "t1")),
    swap_share: float | None = typer.Option(None, "--swap-share",
                                            help=_anneal_help("Share of proposals that swap two cells", "swap_share")),
    fmt: str | None = typer.Option(None, "--format", "-f", help=format_help()),
    as_json: bool = typer.Option(False, "--json", help="One JSON object with the top list and the run's figures."),
    rules: str | None = typer.Option(None, "--rules", "-r", metavar="NAME|FILE", help=RULES_HELP),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress or timing on stderr."),
    tasks: int = typer.Option(1, "--tasks", help="Independent searches, each with the whole budget and its own "
                                  "seed derived from --seed; their top lists are merged. More than one runs on "
                                  f"the Dask engine. At most {MAX_TASKS:,}."),
    workers: int | None = workers_option(),
    scheduler: str | None = scheduler_option(),
    checkpoint: Path | None = checkpoint_option(),
    resume: bool = resume_option(" Without --seed, the checkpoint's seed."),
) -> None:
    """Search for the highest-scoring boards (rotations and reflections count as one board).

    With --seed and a --rounds or --evaluations budget the result is exactly reproducible,
    whatever --jobs, --workers or --scheduler, and after any number of --resume; with
    --seconds it depends on how far the search got in the time.
    """
    shape = _search_shape(size, start)
    jobs = jobs_option(jobs)
    backend = device_option(device)
    budget = _budget(seconds, rounds, evaluations, target)
    options = _anneal_options(steps, t0, t1, swap_share)
    check_tasks(tasks)
    engine = check_engine_options(workers, scheduler, checkpoint, resume) or tasks > 1
    lex = cli_lexicon(file, fmt)
    chosen = rules_option(rules, lex.rules)
    if seed is None and resume:
        stored_seed = stored(checkpoint, "seed")
        seed = stored_seed if isinstance(stored_seed, int) else None
    seed = random_seed() if seed is None else seed  # chosen here so the progress line can show it
    if engine:
        from .solver.cluster.search_job import SearchPlan

        plan = SearchPlan(lex, shape, budget, method, seed, tasks, top=top, alphabet=alphabet, start=start,
                          pool=pool, options=options, backend=backend, jobs=jobs, rules=chosen)
        result, label, done = _search_on_engine(plan, workers, scheduler, checkpoint, resume, quiet)
    else:
        with SearchProgress(quiet, f"{method} search of {shape} boards, seed {seed}") as progress, \
                lex.scorer(jobs, backend, chosen) as scorer:
            result = search_boards(scorer, shape, budget, method, seed=seed, top=top, alphabet=alphabet,
                                   start=start, pool=pool, on_round=progress, **options)
        label, done = workers_label(backend, jobs), tasks
        _searched(result, result.evaluations, label, quiet)
    if as_json:
        print(json.dumps({**_result_json(result, chosen), "tasks": tasks}))
    else:
        _print_search(result, shape, tasks, done, lex.charset)
    _end_if_interrupted(result, as_json, "boards")


def _search_shape(size: str | None, start: str | None) -> Shape:
    """--size, else the --start board's own shape, else DEFAULT_SIZE. A start board of another shape
    than --size is a usage error; a bad one fails as it would for solve, the option named."""
    shape = parse_size(size) if size else None
    if start is None:
        return shape or parse_size(DEFAULT_SIZE)
    if shape is None:
        return _start_board(start).shape
    try:
        own = parse_board(start).shape
    except DawgError:
        own = None  # neither rows nor a square: only --size shapes it
    if own is not None and own != shape:
        raise UsageError(f"--start is a {own} board, --size {shape}: give one, or make them agree")
    _start_board(start, shape)
    return shape


def _start_board(start: str, shape: Shape | None = None) -> Board:
    try:
        return parse_board(start, shape)
    except DawgError as err:
        raise DawgError(f"--start: {err}") from None


def _print_search(result: SearchResult, shape: Shape, tasks: int, done: int, charset: Charset) -> None:
    best = parse_board(result.best.board, shape, charset)
    print(f"best board, {result.best.score} {plural('point', result.best.score)}:")
    print(best.grid())
    print()
    print(f"top {len(result.top)} (canonical form: rotations and reflections count once):")
    for rank, board in enumerate(result.top, 1):
        print(f"{rank:4}  {board.score:6}  {board.board}")
    print()
    print(_summary(result, tasks, done))


def _end_if_interrupted(result: SearchResult, as_json: bool, found: str) -> None:
    """After Ctrl-C (or SIGTERM) the result printed is partial: say so (the JSON says "complete": false)
    and end as every command does on Ctrl-C, with status 130 (143)."""
    if result.stopped == "interrupted":
        if not as_json:
            print(f"interrupted: a partial result, the best {found} found before {stop_cause()}", flush=True)
        raise KeyboardInterrupt


def _search_on_engine(plan, workers: int | None, scheduler: str | None, checkpoint: Path | None, resume: bool,
                      quiet: bool) -> tuple[SearchResult, str, int]:
    """Run a search plan on a local cluster or a scheduler, with progress; returns the result, what
    ran it (for the timing line) and how many tasks finished."""
    headline = f"{plan.method} search of {plan.shape} boards, seed {plan.seed}, {count(plan.tasks, 'task')}"
    result, outcome, label = run_on_engine(plan, headline, ("task", "tasks"), lambda record: record["top"], workers,
                                           scheduler, checkpoint, resume, quiet)
    boards = sum(outcome.records[t]["evaluations"] for t in outcome.records if t not in outcome.resumed)
    _searched(result, boards, label, quiet)
    return result, label, len(outcome.records)


def _searched(result: SearchResult, boards: int, label: str, quiet: bool) -> None:
    """The closing line: time, boards scored (by this run), speed and what scored them."""
    rate = boards / result.seconds if result.seconds > 0 else 0.0
    closing_line(f"searched {result.seconds:.1f} s, {boards:,} boards, {rate:,.0f} boards/s ({label})", quiet)


def rearrange(
    args: list[str] = typer.Argument(..., metavar="[FILE] LETTERS",
                                     help="Lexicon (default: the shipped one) and the letters to place, one per "
                                          "cell, in board notation ('q' is the Qu die; rows split by '/' give "
                                          "the size)."),
    size: str | None = typer.Option(None, "--size", "-s", metavar="RxC",
                                    help="Board size RxC [default: the rows of LETTERS, else square]."),
    method: str = typer.Option("hillclimb", "--method", "-m", help=_methods_help(REARRANGE_METHODS)),
    seconds: float | None = typer.Option(None, "--seconds", "-t", help="Stop at the first round boundary "
                                            "after this many seconds. " + _BUDGET_HELP),
    rounds: int | None = typer.Option(None, "--rounds", help="Stop after this many rounds."),
    evaluations: int | None = typer.Option(None, "--evaluations", help="Stop after the round that "
                                              "reaches this many boards scored."),
    target: int | None = typer.Option(None, "--target", help="Stop once an arrangement scores this much."),
    seed: int | None = typer.Option(None, "--seed", help="Random seed [default: a fresh one, printed]."),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Scoring threads (0 = all cores); never changes results."),
    device: str = typer.Option("cpu", "--device", help=device_help() + " Never changes results."),
    pool: int | None = typer.Option(None, "--pool", help=_pool_help(REARRANGE_METHODS) + _POOL_LIMIT),
    fmt: str | None = typer.Option(None, "--format", "-f", help=format_help()),
    as_json: bool = typer.Option(False, "--json", help="One JSON object: arrangement, score, words."),
    rules: str | None = typer.Option(None, "--rules", "-r", metavar="NAME|FILE", help=RULES_HELP),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress or timing on stderr."),
) -> None:
    """Arrange exactly the given letters on the board for the highest score (seed 003).

    Starts from a greedy letter-pair "energy" arrangement, then searches with swaps only.
    """
    if len(args) > 2:
        raise UsageError(f"too many arguments: {' '.join(args[2:])}")
    if len(args) == 1 and not args[0].isalpha() and Path(args[0]).exists():
        raise lone_path_error(args[0], "the LETTERS")
    letters = args[-1]
    shape = parse_board(letters, parse_size(size) if size else None).shape  # read as solve reads a board
    jobs = jobs_option(jobs)
    backend = device_option(device)
    budget = _budget(seconds, rounds, evaluations, target)
    lex = cli_lexicon(Path(args[0]) if len(args) == 2 else None, fmt)
    seed = random_seed() if seed is None else seed
    with SearchProgress(quiet, f"rearranging letters on a {shape} board, seed {seed}") as progress, \
            lex.scorer(jobs, backend, rules_option(rules, lex.rules)) as scorer:
        outcome = rearrange_letters(scorer, letters, shape, budget, method, seed=seed, pool=pool,
                                    on_round=progress)
    _searched(outcome.search, outcome.search.evaluations, workers_label(backend, jobs), quiet)
    _print_arrangement(outcome, shape, as_json, lex.charset, scorer.rules)
    _end_if_interrupted(outcome.search, as_json, "arrangement")


def _print_arrangement(outcome: RearrangeResult, shape: Shape, as_json: bool, charset: Charset, rules) -> None:
    result = outcome.search
    if as_json:
        record = _result_json(result, rules)
        record.update(letters=outcome.letters, board=result.best.board, score=result.best.score,
                      start={"board": outcome.start.board, "score": outcome.start.score},
                      words=[{"word": f.word, "points": f.points} for f in outcome.words])
        del record["top"], record["best"]
        print(json.dumps(record))
        return
    print(parse_board(result.best.board, shape, charset).grid())
    score, count, start = result.best.score, len(outcome.words), outcome.start.score
    print(f"{score} {plural('point', score)}, {count} {plural('word', count)}: {result.best.board} "
          f"(greedy energy start {outcome.start.board}: {start} {plural('point', start)})")
    for found in outcome.words:
        print(f"{found.points:3}  {found.word}")
    print(_summary(result))
