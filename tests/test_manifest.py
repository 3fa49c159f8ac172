"""Type-confused manifests: every field, many wrong values, every command that reads a manifest.

Each mangled manifest must give one clean line naming the manifest and the field, in the
library (`read_manifest`) and in `dawgc info`, `dawgc verify --source`, `dawgc words` and
`dawg-solve`, never a traceback and never a silent acceptance.
"""

from __future__ import annotations

import copy
import re
import shutil
import sys

import msgpack
import pytest

from boggle_dawg.solver.errors import DawgError
from boggle_dawg.solver.formats.common import MANIFEST_FILE
from boggle_dawg.solver.lexicon import open_lexicon, read_manifest

from support import assert_clean_error, run_cli

WORDS = ["tea", "teas", "tease", "eat", "eats", "seat", "state", "quest", "aqua", "date", "dated"]
BOARD = "teasdatequstaeds"

FIELDS = [
    "tool", "source", "source.name", "source.sha256", "source.bytes", "source.lines", "source.entries",
    "options", "options.charset", "options.min_length", "options.max_length", "charset", "words",
    "max_length", "dropped", "dropped.duplicate", "trie", "trie.file", "trie.bytes", "trie.sha256",
    "trie.nodes", "dawg", "dawg.file", "dawg.bytes", "dawg.sha256", "dawg.states", "dawg.edges", "adtdawg",
    "adtdawg.files", "adtdawg.files[0]", "adtdawg.files[3].file", "adtdawg.files[1].bytes",
    "adtdawg.files[2].sha256", "adtdawg.bytes", "adtdawg.nodes", "adtdawg.child_sets", "adtdawg.wide_nodes",
    "adtdawg.layout", "adtdawg.layout.letters", "adtdawg.layout.first_child_bits",
    "adtdawg.layout.child_set_bits", "adtdawg.layout.node_bytes", "adtdawg.layout.child_set_words",
]
VALUES = [None, {}, [], "x", 1.5, True, 2**64 - 1, -1]
# The schema accepts these (the field may be nil, any name or empty); what follows decides.
SCHEMA_ACCEPTS = [("options.max_length", None), ("tool", "x"), ("source.name", "x"), ("dropped", {}),
                  ("trie.file", "x"), ("dawg.file", "x"), ("adtdawg.files[3].file", "x")]
CASES = [(f, v) for f in FIELDS for v in VALUES]
EXTRA_CASES = [  # the ones reported, and a few more that are easy to get wrong
    ("trie.file", "trie\0.bin"), ("trie.file", "../trie.bin"), ("trie.file", ".."), ("trie.file", "a/b"),
    ("adtdawg.layout.first_child_bits", 17.0), ("adtdawg.layout.letters", "14"),
    ("adtdawg.layout.first_child_bits", 40), ("adtdawg.layout.node_bytes", 5), ("charset", "ba"),
    ("charset", "abc1"), ("source.sha256", "AB" * 32), ("source.sha256", "0" * 63), ("words", 0),
    ("tool", "two\nlines"), ("dropped.duplicate", "3"), ("manifest_version", True),
    ("manifest_version", 1.0), ("options.max_length", "15"), ("trie.bytes", 2**63),
]


def set_field(data: dict, dotted: str, value) -> None:
    *parents, last = re.findall(r"\[\d+\]|\w+", dotted)
    node = data
    for key in parents:
        node = node[int(key[1:-1])] if key.startswith("[") else node[key]
    node[int(last[1:-1]) if last.startswith("[") else last] = value


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    from boggle_dawg.compiler.build import build_lexicon
    from boggle_dawg.solver.charset import parse_charset

    base = tmp_path_factory.mktemp("manifest")
    source = base / "words.txt"
    source.write_text("\n".join(WORDS) + "\n")
    out = build_lexicon(source, parse_charset("26"), base / "build").out_dir
    return source, out, msgpack.unpackb((out / MANIFEST_FILE).read_bytes())


def mangled(build, tmp_path, dotted, value):
    """A copy of the build whose manifest has `dotted` set to `value`."""
    _, out, data = build
    case = tmp_path / "case"
    shutil.rmtree(case, ignore_errors=True)
    shutil.copytree(out, case)
    data = copy.deepcopy(data)
    set_field(data, dotted, value)
    (case / MANIFEST_FILE).write_bytes(msgpack.packb(data, use_bin_type=True))
    return case


