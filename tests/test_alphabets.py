"""Lexicons beyond A-Z: synthetic word lists over Greek, Cyrillic, a Polish-like 35-letter and a
50-letter Latin + Greek alphabet (tiles included), built in every format through the compiler
API with a language file, round-tripped by `verify` and `dawgc verify`, and scored by every
format and both engines (CPython one board, numba batches), and by the CUDA kernel under the
simulator, against the independent brute-force scorer on random boards; proofs in code order,
over a wide trie and over alphabets of more than 30 letters (the proof's wide layout), from
Python and, in Russian, from the command line; the headers, the board notation and the limits.
"""

from __future__ import annotations

import itertools
import json
import random
import unicodedata
import zlib
from pathlib import Path

import numpy as np
import pytest
from test_cuda import simulate
from test_languages import _lines
from test_proof import _check_class

from boggle_dawg.compiler.build import build_lexicon
from boggle_dawg.compiler.verify import verify
from boggle_dawg.compiler.wordlist import ListOptions
from boggle_dawg.solver.board import Shape, encode_texts, parse_board
from boggle_dawg.solver.charset import MAX_LETTERS, Charset
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.formats import FORMATS
from boggle_dawg.solver.formats.base import Lexicon
from boggle_dawg.solver.formats.common import HEADER
from boggle_dawg.solver.language import load_language
from boggle_dawg.solver.lexicon import open_lexicon
from boggle_dawg.solver.proof import ProofPlan, entries, make_plan, prove, prove_class
from boggle_dawg.solver.proof.tables import NARROW_LETTERS, tables_of
from boggle_dawg.solver.search import canonical_board, canonical_codes

from bruteforce import Reference
from support import run_cli, shared_path

GREEK = "αβγδεζηθικλμνξοπρστυφχψω"
CYRILLIC = "абвгдеёжзийклмнопрстуфхцчшщъыьэюя"  # ё is out of code point order: code order is the language's
POLISH = "aąbcćdeęfghijklłmnńoópqrsśtuvwxyzźż"
LATIN_GREEK = "abcdefghijklmnopqrstuvwxyz" + GREEK  # 50 letters

# name: (letters, tiles, letters most words and boards are made of: high codes and tiles among them)
ALPHABETS = {
    "greek": (GREEK, {}, "αεοστνψω"),
    "cyrillic": (CYRILLIC, {}, "аеёоюяьн"),
    "polish": (POLISH, {}, "aąeęłóźżq"),
    "latin-greek": (LATIN_GREEK, {"q": "qu", "ω": "ωμα"}, "aeqsuαμωψ"),
}


def language_file(directory: Path, name: str, letters: str, tiles: dict[str, str],
                  folds: dict[str, str] | None = None) -> Path:
    """A language definition as a user writes one."""
    tiles_list, folds_list = (", ".join(f'["{a}", "{b}"]' for a, b in pairs.items()) for pairs in (tiles, folds or {}))
    path = directory / f"{name}.toml"
    path.write_text(f'name = "{name}"\ntitle = "{name.title()}"\nletters = "{letters}"\ntiles = [{tiles_list}]\n'
                    f'folds = [{folds_list}]\nvowels = "{letters[0]}"\n', encoding="utf-8")
    return path


def random_words(rng: random.Random, letters: str, common: str, tiles: dict[str, str], count: int) -> list[str]:
    """Spelled words: mostly of the common letters, a tile's symbol always followed by its face."""
    words = set()
    while len(words) < count:
        symbols = [rng.choice(common if rng.random() < 0.85 else letters) for _ in range(rng.randint(2, 8))]
        words.add("".join(tiles.get(ch, ch) for ch in symbols))
    return sorted(words)


def random_board(rng: random.Random, letters: str, common: str, cells: int, tiles: dict[str, str]) -> list[str]:
    """Cell tokens: symbols of the common letters mostly, a blank or a two-letter face (of letters
    that are not tiles) now and then."""
    plain, plain_common = ("".join(ch for ch in text if ch not in tiles) for text in (letters, common))
    tokens = []
    for _ in range(cells):
        roll = rng.random()
        if roll < 0.04:
            tokens.append(".")
        elif roll < 0.1:
            tokens.append("(" + rng.choice(plain_common) + rng.choice(plain) + ")")
        else:
            tokens.append(rng.choice(common if roll < 0.85 else letters))
    return tokens


