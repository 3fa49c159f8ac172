"""`dawgc`: compile word lists into lexicon files, and inspect or verify them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from .cli_common import HELP_OPTIONS, StatusLine, language_option, rules_option, run_cli
from .compiler.build import build_lexicon, choose_alphabet
from .compiler.verify import describe, verify
from .compiler.wordlist import INPUT_FORMATS
from .compiler.writers import WRITERS
from .solver.charset import upper
from .solver.errors import DawgError
from .solver.formats import format_help
from .solver.language import DEFAULT_LANGUAGE, LETTERS_ALONE, builtin_language_names
from .solver.lexicon import open_lexicon
from .solver.rules import Rules

app = typer.Typer(add_completion=True, no_args_is_help=True, rich_markup_mode=None,
                  pretty_exceptions_enable=False, context_settings=HELP_OPTIONS,
                  help="Compile word lists into trie, minimised DAWG and four-part ADTDAWG files.")


def _stages(quiet: bool):
    """A status line on stderr for each build step (nothing when quiet or not a terminal)."""
    if quiet or not sys.stderr.isatty():
        return None
    return StatusLine


@app.command()
def build(
    wordlist: Path = typer.Argument(..., help="Word list: one word per line, gzip-compressed or not; - reads stdin."),
    charset: str | None = typer.Option(None, "--charset", "-c",
                                       help="Letters kept: a size 1..26 (14 = JPA14), the letters themselves, "
                                            "or auto (the letters the list uses). Without --language, letters "
                                            "of any script (ΑΒΓ..., ÁÉ...) make a build of those letters alone: "
                                            "no folds, no tiles [default: all the language's letters]."),
    language: str | None = typer.Option(None, "--language", "-l", metavar="NAME|FILE",
                                        help=f"The list's language: {', '.join(builtin_language_names())} or a "
                                             f"language file (docs/languages.md) [default: {DEFAULT_LANGUAGE}, "
                                             f"or letters alone for --charset of other letters]."),
    vowels: str | None = typer.Option(None, "--vowels", metavar="LETTERS",
                                      help="The vowels of a build of letters alone, which the proof's split "
                                           "puts in one bucket [default: those whose base letter is a Latin, "
                                           "Greek or Cyrillic vowel; else the first letter]."),
    input_format: str = typer.Option("plain", "--input-format", metavar="|".join(INPUT_FORMATS),
                                     help="plain: one word a line; tanglet: Tanglet's words files (the game "
                                          "form, then the word as written)."),
    lenient: bool = typer.Option(False, "--lenient", help="Drop lines that are not words of the language "
                                                         "(proper nouns, apostrophes, hyphens, digits, other "
                                                         "letters) and count them, instead of stopping there."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Output directory [default: build/<list>-<charset>, "
                                                              "build/<list>-<language> for another language]."),
    max_length: int | None = typer.Option(None, "--max-length", help="Drop longer words [default: keep all]."),
    rules: str | None = typer.Option(None, "--rules", "-r", metavar="NAME|FILE",
                                     help="The rules the lexicon scores under unless a command names others: "
                                          "standard, big, words or a rules file (docs/rules.md) [default: the "
                                          "language's, standard for English]."),
    as_json: bool = typer.Option(False, "--json", help="Print the manifest and timing as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress display."),
) -> None:
    """Build all three formats and a manifest from a word list."""
    lang = None if language is None else language_option(language)
    options, letters = choose_alphabet(lang, charset, vowels, input_format, lenient)
    chosen = rules_option(rules)
    result = build_lexicon(wordlist, letters, out, max_length, _stages(quiet or as_json), options, chosen)
    m = result.manifest
    if as_json:
        print(json.dumps({"out_dir": str(result.out_dir), "seconds": round(result.seconds, 3), "manifest": m}, indent=2))
        return
    dropped = ", ".join(f"{n} {reason.replace('_', ' ')}" for reason, n in m["dropped"].items() if n) or "none"
    shown = "".join(map(upper, m["charset"]))
    print(f"built {result.out_dir}/ from {wordlist} in {result.seconds:.2f} s")
    if "language" in m:
        used = m["language"]
        vowels = f"; vowels {''.join(map(upper, used['vowels']))}" if used["name"] == LETTERS_ALONE else ""
        print(f"  language {used['name']} ({used['title']}{vowels})")
    if "rules" in m:
        print(f"  rules    {Rules.from_dict(m['rules'], 'manifest').describe()}")
    print(f"  charset  {shown} ({len(m['charset'])} letters)")
    print(f"  words    {m['words']} kept (longest {m['max_length']} letters); dropped: {dropped}")
    for name, writer in WRITERS.items():
        print(f"  {name:8} {writer.summary(m[name])}")
    if "written" in m:
        print(f"  written  {m['written']['words']} words written otherwise {'':15} "
              f"{m['written']['bytes']:>10} bytes  {m['written']['file']}")


@app.command()
def info(
    path: Path = typer.Argument(..., help="Build directory, manifest or one format's file."),
    as_json: bool = typer.Option(False, "--json", help="Print as JSON."),
) -> None:
    """Show what a lexicon holds (after validating it)."""
    details = describe(path)
    if as_json:
        print(json.dumps(details, indent=2))
        return
    manifest = details.get("manifest")
    if manifest:
        src = manifest["source"]
        print(f"{path}: built by {manifest['tool']} from {src['name']} (sha256 {src['sha256'][:16]}...)")
        print(f"  charset {manifest['charset'].upper()}, {manifest['words']} words, longest {manifest['max_length']} letters")
        if "written" in manifest:
            written = manifest["written"]
            print(f"  written  {written['words']} words as the list wrote them otherwise: {written['file']}, "
                  f"{written['bytes']} bytes")
    for fmt, entry in details["formats"].items():
        extras = ", ".join(f"{k} {v}" for k, v in entry.items() if k not in ("format", "path") and not isinstance(v, dict))
        print(f"  {fmt:8} {entry['path']}: {extras}")


@app.command(name="verify")
def verify_command(
    path: Path = typer.Argument(..., help="Build directory, manifest or one format's file."),
    source: Path | None = typer.Option(None, "--source", help="The word list it was built from."),
    as_json: bool = typer.Option(False, "--json", help="Print the checks as JSON."),
) -> None:
    """Check every structure and numbering; with --source, round-trip to the word list."""
    if not sys.stderr.isatty():
        result = verify(path, source)
    else:  # a progress bar on the terminal; stdout stays untouched until the checks are printed
        import rich.progress as bars
        from rich.console import Console

        with bars.Progress(bars.TextColumn("{task.description}"), bars.BarColumn(), bars.MofNCompleteColumn(),
                           bars.TextColumn("words"), bars.TimeElapsedColumn(), console=Console(stderr=True),
                           redirect_stdout=False, redirect_stderr=False, transient=True) as bar:
            task = bar.add_task("opening and validating", total=None)
            result = verify(path, source, lambda what, done, total: bar.update(
                task, description=what, completed=done, total=total))
    if as_json:
        print(json.dumps({"ok": result.ok, "checks": result.checks}, indent=2))
    else:
        print("\n".join(result.checks))
    if not result.ok:
        raise typer.Exit(1)


@app.command()
def words(
    path: Path = typer.Argument(..., help="Build directory, manifest or one format's file."),
    fmt: str | None = typer.Option(None, "--format", "-f", help=format_help(None)),
    numbers: bool = typer.Option(False, "--numbers", help="Also print each word's number."),
    prefix: str = typer.Option("", "--prefix", help="Only the words that start with these letters."),
) -> None:
    """Print every word of a compiled lexicon (or those with a prefix), one per line, alphabetically."""
    lex = open_lexicon(path, fmt)  # the words stream out: a small file can hold hundreds of millions
    line = "{}\t{}\n" if numbers else "{}\n"
    sys.stdout.writelines(line.format(lex.charset.unfold(w), n) for w, n in lex.iter_numbered_words(prefix=prefix))


@app.command()
def lookup(
    path: Path = typer.Argument(..., help="Build directory, manifest or one format's file."),
    words: list[str] = typer.Argument(..., help="Words to look up (any case; Qu spelled out, as in QUEEN); - reads "
                                                "them from standard input, one a line (UTF-8; blank lines and "
                                                "# comments skipped)."),
    fmt: str | None = typer.Option(None, "--format", "-f", help=format_help(None)),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list of {word, found, number}."),
) -> None:
    """Say whether each word is in a lexicon, and its number: exit 0 if all are, 1 if any is not (as grep)."""
    lex = open_lexicon(path, fmt)
    if words == ["-"]:  # many words: the compiled batch lookup
        words = _stdin_words()
        numbers = [None if n < 0 else n for n in lex.key_ids(words).tolist()]
    else:  # a few: one descent each, in plain Python (no compiler to load)
        numbers = [_number(lex, w) for w in words]
    if as_json:
        print(json.dumps([{"word": w, "found": n is not None, "number": n} for w, n in zip(words, numbers)], indent=2))
    elif words:
        print("\n".join(f"{w}\tabsent" if n is None else f"{w}\tfound\t{n}" for w, n in zip(words, numbers)))
    if None in numbers:
        raise typer.Exit(1)


def _stdin_words() -> list[str]:
    """The words of standard input, one a line, as a word list is read: UTF-8 with or without a byte order
    mark, each line stripped, blank lines and # comments skipped; DawgError naming the line of a NUL byte or of
    bytes that are not UTF-8."""
    data = sys.stdin.buffer.read()

    def line_of(at: int) -> int:
        return data.count(b"\n", 0, at) + 1

    nul = data.find(b"\0")
    if nul >= 0:
        raise DawgError(f"stdin line {line_of(nul)}: binary data (a NUL byte), not words")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise DawgError(f"stdin line {line_of(err.start)}: not UTF-8 text") from None
    lines = (line.strip() for line in text.removeprefix("\ufeff").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def _number(lex, word: str) -> int | None:
    try:
        return lex.key_id(word)
    except KeyError:
        return None


def main() -> None:
    run_cli(app, "dawgc")


if __name__ == "__main__":
    main()

