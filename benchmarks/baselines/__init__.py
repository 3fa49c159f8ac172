"""Native baselines (seed-000 ADTDAWG solver in C, 26-way trie solver in C++) for the benchmarks."""