def faces_of(tokens: list[str], tiles: dict[str, str]) -> list[str]:
    """The spelled face of each cell, as the reference reads a board."""
    faces = []
    for token in tokens:
        inner = token.strip("()")
        faces.append("" if token == "." else tiles.get(inner, inner) if len(inner) == 1 else inner)
    return faces


@pytest.fixture(scope="module", params=list(ALPHABETS))
def alphabet(request, tmp_path_factory):
    """(name, letters, tiles, common letters, build directory, source list, reference scorer)."""
    name = request.param
    letters, tiles, common = ALPHABETS[name]
    tmp = tmp_path_factory.mktemp(name)
    rng = random.Random(name)
    words = random_words(rng, letters, common, tiles, 4000)
    source = tmp / "words.txt"
    source.write_text("\n".join(words) + "\n", encoding="utf-8")
    language = load_language(str(language_file(tmp, name, letters, tiles)))
    out = tmp / "build"
    build_lexicon(source, language.charset(), out, options=ListOptions(language=language))
    return name, letters, tiles, common, out, source, Reference(words)


def test_builds_store_the_alphabet_and_round_trip(alphabet):
    name, letters, tiles, _, out, source, _ = alphabet
    result = verify(out, source)
    assert result.ok, result.checks
    proc = run_cli("boggle_dawg.dawgc_cli", "verify", str(out), "--source", str(source))
    assert proc.returncode == 0 and "FAIL" not in proc.stdout, proc.stdout + proc.stderr
    for fmt in FORMATS:
        lex = open_lexicon(out, fmt)
        assert lex.charset == Charset(letters, tuple(tiles.items()))
        assert lex.language.name == name
    fields = HEADER.unpack((out / "trie.bin").read_bytes())
    assert fields["version"] == 2 and int(fields["node_words"]) == (1 if len(letters) <= 26 else 2)


@pytest.mark.parametrize("rows, cols", [(4, 4), (5, 5)])
def test_every_format_and_engine_agree_with_brute_force(alphabet, rows, cols):
    name, letters, tiles, common, out, _, reference = alphabet
    rng = random.Random(f"{name}-{rows}")
    boards = [random_board(rng, letters, common, rows * cols, tiles) for _ in range(40)]
    expected = [reference.score(faces_of(tokens, tiles), rows, cols) for tokens in boards]
    assert sum(expected) > 40, "boards this sparse test too little"
    # the same boards in upper case, as tiles' faces and in NFD: one notation, whatever its spelling
    texts = ["".join(t.upper() if i % 3 == 0 else t for i, t in enumerate(tokens)) for tokens in boards]
    spelled = [unicodedata.normalize("NFD", "".join(f"({tiles[t]})" if t in tiles else t for t in tokens))
               for tokens in boards]
    for fmt in FORMATS:
        lex = open_lexicon(out, fmt)
        assert [lex.score(text) for text in texts] == expected, fmt
        assert [lex.score(text) for text in spelled[:10]] == expected[:10], fmt
        assert lex.score_many(texts).tolist() == expected, fmt
        found = lex.words(texts[0])
        assert {f.word for f in found} == reference.found(faces_of(boards[0], tiles), rows, cols)


def test_cuda_kernel_agrees_under_the_simulator(alphabet):
    """The CUDA kernel (in numba's simulator) on the same boards, narrow and wide tries alike."""
    name, letters, tiles, common, out, _, reference = alphabet
    rng = random.Random(f"{name}-cuda")
    shape = Shape(4, 4)
    boards = [random_board(rng, letters, common, shape.cells, tiles) for _ in range(12)]
    lex = open_lexicon(out, "trie")
    indices, codes = encode_texts(["".join(b) for b in boards], lex.charset, shape)[shape]
    codes = codes[np.argsort(indices)]  # boards with two-letter faces come after the plain ones
    expected = [reference.score(faces_of(tokens, tiles), 4, 4) for tokens in boards]
    assert simulate(out, [(shape, codes)])["scores"] == [expected]