def names_field(message: str, dotted: str) -> bool:
    """The message names the field mangled (or, for a map or list replaced, one inside it)."""
    return ("manifest version" if dotted == "manifest_version" else dotted) in message


@pytest.mark.parametrize("dotted, value", CASES + EXTRA_CASES)
def test_schema_names_the_field(build, tmp_path, dotted, value):
    case = mangled(build, tmp_path, dotted, value)
    if (dotted, value) in SCHEMA_ACCEPTS:
        read_manifest(case / MANIFEST_FILE)
        return
    with pytest.raises(DawgError) as err:
        read_manifest(case / MANIFEST_FILE)
    message = str(err.value)
    assert message.startswith(f"{case / MANIFEST_FILE}: ") and "\n" not in message
    assert names_field(message, dotted), message


def run_in_process(capsys, module: str, *args: str) -> tuple[int, str, str]:
    """Run a CLI's main() here as `python -m module args` would: (status, stdout, stderr)."""
    import importlib

    main = importlib.import_module(module).main
    argv = sys.argv
    sys.argv = [module, *args]
    try:
        main()
        status = 0
    except SystemExit as done:
        status = done.code if isinstance(done.code, int) else 1
    finally:
        sys.argv = argv
    out, err = capsys.readouterr()
    return status, out, err


def commands(source, case):
    return [("boggle_dawg.dawgc_cli", "info", str(case)), ("boggle_dawg.dawgc_cli", "verify", str(case), "--source", str(source)),
            ("boggle_dawg.dawgc_cli", "words", str(case)), ("boggle_dawg.dawg_solve", str(case), BOARD)]


@pytest.mark.slow
def test_every_command_refuses_every_mangled_manifest(build, tmp_path, capsys):
    """The whole table through the four commands' entry points (in this process, for speed)."""
    source = build[0]
    for dotted, value in CASES + EXTRA_CASES:
        case = mangled(build, tmp_path, dotted, value)
        for module, *args in commands(source, case):
            status, out, err = run_in_process(capsys, module, *args)
            where = (dotted, value, args[0])
            if (dotted, value) in SCHEMA_ACCEPTS:
                assert status == 0 or err.count("\n") == 1, (where, err)
                continue
            assert status == 1 and out == "", (where, status, out)
            lines = err.strip().splitlines()
            assert len(lines) == 1 and f"{case / MANIFEST_FILE}: " in lines[0], (where, err)
            assert names_field(lines[0], dotted) and "Traceback" not in err, (where, err)


@pytest.mark.parametrize("dotted, value", [("source", None), ("source", {}), ("options", None),
                                           ("options.max_length", "15"), ("trie.file", "trie\0.bin"),
                                           ("adtdawg.layout.first_child_bits", 17.0),
                                           ("adtdawg.layout.child_set_bits", "13")])
def test_reported_cases_as_a_user_runs_them(build, tmp_path, dotted, value):
    source = build[0]
    case = mangled(build, tmp_path, dotted, value)
    for module, *args in commands(source, case):
        proc = run_cli(module, *args)
        assert_clean_error(proc, f"{case / MANIFEST_FILE}: field {dotted}")
        assert proc.stdout == ""


def test_message_shows_the_value(build, tmp_path):
    case = mangled(build, tmp_path, "source.sha256", None)
    with pytest.raises(DawgError, match=r"manifest\.msgpack: field source\.sha256: expected a 64-digit hex "
                                        r"string, got nil$"):
        open_lexicon(case)


def test_unknown_fields_are_dropped(build, tmp_path):
    case = mangled(build, tmp_path, "extra", b"\xff binary")
    manifest = read_manifest(case / MANIFEST_FILE)
    assert "extra" not in manifest.data
    assert list(manifest.data) == [k for k in build[2] if k != "extra"]


@pytest.mark.parametrize("reason, accepted", [("ש_without_ת", True), ("ж_alone", True), ("Q_without_u", False),
                                              ("q_without_" + "u" * 31, False), ("q-without-u", False)])
def test_drop_reasons_are_letters_without_capitals(build, tmp_path, reason, accepted):
    """A tile's reason is named after its letters, which a script without case has in neither case."""
    case = mangled(build, tmp_path, "dropped", {**build[2]["dropped"], reason: 0})
    if accepted:
        assert reason in read_manifest(case / MANIFEST_FILE).data["dropped"]
        return
    with pytest.raises(DawgError, match="field dropped: expected reasons named in"):
        read_manifest(case / MANIFEST_FILE)
