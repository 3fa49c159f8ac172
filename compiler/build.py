"""One build: word list in, every format of the registry and the manifest out, with its figures."""

from __future__ import annotations

import time
import unicodedata
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path

import msgpack

from ..solver import __version__
from ..solver.charset import ALPHABET, Charset, letter_problem, lower, parse_charset
from ..solver.errors import DawgError, ParameterError
from ..solver.formats.common import MANIFEST_FILE, MANIFEST_VERSION
from ..solver.language import ENGLISH, LETTERS_ALONE, Language, letters_alone, load_language
from ..solver.lexicon import open_all
from ..solver.manifest import manifest_fields
from ..solver.rules import DEFAULT_RULES, Rules, load_rules
from ..solver.written import WRITTEN_FILE
from .format_writer import BuildWords, file_entry
from .wordlist import MIN_LENGTH, ListOptions, load_word_list, source_name
from .write import check_output_dir, write_files
from .writers import WRITERS
from .written import written_bytes

Stage = Callable[[str], AbstractContextManager]
AUTO = "auto"  # --charset auto: the letters the list uses
WRITTEN_STAGE = "keeping words as written"


@dataclass
class BuildResult:
    out_dir: Path
    manifest: dict
    seconds: float


def choose_alphabet(language: str | Path | Language | None, charset: str | int | None, vowels: str | None = None,
                    input_format: str = "plain", lenient: bool = False) -> tuple[ListOptions, Charset | None]:
    """How a build reads its list and the charset it keeps (None: the letters the list uses), from
    what `dawgc build` is given: `language` (a name, a file, a Language; None: not given), `charset`
    (None, a size, letters of any script, or "auto") and `vowels` (for letters alone only).

    Without a language, a size or letters a-z are English's, as always (the Qu die); letters of any
    other script are a language of their own (`letters_alone`: no folds, no tiles), as are the letters
    an "auto" list uses unless they are all a-z."""
    auto = charset is not None and str(charset).strip().lower() == AUTO
    if language is not None:
        if vowels is not None:
            raise ParameterError("vowels", "only for a build of letters alone; a language file gives its vowels")
        lang = language if isinstance(language, Language) else load_language(language)
        options = ListOptions(lang, input_format, lenient)
        if auto:
            return options, None
        return options, lang.charset(None if charset is None else parse_charset(charset, lang.letters).letters)
    if auto:
        return ListOptions(None, input_format, lenient, vowels), None
    text = "" if charset is None else "".join(map(lower, unicodedata.normalize("NFC", str(charset).strip())))
    if vowels is None and (text.isdigit() or set(text) <= set(ALPHABET)):
        return ListOptions(ENGLISH, input_format, lenient), ENGLISH.charset(None if charset is None else
                                                                           parse_charset(charset).letters)
    if not text:
        raise ParameterError("vowels", "only with --charset: the letters of a build of letters alone, or auto")
    bad = next((ch for ch in text if letter_problem(ch)), None)
    if bad is not None:
        raise ParameterError("charset", f"{bad!r} is not a letter (give a size, letters of any script, or auto)")
    lang = letters_alone(parse_charset(text, "".join(sorted(set(text)))).letters, vowels)
    return ListOptions(lang, input_format, lenient), lang.charset()


def default_out_dir(source: Path, charset: Charset | None, options: ListOptions = ListOptions()) -> Path:
    """build/<list name>-<charset label> for English and for letters alone, relative to the current
    directory; for another language build/<list name>-<language>, and -<charset label> after it for
    some of its letters; -auto for the letters the list uses (known only once it is read)."""
    stem = Path(source_name(source)).stem
    language = options.language
    if charset is None:
        return Path("build") / "-".join([stem, *([language.name] if language else []), AUTO])
    if language == ENGLISH or language.name == LETTERS_ALONE:
        return Path("build") / f"{stem}-{charset.label}"
    some = "" if charset.letters == language.letters else f"-{charset.label}"
    return Path("build") / f"{stem}-{language.name}{some}"