def test_word_queries_agree_with_the_words_in_every_alphabet(alphabet):
    """`in`, `key_id` and `prefixes` (each format's own loops: narrow nodes in 32-bit halves, wide
    ones a word at a time) against the words the build kept and the generic descent of the word steps."""
    name, letters, _, _, out, source, _ = alphabet
    rng = random.Random(name)
    words = source.read_text(encoding="utf-8").split()
    probes = [*words[::5], *(w + rng.choice(letters) for w in words[::9]), *(w[:-1] for w in words[::13])]
    generic = Lexicon._descents.func  # what a format without loops of its own would use
    kept = set(open_lexicon(out, "trie"))  # the compiled word listing: another path to the words
    assert len(kept) > 1000
    for fmt in FORMATS:
        lex = open_lexicon(out, fmt)
        steps = generic(lex)
        for word in probes:
            assert (word in lex) == (word in kept), (fmt, word)
            folded = lex._folded(word)
            if folded:  # else a tile's letter without its face: no word, and no prefixes either
                expected = [word[:end] for end in range(1, len(word) + 1) if word[:end] in kept]
                assert lex.prefixes(word) == expected, (fmt, word)
                assert lex._descents.number(folded) == steps.number(folded), (fmt, word)
                assert lex._descents.word_ends(folded) == steps.word_ends(folded), (fmt, word)


def test_board_letter_outside_the_lexicon_names_the_cell(alphabet):
    _, letters, _, _, out, _, _ = alphabet
    lex = open_lexicon(out)
    board = letters[0] * 5 + "ж" + letters[1] * 10 if "ж" not in letters else letters[0] * 5 + "z" + letters[1] * 10
    with pytest.raises(DawgError, match=r"^board '.*': cell 2,2 '(Ж|Z)' uses a letter outside the lexicon's charset"):
        lex.score(board)
    with pytest.raises(DawgError, match="cell 2,2"):
        lex.score_many([board])


def test_q_is_the_qu_die_only_where_the_language_says_so(alphabet):
    name, letters, tiles, _, out, _, reference = alphabet
    lex = open_lexicon(out)
    text = "q" + letters[1:16]
    if "q" not in letters:
        with pytest.raises(DawgError, match="cell 1,1 'Q' uses a letter outside"):
            lex.score(text)
        return
    board = parse_board(text, None, lex.charset)
    assert board.faces[0] == tiles.get("q", "q")
    assert lex.score(board) == lex.score_many([text])[0] == reference.score(list(board.faces), 4, 4)


SPANISH_WIDE = "abcdefghijklmnñopqrstuvwxyzü"  # 28 letters: wide node words in the files, a narrow proof


@pytest.mark.parametrize("alphabet_letters, letters, rows, cols", [
    (CYRILLIC, "аеёоя", 2, 2),  # code order is not code point order: ё after е
    (SPANISH_WIDE, SPANISH_WIDE, 1, 3),  # a wide trie
], ids=["cyrillic-code-order", "wide"])
def test_proof_agrees_with_brute_force(tmp_path, alphabet_letters, letters, rows, cols):
    """Every board of the shape over the letters reaching the minimum, as brute force finds them."""
    rng = random.Random(letters)
    words = sorted({"".join(rng.choice(letters[:2] + letters[-4:]) for _ in range(rng.randint(3, 4))) for _ in range(40)})
    source = tmp_path / "words.txt"
    source.write_text("\n".join(words) + "\n", encoding="utf-8")
    language = load_language(str(language_file(tmp_path, "test", alphabet_letters, {})))
    charset = language.charset(letters)
    build_lexicon(source, charset, tmp_path / "out", options=ListOptions(language=language))
    lex = open_lexicon(tmp_path / "out")
    reference = Reference(w for w in words if not charset.outside(w))
    shape, least = Shape(rows, cols), 1
    every = itertools.product(letters, repeat=shape.cells)
    expected = {canonical_board(parse_board("".join(b), shape, lex.charset)).notation
                for b in every if reference.score(list(b), rows, cols) >= least}
    found = prove(lex, shape, least).boards
    assert expected and {canonical_board(parse_board(b, shape, lex.charset)).notation for b, _ in found} == expected
    assert all(reference.score(list(parse_board(b, shape, lex.charset).faces), rows, cols) == score for b, score in found)


