"""Open compiled lexicons (trie, DAWG or ADTDAWG) and work with boards: score them (one, or batches on
CPU threads or a GPU), roll dice, play a game, search for the best boards and prove them best (in
process or on a Dask cluster). Never imports the compiler."""

__version__ = "0.1.0"
