"""Proofs (`solver.proof`, `dawg-solve prove`): the bound holds for every board of a class and of
every partly forced subclass (checked with the tests' own brute-force scorer), a proof returns
exactly what exhaustive enumeration finds, and the command line's output and errors."""

from __future__ import annotations

import itertools
import json
import pickle
import random

import numpy as np
import pytest

from boggle_dawg.solver.board import Shape
from boggle_dawg.solver.errors import ParameterError
from boggle_dawg.solver.lexicon import open_lexicon
from boggle_dawg.solver.proof import ClassRecord, class_entries, entries, make_plan, prove, prove_class, prover
from boggle_dawg.solver.proof import tree as T
from boggle_dawg.solver.proof.compiled import kernels
from boggle_dawg.solver.proof.tables import NARROW_LETTERS
from boggle_dawg.solver.rules import load_rules
from boggle_dawg.solver.search import canonical_codes

from bruteforce import Card, Reference
from support import assert_clean_error, run_cli, shared_path

SMALL = "aeqrstu"  # 'q' is the Qu die
# The built-in rule sets as the brute-force reference writes them.
# A small, fast selection that .ci/run runs again with NUMBA_DISABLE_JIT=1: the proof kernels as CPython runs them.
IN_PYTHON = pytest.mark.python_kernels
CARDS = {"standard": Card(), "big": Card(4, {4: 1, 5: 2, 6: 3, 7: 5, 8: 11}), "words": Card(3, {3: 1})}


def _brute(ref: Reference, rules: str, faces: list[str], rows: int, cols: int) -> int:
    return sum(ref.found_under(CARDS[rules], faces, rows, cols).values())


def _random_words(seed: int, letters: str, count: int) -> list[str]:
    rng = random.Random(seed)
    words = set()
    while len(words) < count:
        word = "".join(rng.choice(letters) for _ in range(rng.randint(3, 7)))
        words.add(word.replace("q", "qu"))
    return sorted(words)


def _faces(board: tuple[str, ...]) -> list[str]:
    return ["qu" if ch == "q" else ch for ch in board]


def _force_rows(tokens, pts, depth, letter, base):
    """The rows, points and base of the subclass with the cell of rank `depth` (the smallest rank
    in the rows) set to `letter`, computed plainly: the rows naming that cell with another letter
    dropped, the token dropped from those naming it with `letter`, equal rows added up, rows left
    empty added to the base."""
    width = tokens.shape[1]
    first = tokens[:, 0]
    named = (first >= 0) & ((first >> entries.TOKEN_SHIFT) == depth)
    hit = named & (first == entries.token(depth, letter))
    moved = np.concatenate([tokens[hit, 1:], np.full((int(hit.sum()), 1), -1, tokens.dtype)], axis=1)
    rows = np.concatenate([tokens[~named], moved])
    points = np.concatenate([pts[~named], pts[hit]])
    empty = rows[:, 0] < 0
    base += int(points[empty].sum())
    rows, points = rows[~empty], points[~empty]
    order = np.lexsort(rows.T[::-1])
    rows, points = rows[order], points[order]
    fresh = np.ones(len(rows), bool)
    fresh[1:] = (rows[1:] != rows[:-1]).any(axis=1)
    starts = np.flatnonzero(fresh)
    return rows[starts].reshape(-1, width), np.add.reduceat(points, starts) if len(rows) else points, base


