"""The `dawg-solve` program: its name and its one table of commands.

Read by the entry point (`dawg_solve`, which answers the plain one-board form without
loading any command or typer) and by the typer program (`solve_cli`, which loads a
command's module only when the command is asked for).
"""

PROG = "dawg-solve"

# Each command, in the order help lists them, and the module (of this package) defining it.
COMMANDS = {"solve": "solve_cli", "roll": "game_cli", "play": "game_cli", "search": "search_cli",
            "rearrange": "search_cli", "prove": "prove_cli", "serve": "serve_cli"}


def near_command(word: str) -> str | None:
    """The command `word` is most likely a typo of ('solv': 'solve'), if any: said when a word in a
    command's place is neither a command nor a file."""
    from difflib import get_close_matches

    found = get_close_matches(word.lower(), COMMANDS, n=1, cutoff=0.75)
    return found[0] if found else None