def test_a_damaged_alphabet_block_or_an_unknown_version_is_one_line(alphabet, tmp_path):
    _, letters, _, _, out, _, _ = alphabet
    data = bytearray((out / "trie.bin").read_bytes())
    block = HEADER.unpack(data)["alphabet_bytes"]
    cases = {"upper case": (HEADER.size, letters[0].upper().encode()),
             "version 3": (HEADER.span("version")[0], (3).to_bytes(2, "little"))}
    for name, (offset, new) in cases.items():
        damaged = bytearray(data)
        damaged[offset:offset + len(new)] = new
        crc = HEADER.span("crc32")[0]
        damaged[crc:crc + 4] = zlib.crc32(bytes(damaged[HEADER.size:])).to_bytes(4, "little")
        path = tmp_path / f"{name}.bin"
        path.write_bytes(bytes(damaged))
        expected = "header charset is invalid" if name == "upper case" else "format version 3, this reader knows 1, 2"
        with pytest.raises(DawgError, match=f"^{path}: {expected}$"):
            open_lexicon(path)
    assert block % 8 == 0 and data[HEADER.size:HEADER.size + block].rstrip(b"\0").decode().startswith(letters)


def test_a_board_letter_the_language_folds_reads_as_its_fold(tmp_path):
    """Greek's final sigma and accented vowels on a board read as the letters the list folds them to."""
    source = tmp_path / "words.txt"
    source.write_text("σας\nάλας\n", encoding="utf-8")
    language = load_language(str(language_file(tmp_path, "el", GREEK, {}, {"ς": "σ", "ά": "α"})))
    build_lexicon(source, language.charset(), tmp_path / "out", options=ListOptions(language=language))
    lex = open_lexicon(tmp_path / "out")
    assert sorted(lex) == ["αλασ", "σασ"]
    for board in ("ΆΛΑΣ", "άλας", unicodedata.normalize("NFD", "άλας")):
        assert lex.score(board, shape=(1, 4)) == lex.score_many([board], shape=(1, 4))[0] == 1, board
        assert lex.board(board, (1, 4)).faces == ("α", "λ", "α", "σ")
    with pytest.raises(DawgError, match="cell 1,1 'Ό' uses a letter outside"):
        lex.score("όλας", shape=(1, 4))


def test_a_language_that_folds_an_ascii_letter_looks_words_up_folded(tmp_path):
    """Word queries take the general path for an ASCII word holding a letter the language folds
    (here "c" played as "k"): `in`, key_id, prefixes and the batch lookup all see the folded word."""
    source = tmp_path / "words.txt"
    source.write_text("kat\nkats\nsak\n", encoding="utf-8")
    language = load_language(str(language_file(tmp_path, "kk", "aksty", {}, {"c": "k"})))
    build_lexicon(source, language.charset(), tmp_path / "out", options=ListOptions(language=language))
    for fmt in FORMATS:
        lex = open_lexicon(tmp_path / "out", fmt)
        assert "cat" in lex and "CATS" in lex and "sac" in lex and "cast" not in lex, fmt
        assert lex.key_id("cat") == lex.key_id("kat") and lex.prefixes("Cats") == ["kat", "kats"], fmt
        assert lex.contains_many(["cat", "sac", "cast"]).tolist() == [True, True, False], fmt


def test_english_files_keep_the_first_format_version(make_lexicon):
    out = make_lexicon(["quit", "cat", "zebra", "aqua"])
    fields = HEADER.unpack((out / "trie.bin").read_bytes())
    assert fields["version"] == 1 and bytes(fields["charset"]).rstrip(b"\0") == b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    assert int(fields["node_words"]) == 0 and int(fields["alphabet_bytes"]) == 0


def every_2x2_score(lex) -> np.ndarray:
    """The score of every 2x2 board over the lexicon's letters, by board number (the codes of cells
    0..3 as the digits, cell 0 the most significant), scored by the solver a first letter at a time."""
    letters, shape = len(lex.charset), Shape(2, 2)
    rest = np.array(list(itertools.product(range(letters), repeat=3)), np.int64)
    return np.concatenate([lex.score_codes(np.column_stack([np.full(len(rest), first), rest]), shape)
                           for first in range(letters)])


