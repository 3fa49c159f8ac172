"""Score Boggle boards from compiled lexicons (trie, DAWG or ADTDAWG files)."""

__version__ = "0.1.0"
