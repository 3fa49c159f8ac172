"""The API takes a board size as a Shape or a (rows, cols) pair, and names cells as the CLI does."""

from __future__ import annotations

import numpy as np
import pytest

from boggle_dawg.solver.board import Shape, parse_board
from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.lexicon import open_lexicon


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