def boards_reaching(lex, scores: np.ndarray, least: int) -> list[tuple[str, int]]:
    """The 2x2 boards of `every_2x2_score` scoring at least `least`, in canonical form, as a proof lists them."""
    numbers = np.flatnonzero(scores >= least)
    codes = np.column_stack(np.unravel_index(numbers, (len(lex.charset),) * 4)).astype(np.int64)
    found = {lex.charset.symbols(row): int(score)
             for row, score in zip(canonical_codes(codes, Shape(2, 2)).tolist(), scores[numbers].tolist())}
    return sorted(found.items(), key=lambda kv: (-kv[1], kv[0]))


def test_a_proof_of_any_alphabet_finds_what_scoring_every_board_finds(alphabet):
    """Greek (24 letters) takes the proof's narrow layout; Cyrillic (33), Polish (35) and Latin + Greek
    (50, tiles among them) its wide one (6-bit letters, two-word trie nodes): each 2x2 proof lists exactly
    the boards that scoring every board finds at or above its 40th best score, at the brute-force scores."""
    _, letters, tiles, _, out, _, reference = alphabet
    lex = open_lexicon(out)
    assert tables_of(lex, lex.rules).wide == (len(letters) > NARROW_LETTERS)
    scores = every_2x2_score(lex)
    least = int(np.sort(scores)[-40])
    expected = boards_reaching(lex, scores, least)
    found = prove(lex, Shape(2, 2), least).boards
    assert found == expected and least > 0
    assert all(reference.score(faces_of(list(board), tiles), 2, 2) == score for board, score in found)


def pairs_class(lex, name: str, letters: str, common: str, size: tuple[int, int]) -> tuple[ProofPlan, int]:
    """A split whose first four buckets are two-letter pairs of the common letters (the rest in a fifth),
    and a class of it that gives every cell one of the pairs, drawn by the alphabet's name."""
    pairs = [common[i:i + 2] for i in range(0, 8, 2)]
    plan = make_plan(lex, size, ",".join([*pairs, "".join(ch for ch in letters if ch not in common[:8])]))
    rng = random.Random(f"{name}-{size}")
    return plan, sum(rng.randrange(len(pairs)) * len(plan.buckets[0]) ** cell for cell in range(plan.shape.cells))


def test_the_bound_holds_on_every_board_of_a_3x3_class_in_every_alphabet(alphabet):
    """In every alphabet, narrow and wide, the bound of a 3x3 class and of every partly forced subclass is at least the
    brute-force score of every board in it."""
    name, letters, tiles, common, out, _, reference = alphabet
    lex = open_lexicon(out)
    plan, class_id = pairs_class(lex, name, letters, common, (3, 3))
    bounds = _check_class(lex, plan, class_id, lambda board: reference.score(faces_of(list(board), tiles), 3, 3))
    assert bounds[0] > 0


def test_a_wide_3x4_row_key_takes_two_words_and_bounds_hold_in_every_alphabet(alphabet):
    """Twelve ranks of 6-bit letters pass a key word's 60 bits: a wide 3x4 key takes two words (English's
    one). In every alphabet, on a 3x4 class of two-letter buckets, every subclass bound down four forced cells is at least
    the score of every board in it, and proving the class finds exactly the boards that scoring all 4,096
    of them finds at or above its 20th best score."""
    name, letters, _, common, out, _, _ = alphabet
    assert (entries.key_words(12, 0), entries.key_words(12, 1)) == (1, 2)
    lex = open_lexicon(out)
    plan, class_id = pairs_class(lex, name, letters, common, (3, 4))
    boards = list(itertools.product(*plan.class_buckets(class_id)))
    codes = np.array([[lex.charset.letters.index(ch) for ch in board] for board in boards], np.int64)
    scores = lex.score_codes(codes, plan.shape)
    _check_class(lex, plan, class_id, dict(zip(boards, scores.tolist())).__getitem__, max_depth=4)
    least = int(np.sort(scores)[-20])
    keep = scores >= least
    expected = {lex.charset.symbols(row): score
                for row, score in zip(canonical_codes(codes[keep], plan.shape).tolist(), scores[keep].tolist())}
    record = prove_class(lex, plan, class_id, least)
    assert dict(record.boards) == expected and record.bound >= scores.max() >= least > 0


