"""The default word list shipped with the tools (see README.md in this directory)."""