def _columns(tokens, pts):
    """Sorted, distinct rows of tokens as sort_entries gives them to the tree's build: the columns
    of payloads (a word of its own a row, with the row's points) and key words; and the cells and
    layout of the keys."""
    held = tokens >= 0
    ranks, letters = tokens.astype(np.int64) >> entries.TOKEN_SHIFT, tokens.astype(np.int64) & entries.LETTER_OF
    cells = int(ranks[held].max()) + 1 if held.any() else 1
    wide = int(held.any() and letters[held].max() >= NARROW_LETTERS)
    word, shift, bits = entries._key_places(cells, wide)
    table = np.zeros((1 + entries.key_words(cells, wide), len(tokens)), np.int64)
    table[0] = (np.arange(len(tokens), dtype=np.int64) << 16) | pts
    mask = np.zeros(len(tokens), np.int64)  # the ranks each row holds
    for j in range(tokens.shape[1]):
        on = held[:, j]
        r = ranks[on, j]
        np.bitwise_or.at(table, (1 + word[r], np.flatnonzero(on)), (letters[on, j] + 1) << shift[r])
        mask[on] |= np.int64(1) << r
    top = np.zeros(len(tokens), np.int64)  # one more than each row's highest rank
    for r in range(cells):
        top[(mask >> r) & 1 == 1] = r + 1
    for r in range(cells):  # the ranks a row passes over below its highest
        gap = (r < top) & ((mask >> r) & 1 == 0)
        table[1 + word[r], gap] |= ((np.int64(1) << bits) - 1) << shift[r]
    return table, cells, wide


def _tree(tokens, pts, base, spare=0.5):
    table, cells, wide = _columns(tokens, pts)
    return T.Tree(table, len(tokens), cells, wide, base, spare=spare)


def _forced_subtrees(tokens, pts, order, codes, depth, base, forced, visit, tree=None, root=None):
    """Call visit(forced cells -> letter, bound) for the class and every partly forced subclass,
    forcing as the prover does (on the tree, in split order), each forced tree's bound checked
    against the tree of the subclass's rows (forced plainly, `_force_rows`). The arena starts
    with no room to spare and the merge's log with room for one task, so both grow."""
    if tree is None:
        tree = _tree(tokens, pts, base, spare=0)
        tree.log = np.empty((1, 4), np.int32)
        root = tree.root
    bound = tree.bound(root)
    assert bound == kernels().tree_bound(tokens, pts, base)
    visit(dict(forced), bound)
    if depth == len(order):
        return
    cell = order[depth]
    for letter in codes[cell]:
        mark = tree.mark()
        sub = tree.force(root, depth, letter)
        forced[cell] = letter
        t, p, b = _force_rows(tokens, pts, depth, letter, base)
        _forced_subtrees(t, p, order, codes, depth + 1, b, forced, visit, tree, sub)
        del forced[cell]
        tree.reset(mark)


def _check_class(lex, plan, class_id, exact, max_depth=None):
    """Every subclass bound >= the exact score of every board in it; `exact(board) -> score`."""
    letters = lex.charset.letters
    cell_letters = plan.class_buckets(class_id)
    codes = [[letters.index(ch) for ch in b] for b in cell_letters]
    boards = list(itertools.product(*cell_letters))
    scores = {b: exact(b) for b in boards}
    tokens, pts = class_entries(lex, plan, cell_letters)
    order = plan.order if max_depth is None else plan.order[:max_depth]
    checked = []

    def visit(forced, bound):
        inside = [s for b, s in scores.items() if all(letters[forced[c]] == b[c] for c in forced)]
        assert bound >= max(inside), (class_id, forced, bound, max(inside))
        checked.append(bound)

    _forced_subtrees(tokens, pts, order, codes, 0, 0, {}, visit)
    return checked


@IN_PYTHON
@pytest.mark.parametrize("size,spec,seed,sample", [((2, 2), "aeq,rstu", 1, None), ((2, 3), "aeu,qr,st", 2, 5),
                                                   ((2, 3), "ae,qrstu", 3, 2)])
def test_bound_holds_on_every_board_and_subclass_small(make_lexicon, size, spec, seed, sample):
    words = _random_words(seed, SMALL, 300)
    lex = open_lexicon(make_lexicon(words, SMALL.upper()))
    ref = Reference(words)
    plan = make_plan(lex, size, spec)
    shape = plan.shape
    ids = range(plan.class_count) if sample is None else random.Random(seed).sample(range(plan.class_count), sample)
    bounds = []
    for class_id in ids:
        bounds += _check_class(lex, plan, class_id, lambda b: ref.score(_faces(b), shape.rows, shape.cols))
    assert max(bounds) > 0


