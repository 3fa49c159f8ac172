"""Every format of full-size lists round-trips to the filtered word list (dawgc verify --source)."""

from __future__ import annotations

import pytest

from boggle_dawg.compiler.verify import verify
from boggle_dawg.solver.lexicon import open_lexicon

from support import word_list_path

CASES = [("twl06", "26"), ("enable2k", "26"), ("sowpods", "26"), ("yawl", "26"), ("default", "26"),
         ("twl06", "5"), ("twl06", "9"), ("enable2k", "12"), ("sowpods", "ACEHLMNOPST"), ("yawl", "20")]


@pytest.mark.slow
@pytest.mark.parametrize("name, charset", CASES, ids=[f"{n}-{c}" for n, c in CASES])
def test_round_trip(built, name, charset):
    out = built(name, charset)
    result = verify(out, word_list_path(name))
    assert result.ok, "\n".join(result.checks)
    assert any("round trip" in line and line.startswith("ok") for line in result.checks)


def test_extended_adtdawg_layouts(built):
    """More than 18 letters need two child-set words; big lexicons need wider node fields."""
    twl = open_lexicon(built("twl06", "26"), "adtdawg")
    assert twl.layout.child_set_words == 2 and not twl.layout.is_reference
    assert (twl.layout.first_child_bits, twl.layout.child_set_bits, twl.layout.node_bytes) == (17, 13, 4)
    sow = open_lexicon(built("sowpods", "26"), "adtdawg")
    assert sow.layout.node_bytes == 8
