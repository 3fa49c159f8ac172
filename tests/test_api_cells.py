"""The API takes a board size as a Shape or a (rows, cols) pair, and names cells as the CLI does."""

from __future__ import annotations

import numpy as np
import pytest

from boggle_dawg.solver.board import Shape, encode_texts, parse_board
from boggle_dawg.solver.board_walk import checked_codes
from boggle_dawg.solver.errors import DawgError, ParameterError
from boggle_dawg.solver.lexicon import open_lexicon
from boggle_dawg.solver.walk_kernels import NO_LETTER


def test_score_codes_takes_a_rows_cols_pair(make_lexicon):
    lex = open_lexicon(make_lexicon(["cat", "cats", "act", "acts", "scat"]))
    board = parse_board("catsxxxxxxxxxxxx")
    codes = np.array([[lex.charset.letters.index(f) for f in board.faces]])
    expected = lex.score(board)
    assert lex.score_codes(codes, (4, 4)).tolist() == lex.score_codes(codes, Shape(4, 4)).tolist() == [expected]
    with pytest.raises(DawgError, match=r"shape: 9x4 is outside"):
        lex.score_codes(codes, (9, 4))
    with pytest.raises(DawgError, match=r"not a Shape or a \(rows, cols\) pair"):
        lex.score_codes(codes, "4x4")


def test_cell_names_are_the_cli_row_col(make_lexicon):
    lex = open_lexicon(make_lexicon(["quit"]))
    board = parse_board("xxq/xit", Shape(2, 3))
    (found,) = lex.words(board)
    assert found.path == (2, 4, 5)  # 0-based cell indices, row by row
    assert [board.cell_name(c) for c in found.path] == ["1,3", "2,2", "2,3"]
    assert Shape(2, 3).cell_name(0) == "1,1"
    with pytest.raises(DawgError, match="cells 0..5"):
        board.cell_name(6)


def test_every_api_shape_takes_a_rows_cols_pair(make_lexicon):
    lex = open_lexicon(make_lexicon(["cat", "cats", "act", "acts", "scat"]))
    assert parse_board("cats", (1, 4)) == parse_board("cats", Shape(1, 4))
    expected = lex.score_many(["cats", "tacs"], shape=Shape(1, 4)).tolist()
    assert lex.score_many(["cats", "tacs"], shape=(1, 4)).tolist() == expected
    assert expected == [lex.score(parse_board(text, Shape(1, 4))) for text in ("cats", "tacs")]
    (indices, codes), = encode_texts(["cats"], lex.charset, (1, 4)).values()
    assert lex.score_codes(codes, (1, 4)).tolist() == expected[:1]
    for call in (lambda: lex.score_many(["cats"], shape="1x4"), lambda: parse_board("cats", (9, 1))):
        with pytest.raises(ParameterError, match="^shape: "):
            call()


def test_api_errors_are_dawg_errors_that_name_the_api_parameter(make_lexicon):
    lex = open_lexicon(make_lexicon(["cat", "cats", "act", "acts", "scat"], charset="ACST"))
    good = np.zeros((1, 4), np.int64)
    with lex.scorer() as scorer:
        for call, name in [(lambda: checked_codes(np.zeros((1, 5), np.int64), (2, 2), lex.charset), "codes"),
                           (lambda: checked_codes(np.full((1, 4), 40), (2, 2), lex.charset), "codes"),
                           (lambda: scorer.best_changes(good, (2, 2), np.zeros(0, np.int64)), "alphabet")]:
            with pytest.raises(ParameterError) as err:
                call()
            assert err.value.name == name and str(err.value).startswith(f"{name}: ")
    for call in (lambda: lex.score("catx"), lambda: lex.score_many(["catx"]), lambda: lex.words("c(at)x/tac")):
        with pytest.raises(DawgError, match="uses a letter outside") as err:
            call()
        assert "skip_foreign" in str(err.value) and "--skip-foreign" not in str(err.value)


@pytest.mark.parametrize("letters", [1, 4, 26, 62])
def test_checked_codes_accepts_exactly_the_cell_codes_of_the_charset(letters):
    """Every integer from -70 to past the table's end, one by one in every integer dtype it fits:
    accepted exactly when it is a letter index, NO_LETTER, or a letter followed by a second letter."""
    charset = type("Letters", (), {"__len__": lambda self: letters})()
    for code in range(-70, 64 * (letters + 2)):
        first, second = code % 64, code // 64 - 1
        wanted = code >= 0 and (first < letters or (first == NO_LETTER and second < 0)) and second < letters
        for dtype in (np.int16, np.int64, np.uint16, np.float64):
            if not np.can_cast(np.min_scalar_type(code), dtype) and dtype is not np.float64:
                continue
            codes = np.array([[code]], dtype)
            if wanted:
                shape, checked = checked_codes(codes, (1, 1), charset, np.int16)
                assert checked.dtype == np.int16 and checked.tolist() == [[code]] and checked.flags.c_contiguous
            else:
                with pytest.raises(ParameterError, match="^codes: cell codes must be"):
                    checked_codes(codes, (1, 1), charset)