def test_bound_holds_on_3x3_small(make_lexicon):
    words = _random_words(4, "aerst", 400)
    lex = open_lexicon(make_lexicon(words, "AERST"))
    ref = Reference(words)
    plan = make_plan(lex, (3, 3), "ae,rs,t")
    rng = random.Random(5)
    for class_id in rng.sample(range(plan.class_count), 3):
        _check_class(lex, plan, class_id, lambda b: ref.score(_faces(b), 3, 3))


@pytest.fixture(scope="module")
def enable2k() -> Reference:
    """The brute-force reference of ENABLE2K, read once for the module's tests (half a second each)."""
    return Reference.from_file(shared_path("lexicons", "enable2k.txt"))


@pytest.mark.slow
@pytest.mark.parametrize("rules", CARDS)
def test_bound_holds_on_enable2k_3x3(built, enable2k, rules):
    """Under every built-in rule set (the bound of `words` is a word count)."""
    lex = open_lexicon(built("enable2k"))
    plan = make_plan(lex, (3, 3))
    board = "streaedlp"
    class_id = plan.class_of(board)
    letters = lex.charset.letters
    cell_letters = plan.class_buckets(class_id)
    codes = [[letters.index(ch) for ch in b] for b in cell_letters]
    tokens, pts = class_entries(lex, plan, cell_letters, load_rules(rules))
    rng = random.Random(7)
    best = _brute(enable2k, rules, list(board), 3, 3)
    assert best == lex.score(board, rules=rules) and (rules != "standard" or best == 545)
    tree = _tree(tokens, pts, 0)
    # random branches of the forcing tree (forced on the tree, as the prover does), down to single
    # boards; boards sampled in each subclass
    for _ in range(12):
        mark, root, forced = tree.mark(), tree.root, {}
        for depth, cell in enumerate(plan.order):
            bound = tree.bound(root)
            for _ in range(4):
                b = [letters[forced[c]] if c in forced else rng.choice(cell_letters[c]) for c in range(9)]
                assert bound >= _brute(enable2k, rules, _faces(b), 3, 3), (forced, bound)
            if depth == 0:
                assert bound >= best
            letter = rng.choice(codes[cell])
            if depth < 4 and letter != letters.index(board[cell]) and rng.random() < 0.5:
                letter = letters.index(board[cell])  # often follow the best board's branch
            root = tree.force(root, depth, letter)
            forced[cell] = letter
        full = [letters[forced[c]] for c in range(9)]
        assert tree.bound(root) >= _brute(enable2k, rules, _faces(full), 3, 3)
        tree.reset(mark)


@pytest.mark.slow
@pytest.mark.parametrize("rules", CARDS)
def test_bound_holds_on_partly_forced_enable2k_4x4_subclasses(built, enable2k, rules):
    """At 4x4 the bound of a subclass with some cells forced to letters and the others left to their
    buckets, forced on the tree as the prover does (solver.proof.tree), equals the bound of its
    rows forced plainly (`_force_rows`, `tree_bound`) and is at least the brute-force score of 200
    boards sampled in it, down a branch of the class of perslatgsineters (the default 4x4 split,
    its first 3 cells in split order set to the board's letters) that follows that board half of
    the time."""
    lex = open_lexicon(built("enable2k"))
    plan = make_plan(lex, (4, 4))
    board = "perslatgsineters"
    letters = lex.charset.letters
    cell_letters = plan.class_buckets(plan.class_of(board))
    for cell in plan.order[:3]:  # the whole class has 36 M rows (proved in pieces): start 3 cells in
        cell_letters[cell] = board[cell]
    codes = [[letters.index(ch) for ch in b] for b in cell_letters]
    t, p = class_entries(lex, plan, cell_letters, load_rules(rules))
    tree = _tree(t, p, 0)
    root, base, forced, rng = tree.root, 0, {}, random.Random(24)
    for depth, cell in enumerate(plan.order):
        if depth in (3, 6, 9, 12):
            bound = tree.bound(root)
            assert int(kernels().tree_bound(t, p, base)) == bound
            best = 0
            for _ in range(200):
                b = [letters[forced[c]] if c in forced else rng.choice(cell_letters[c]) for c in range(16)]
                best = max(best, _brute(enable2k, rules, _faces(b), 4, 4))
            assert bound >= best > 0, (forced, bound, best)
        letter = letters.index(board[cell]) if rng.random() < 0.5 else rng.choice(codes[cell])
        root = tree.force(root, depth, letter)
        t, p, base = _force_rows(t, p, depth, letter, base)
        forced[cell] = letter
    full = [letters[forced[c]] for c in range(16)]
    assert tree.bound(root) == int(kernels().tree_bound(t, p, base)) >= _brute(enable2k, rules, _faces(full), 4, 4)