def build_lexicon(source: Path, charset: Charset | None, out_dir: Path | None = None,
                  max_length: int | None = None, stage: Stage | None = None,
                  options: ListOptions = ListOptions(), rules: Rules | None = None) -> BuildResult:
    """Compile `source` into every format of the registry in `out_dir`; `stage(name)` wraps each step.
    A `charset` of None takes the letters the list uses (`load_word_list`).
    The build scores under `rules` unless a caller names others (None: its language's, `Language.rules`).

    An `out_dir` that exists and is not a previous build is refused before any work; a build that
    the readers would refuse is refused before it replaces the old one.
    """
    stage = stage or _silent
    started = time.perf_counter()
    out_dir = out_dir or default_out_dir(source, charset, options)
    check_output_dir(out_dir, build_file_names())
    try:
        files, manifest = compile_lexicon(source, charset, max_length, stage, options, rules)
    except MemoryError:  # a huge list with little sharing: say so in one line, keep the old build
        raise DawgError(f"{source}: not enough memory to build this lexicon") from None
    with stage(f"writing {out_dir}"):
        write_files(out_dir, files, check=check_opens, build_files=build_file_names())
    return BuildResult(out_dir=out_dir, manifest=manifest, seconds=time.perf_counter() - started)


def compile_lexicon(source: Path, charset: Charset | None, max_length: int | None = None,
                    stage: Stage | None = None, options: ListOptions = ListOptions(),
                    rules: Rules | None = None) -> tuple[dict[str, bytes], dict]:
    """Every file of a build (name -> bytes, the manifest among them) and the manifest; writes nothing.
    `charset` holds letters of `options.language` (English unless said); `rules` as for build_lexicon."""
    stage = stage or _silent
    with stage("reading word list"):
        words = load_word_list(source, charset, max_length, options)
    charset, language = words.charset, words.language
    rules = load_rules(language.rules) if rules is None else rules
    manifest = {
        "manifest_version": MANIFEST_VERSION,
        "tool": f"boggle-dawg {__version__}",
        "source": {"name": source_name(source), "sha256": words.sha256, "bytes": words.size,
                   "lines": words.lines, "entries": words.entries},
        "options": {"charset": charset.letters, "min_length": MIN_LENGTH, "max_length": max_length,
                    **options.manifest_options()},
        "charset": charset.letters,
        **manifest_fields(charset, None if language == ENGLISH else language.manifest_section(),
                          None if rules == load_rules(DEFAULT_RULES) else rules.manifest_section()),
        "words": len(words.words),
        "max_length": max_length or words.max_length,
        "dropped": words.dropped,
    }
    build_words = BuildWords(words.words, charset, manifest["max_length"])
    files: dict[str, bytes] = {}
    built: dict[str, object] = {}
    for name, writer in WRITERS.items():
        with stage(writer.stage):
            written = writer.write(build_words, built)
        files.update(written.files)
        manifest[name] = written.section
        built[name] = written.built
    if words.spellings:  # only where the list wrote words otherwise, so other builds keep their bytes
        with stage(WRITTEN_STAGE):
            files[WRITTEN_FILE] = written_bytes(words.spellings, charset)
        manifest["written"] = {**file_entry(WRITTEN_FILE, files[WRITTEN_FILE]), "words": len(words.spellings)}
    files[MANIFEST_FILE] = msgpack.packb(manifest, use_bin_type=True)
    return files, manifest


def build_file_names() -> set[str]:
    """Every file a build writes: what the writers write, and the manifest."""
    return {MANIFEST_FILE, WRITTEN_FILE, *(name for writer in WRITERS.values() for name in writer.file_names)}


def check_opens(directory: Path) -> None:
    """Open a written build as every reader does (its manifest, each format, its language): a value
    the writer takes and the readers refuse must fail the build, not replace a good one."""
    manifest, _ = open_all(directory)
    if manifest.language_section is not None:
        Language.from_manifest(manifest.language_section, str(directory / MANIFEST_FILE))


def _silent(name: str) -> AbstractContextManager:
    return nullcontext()