@pytest.mark.slow
def test_prove_in_russian_from_the_command_line(tmp_path):
    """A Russian lexicon (every 20th line of Tanglet's list, built with --language ru --lenient from the
    command line: 32 letters, the wide layout) proves its best 2x2 boards from the command line: the boards scoring every
    board finds."""
    source = tmp_path / "words"
    source.write_text("\n".join(_lines(shared_path("lexicons", "tanglet", "ru", "words"))[::20]) + "\n", encoding="utf-8")
    out = tmp_path / "ru"
    proc = run_cli("boggle_dawg.dawgc_cli", "build", str(source), "--language", "ru", "--lenient", "-o", str(out), "-q")
    assert proc.returncode == 0, proc.stderr
    lex = open_lexicon(out)
    assert len(lex.charset) == 32 and tables_of(lex, lex.rules).wide
    scores = every_2x2_score(lex)
    best = int(scores.max())
    proc = run_cli("boggle_dawg.dawg_solve", "prove", str(out), "--size", "2x2", "--min-score", str(best), "--workers",
                   "1", "--json", "--quiet")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert [(b["board"], b["score"]) for b in result["boards"]] == boards_reaching(lex, scores, best) != []
    proc = run_cli("boggle_dawg.dawg_solve", "prove", str(out), "--size", "2x2", "--min-score", str(best), "--workers",
                   "1", "--quiet")
    assert proc.returncode == 0 and f"{result['boards'][0]['board']}" in proc.stdout, proc.stdout + proc.stderr


def test_the_most_letters_a_lexicon_holds(tmp_path):
    """MAX_LETTERS letters build and score; one more is a one-line error."""
    letters = "".join(ch for ch in map(chr, range(0x100, 0x300)) if ch.isalpha() and ch.casefold() == ch
                      and unicodedata.normalize("NFC", ch) == ch)[:MAX_LETTERS + 1]
    too_many = language_file(tmp_path, "too-many", letters, {})
    with pytest.raises(DawgError, match=f"^{too_many}: field letters: {MAX_LETTERS + 1} letters, more than the "
                                        f"{MAX_LETTERS} a lexicon can hold$"):
        load_language(str(too_many))
    with pytest.raises(ValueError, match=f"more than the {MAX_LETTERS}"):
        Charset(letters)
    letters = letters[:MAX_LETTERS]
    rng = random.Random(5)
    common = letters[-6:]
    words = random_words(rng, letters, common, {}, 2000)
    source = tmp_path / "words.txt"
    source.write_text("\n".join(words) + "\n", encoding="utf-8")
    language = load_language(str(language_file(tmp_path, "wide", letters, {})))
    build_lexicon(source, language.charset(), tmp_path / "out", options=ListOptions(language=language))
    reference = Reference(words)
    boards = [random_board(rng, letters, common, 16, {}) for _ in range(20)]
    expected = [reference.score(faces_of(tokens, {}), 4, 4) for tokens in boards]
    for fmt in FORMATS:
        lex = open_lexicon(tmp_path / "out", fmt)
        assert lex.score_many(["".join(b) for b in boards]).tolist() == expected, fmt


@pytest.mark.parametrize("letters", ["aiıkt", "aıikt"])  # 'i' before 'ı' (the order that failed), and after
def test_a_capital_two_letters_share_is_read_one_way_everywhere(tmp_path, letters):
    """Turkish 'I' is the capital of 'ı' and, in Unicode, of 'i' too: a board reads it as its lower case,
    'i', in one-board solves, batches and the server's batch path alike (it read as 'ı' in batches)."""
    language = tmp_path / "tr.toml"
    language.write_text(f'name = "tr-test"\ntitle = "Test"\nletters = "{letters}"\ntiles = []\nfolds = []\n'
                        f'vowels = "aiı"\n')
    source = tmp_path / "words.txt"
    source.write_text("kıt\nkit\nkita\n")
    lang = load_language(language)
    build_lexicon(source, lang.charset(), tmp_path / "out", options=ListOptions(lang))
    lex = open_lexicon(tmp_path / "out")
    board = "KITAAAAAA"
    alone = lex.score(board)
    assert [f.word for f in lex.words(board)] == ["kita", "kit"]
    assert lex.score_many([board]).tolist() == [alone] == [lex.score("kitaaaaaa")]
    assert lex.score_many(["KIT" + "A" * 6, "KıTAAAAAA"]).tolist() == [alone, lex.score("kıtaaaaaa")]