@pytest.mark.parametrize("size,spec,seed", [pytest.param((2, 2), "aeq,rstu", 21, marks=IN_PYTHON), ((2, 3), "ae,qrstu", 22),
                                            ((3, 3), "ae,rs,t", 23)])
def test_deep_forcing_leaves_every_board_reaching_the_target(make_lexicon, size, spec, seed):
    """Deep forcing, from a class and from its subclasses with the first cell forced, leaves
    distinct boards of the subclass that include every board whose exact score reaches the
    target, so scoring them gives exactly what exhaustive scoring finds."""
    letters = SMALL if size != (3, 3) else "aerst"
    words = _random_words(seed, letters, 300)
    lex = open_lexicon(make_lexicon(words, letters.upper()))
    plan = make_plan(lex, size, spec)
    order, cells = list(plan.order), plan.shape.cells
    rng = random.Random(seed)
    for class_id in rng.sample(range(plan.class_count), min(4, plan.class_count)):
        codes = [sorted(lex.charset.letters.index(ch) for ch in b) for b in plan.class_buckets(class_id)]
        table = np.zeros((cells, max(map(len, codes))), np.int64)
        for r, c in enumerate(order):
            table[r, :len(codes[c])] = codes[c]
        counts = np.array([len(codes[c]) for c in order], np.int64)
        boards = np.array(list(itertools.product(*codes)), np.int64)
        scores = lex.score_codes(boards, plan.shape)
        tokens, pts = class_entries(lex, plan, plan.class_buckets(class_id))
        tree = _tree(tokens, pts, 0)
        subclasses = [(None, tree.root)]
        for letter in codes[order[0]]:
            subclasses.append((letter, tree.force(tree.root, 0, letter)))
        for target in sorted(set(scores.tolist()))[-3:] + [1]:
            for letter, root in subclasses:
                rank0 = 0 if letter is None else 1
                inside = np.ones(len(boards), bool) if letter is None else boards[:, order[0]] == letter
                out = np.empty((len(boards), cells), np.int64)
                room = 1  # pending choices a rank has room for: widened as the prover widens them
                while True:
                    pending = np.empty((cells, room), np.int64), np.empty((cells, room), np.int64)
                    found, nodes = kernels().force_remaining(*tree.arrays, root, rank0, table, counts, 0, target, out,
                                                             *pending)
                    if found != T.NO_ROOM:
                        break
                    room *= 2
                assert nodes >= 1 and found <= inside.sum()
                left_boards = np.empty((found, cells), np.int64)
                left_boards[:, order] = out[:found]
                if letter is not None:
                    left_boards[:, order[0]] = letter
                left = {tuple(b) for b in left_boards.tolist()}
                assert len(left) == found
                expected = {tuple(b) for b in boards[inside & (scores >= target)].tolist()}
                assert expected <= left, (class_id, letter, target)
                exact = lex.score_codes(left_boards, plan.shape)
                assert {tuple(b) for b, s in zip(left_boards.tolist(), exact) if s >= target} == expected


def _enumerate(lex, shape, min_score, rules=None):
    letters = len(lex.charset)
    codes = np.array(list(itertools.product(range(letters), repeat=shape.cells)), np.int64)
    scores = lex.score_codes(codes, shape, rules=rules)
    keep = scores >= min_score
    canon = canonical_codes(codes[keep], shape)
    found = {"".join(lex.charset.letters[c] for c in row): int(s) for row, s in zip(canon.tolist(), scores[keep])}
    return sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))


@pytest.mark.parametrize("size,spec,seed,rank", [pytest.param((2, 2), None, 11, 20, marks=IN_PYTHON),
                                                 ((2, 3), "aes,qrtu", 12, 30), ((2, 3), None, 13, 5)])
