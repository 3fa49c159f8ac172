"""Compile word lists into trie, minimised DAWG and four-part ADTDAWG lexicon files."""