def test_prove_equals_exhaustive_enumeration(make_lexicon, size, spec, seed, rank):
    words = _random_words(seed, SMALL, 250)
    lex = open_lexicon(make_lexicon(words, SMALL.upper()))
    shape = Shape(*size)
    everything = _enumerate(lex, shape, 1)
    min_score = everything[min(rank, len(everything) - 1)][1]
    expected = [kv for kv in everything if kv[1] >= min_score]
    records = []
    result = prove(lex, shape, min_score, classes=spec, seed=seed, on_record=lambda r, d, t: records.append((d, t)))
    assert result.boards == expected
    assert records[-1][0] == records[-1][1] == result.classes == len(make_plan(lex, shape, spec).canonical_ids())
    assert result.nodes >= result.classes


@pytest.mark.parametrize("rules", ["big", "words", "one-letter-tiles"])
def test_prove_equals_exhaustive_enumeration_under_other_rules(make_lexicon, tmp_path, rules):
    """Under Big Boggle's minimum, a word count, and a card where Qu counts one letter."""
    if rules == "one-letter-tiles":
        rules = tmp_path / "house.toml"
        rules.write_text('name = "house"\ntitle = "House"\nmin_length = 3\npoints = { 3 = 1, 4 = 2, 6 = 7 }\n'
                         'tiles_count = "one"\n')
    words = _random_words(31, SMALL, 250)
    lex = open_lexicon(make_lexicon(words, SMALL.upper()))
    shape = Shape(2, 3)
    everything = _enumerate(lex, shape, 1, load_rules(rules))
    assert everything != _enumerate(lex, shape, 1)
    min_score = everything[min(15, len(everything) - 1)][1]
    result = prove(lex, shape, min_score, seed=3, rules=rules)
    assert result.boards == [kv for kv in everything if kv[1] >= min_score]
    assert result.rules == load_rules(rules) and result.to_dict()["rules"]["name"] == load_rules(rules).name


def test_class_too_large_is_proved_in_pieces(make_lexicon, monkeypatch):
    """A class whose rows pass MAX_ROWS is proved in pieces (a bucket halved until each fits):
    the same boards, and a bound between the target and the whole class's."""
    words = _random_words(13, SMALL, 250)
    lex = open_lexicon(make_lexicon(words, SMALL.upper()))
    shape = Shape(2, 3)
    everything = _enumerate(lex, shape, 1)
    min_score = everything[5][1]
    plan = make_plan(lex, shape, SMALL)  # one bucket: every board in one class
    whole = prove_class(lex, plan, 0, min_score)
    rows = len(class_entries(lex, plan, plan.class_buckets(0))[1])
    monkeypatch.setattr(prover, "MAX_ROWS", rows // 6)
    with pytest.raises(prover.ClassTooLarge, match="entry rows"):
        class_entries(lex, plan, plan.class_buckets(0))
    pieces = prove_class(lex, plan, 0, min_score)
    assert pieces.boards == whole.boards == [kv for kv in everything if kv[1] >= min_score]
    assert min_score <= pieces.bound <= whole.bound
    assert pieces.nodes > whole.nodes


@IN_PYTHON
def test_canonical_ids_cover_every_class_once_per_orbit(make_lexicon):
    lex = open_lexicon(make_lexicon(["tea", "seat"], "AEST"))
    plan = make_plan(lex, (3, 3), "ae,s,t")
    ids = set(plan.canonical_ids())
    from boggle_dawg.solver.search import symmetries

    weights = np.cumprod([1] + [3] * 8)
    for class_id in range(plan.class_count):
        digits = np.array(plan.digits(class_id))
        images = {int((digits[perm] * weights).sum()) for perm in symmetries(plan.shape)}
        assert len(images & ids) == 1
        assert min(images) in ids


@pytest.mark.parametrize("size,spec", [((2, 2), "ae,s,t"), ((2, 3), "a,e,st"), ((3, 3), "ae,s,t"),
                                       ((3, 4), "aest/ae,st"), ((4, 4), "aest/ae,st"), ((1, 5), "a,e,s,t")])
def test_canonical_count_is_what_canonical_ids_lists(make_lexicon, size, spec):
    """The count a proof shows (Burnside's lemma) without listing: exactly the listed ids,
    and the canonical class of every class is listed."""
    lex = open_lexicon(make_lexicon(["tea", "seat"], "AEST"))
    plan = make_plan(lex, size, spec)
    ids = plan.canonical_ids()
    assert plan.canonical_count() == len(ids)
    assert {plan.canonical_class(c) for c in range(plan.class_count)} == set(ids)


@pytest.mark.parametrize("size", [(3, 3), (3, 4)])
def test_the_lazy_class_order_lists_each_canonical_class_once_the_same_for_a_seed(make_lexicon, size):
    """A proof's class order (`canonical_order`): every canonical class of the default split exactly
    once (the eager listing's set), the same order on every run with a seed, another with another seed."""
    lex = open_lexicon(make_lexicon(["tea", "seat", "quest"]))
    plan = make_plan(lex, size)
    order = list(plan.canonical_order(7))
    assert len(order) == len(set(order)) == plan.canonical_count()
    assert set(order) == set(plan.canonical_ids())
    assert list(make_plan(lex, size).canonical_order(7)) == order
    other = list(plan.canonical_order(8))
    assert other != order and sorted(other) == sorted(order)
    assert order != sorted(order)


def test_plan_and_record_are_small_and_portable(make_lexicon, tmp_path):
    lex = open_lexicon(make_lexicon(["tea", "seat", "quest"], "AEQSTU"))
    plan = make_plan(lex, (2, 3))
    again = pickle.loads(pickle.dumps(plan))
    assert again == plan and again.fingerprint() == plan.fingerprint()
    assert len(pickle.dumps(plan)) < 2000
    assert make_plan(lex, (2, 3), "aeq,stu").fingerprint() != plan.fingerprint()
    # the same words in another format: the same fingerprint
    assert make_plan(open_lexicon(tmp_path / "build1", "dawg"), (2, 3)).fingerprint() == plan.fingerprint()
    record = prove_class(lex, plan, plan.canonical_ids()[-1], 1)
    assert ClassRecord.from_dict(json.loads(json.dumps(record.to_dict()))) == record
    assert pickle.loads(pickle.dumps(record)) == record


@IN_PYTHON
def test_formats_agree(make_lexicon):
    words = _random_words(21, SMALL, 200)
    path = make_lexicon(words, SMALL.upper())
    results = [prove(open_lexicon(path, fmt), (2, 2), 3).boards for fmt in ("trie", "dawg", "adtdawg")]
    assert results[0] == results[1] == results[2]


def test_api_errors(make_lexicon):
    lex = open_lexicon(make_lexicon(["tea", "seat"], "AEST"))
    other = open_lexicon(make_lexicon(["tea", "sat"], "AERST"))
    plan = make_plan(lex, (2, 2))
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ParameterError, match="min_score"):
            prove(lex, (2, 2), bad)
    with pytest.raises(ParameterError, match="class_id"):
        prove_class(lex, plan, plan.class_count, 1)
    with pytest.raises(ParameterError, match="plan"):
        prove_class(other, plan, 0, 1)
    for spec, message in [("ae,sx,t", "bucket 'sx' uses a letter outside the lexicon's charset"), ("ae,s", "T missing"),
                          ("aes,st", "more than one bucket"), ("ae,,st", "empty bucket")]:
        with pytest.raises(ParameterError, match=message):
            make_plan(lex, (2, 2), spec)
    with pytest.raises(ParameterError, match="shape"):
        make_plan(lex, (9, 9))


@pytest.mark.slow
def test_3x4_class_of_the_best_enable2k_board(built):
    lex = open_lexicon(built("enable2k"))
    plan = make_plan(lex, (3, 4))
    corner, other = plan.buckets[0], plan.buckets[1]  # the documented default split of 3x4
    assert corner == (lex.charset.letters,) and other == ("aeiou", "bcdfghjkmpqvwxyz", "lnrst")
    assert len(plan.canonical_ids()) == 1863
    plan = make_plan(lex, (3, 4), "aeiou,bcdfghjkmpqvwxyz,lnrst")  # a smaller class, quick enough for CI
    class_id = plan.class_of("perslatesind")
    record = prove_class(lex, plan, class_id, 1651)
    assert record.boards == [("dnisetalsrep", 1651)]  # perslatesind, turned
    assert record.bound >= 1651


@pytest.mark.slow
def test_cli_output_json_and_errors(make_lexicon):
    words = _random_words(31, SMALL, 200)
    path = str(make_lexicon(words, SMALL.upper()))
    lex = open_lexicon(path)
    expected = _enumerate(lex, Shape(2, 2), 1)
    min_score = expected[3][1]
    want = [kv for kv in expected if kv[1] >= min_score]
    proc = run_cli("boggle_dawg.dawg_solve", "prove", path, "--size", "2x2", "--min-score", str(min_score))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(f"{len(want)} boards of 2x2 score at least {min_score}")
    assert [tuple(line.split()[::-1]) for line in lines[1:-1]] == [(b, str(s)) for b, s in want]
    assert lines[-1].startswith(f"No other 2x2 board scores {min_score} or more: proved over ")
    assert "CPU-seconds" in lines[-1] and "bounds computed" in lines[-1] and "scored exactly" in lines[-1]
    proc = run_cli("boggle_dawg.dawg_solve", "prove", path, "--size", "2x2", "--min-score", str(min_score), "--json",
                   "--classes", "aeq,rstu", "--seed", "3")
    data = json.loads(proc.stdout)
    assert [(d["board"], d["score"]) for d in data["boards"]] == want
    assert data["classes"] == 6 and data["class_count"] == 16 and data["bounds"] >= 3
    proc = run_cli("boggle_dawg.dawg_solve", "prove", path, "--size", "2x2", "--min-score", "999")
    assert proc.stdout.startswith("No 2x2 board scores 999 or more")
    for args, fragment in [(["--min-score", "0"], "--min-score: must be a positive"),
                           (["--min-score", "-5"], "--min-score"),
                           (["--min-score", "16777216"], "--min-score: must be at most 16,777,215 (where the proof's"),
                           (["--min-score", "3", "--classes", "aeq,rstz"], "--classes: bucket 'rstz' uses a letter outside"),
                           (["--min-score", "3", "--classes", "aeq,rst"], "U missing"),
                           (["--min-score", "3", "--classes", "aeqr,rstu"], "more than one bucket")]:
        assert_clean_error(run_cli("boggle_dawg.dawg_solve", "prove", path, "--size", "2x2", *args), fragment)
    assert_clean_error(run_cli("boggle_dawg.dawg_solve", "prove", path, "--size", "9x9", "--min-score", "3"),
                       "--size: 9x9 is outside")


def test_a_table_grows_in_place_keeping_its_rows_or_by_a_copy_when_another_view_holds_it():
    """memory.grow resizes a small_pages table's mapping (no second copy resident); a view held
    elsewhere blocks that, and the table is copied instead: the rows are kept either way."""
    from types import SimpleNamespace

    from boggle_dawg.solver.proof.memory import grow, small_pages

    owner = SimpleNamespace(table=small_pages((1000, 3), np.int32))
    owner.table[:] = np.arange(3000, dtype=np.int32).reshape(1000, 3)
    grow(owner, "table", 5000)
    assert owner.table.shape == (5000, 3) and owner.table[:1000].ravel().tolist() == list(range(3000))
    owner.table[4999] = 7  # the new rows are writable memory
    held = owner.table[:10]
    grow(owner, "table", 6000)
    assert owner.table.shape == (6000, 3) and owner.table[:1000].ravel().tolist() == list(range(3000))
    assert owner.table[4999].tolist() == [7, 7, 7] and not np.shares_memory(held, owner.table)


def test_a_tree_built_in_tables_too_small_grows_them_and_is_the_same_tree(make_lexicon, monkeypatch):
    """The build stops before a row whose nodes might not fit, the tables grow and it goes on:
    tables with room for nothing but the shared leaves give the same rows, root and bound as tables
    with room to spare (and the root's bound is the rows' tree bound)."""
    words = _random_words(31, SMALL, 400)
    lex = open_lexicon(make_lexicon(words, SMALL.upper()))
    plan = make_plan(lex, (3, 3), "aeq,rstu")
    tokens, pts = class_entries(lex, plan, plan.class_buckets(5))
    roomy = _tree(tokens, pts, 3)
    monkeypatch.setattr(T, "ROWS_A_ENTRY", 0)
    tight = _tree(tokens, pts, 3, spare=0)
    assert len(tight.sums) < len(roomy.sums) and len(tight.choices) < len(roomy.choices)
    assert tight.root == roomy.root and tight.bound(tight.root) == kernels().tree_bound(tokens, pts, 3) > 3
    assert tight.tops.tolist() == roomy.tops.tolist() and len(tokens) > 100
    for name in ("sums", "choices"):
        top = roomy.tops[0 if name == "sums" else 1]
        assert np.array_equal(getattr(tight, name)[:top], getattr(roomy, name)[:top])


def test_a_tree_in_the_tables_of_the_last_grows_them_in_place(make_lexicon, monkeypatch):
    """A class's tree takes the last class's tables (Tree's `reuse`), which keeps none of them: when
    the new tree outgrows them they are resized where they lie (memory.grow), not copied beside a
    reference the old tree still held (a whole copy of the arena: 0.24 s on a 4x4 class)."""
    from boggle_dawg.solver.proof.memory import _mapped

    words = _random_words(31, SMALL, 400)
    lex = open_lexicon(make_lexicon(words, SMALL.upper()))
    plan = make_plan(lex, (3, 3), "aeq,rstu")
    tokens, pts = class_entries(lex, plan, plan.class_buckets(5))
    table, cells, wide = _columns(tokens, pts)
    monkeypatch.setattr(T, "ROWS_A_ENTRY", 0)
    last = T.Tree(table, len(tokens) // 8, cells, wide, spare=0)
    blocks = [_mapped(t)[0] for t in last.arrays]
    tree = T.Tree(table, len(tokens), cells, wide, reuse=last, spare=0)
    assert last.sums is None and last.choices is None and last.log is None
    assert [_mapped(t)[0] for t in tree.arrays] == blocks  # grown, and the same mappings
    whole = _tree(tokens, pts, 0)
    assert tree.bound(tree.root) == whole.bound(whole.root)


@IN_PYTHON
def test_the_tree_built_from_the_sorted_keys_is_the_tree_of_the_rows_they_give(make_lexicon):
    """The prover builds its tree from the sorted keys themselves (solver.proof.tree), `class_entries`
    writes them out as rows of tokens (entries.emit_rows): two readings of the keys, each counting a
    word once per set of (cell, letter) pairs. Anagrams share sets of pairs (a key's words added up)
    and palindromes a set with themselves (counted once): both give the same root, rows and bound."""
    words = sorted(set(_random_words(41, SMALL, 300)) | {"tea", "eat", "ate", "eta", "tae", "tat", "ese", "sees"})
    lex = open_lexicon(make_lexicon(words, SMALL.upper()))
    plan = make_plan(lex, (3, 3), "aeq,rstu")
    for class_id in plan.canonical_ids()[:6]:
        tokens, pts = class_entries(lex, plan, plan.class_buckets(class_id))
        table, count, _, _, _ = prover._entries(lex, plan, plan.class_buckets(class_id), lex.rules)
        from_keys = T.Tree(table, count, plan.shape.cells, 0)
        from_rows = _tree(tokens, pts, 0)
        assert count > len(tokens)  # keys repeated: several words, or one word by several paths
        assert from_keys.bound(from_keys.root) == from_rows.bound(from_rows.root) == kernels().tree_bound(tokens, pts, 0)
        assert from_keys.tops.tolist() == from_rows.tops.tolist() and from_keys.root == from_rows.root
        for table_name, top in (("sums", from_keys.tops[0]), ("choices", from_keys.tops[1])):
            assert np.array_equal(getattr(from_keys, table_name)[:top], getattr(from_rows, table_name)[:top])
        assert prove_class(lex, plan, class_id, 10**6).bound == from_keys.bound(from_keys.root)
