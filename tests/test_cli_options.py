"""Both programs behave alike: --version and -h everywhere, click-style placeholders, one
meaning per short option, shell completion, exit status 2 for usage and 1 for bad input."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import typer

from boggle_dawg.cli_common import plural
from boggle_dawg.solver import __version__
from boggle_dawg.solver.backends import resolve_jobs, usable_cores

from support import REPO, assert_clean_error, run_cli

PROGRAMS = {"boggle_dawg.dawg_solve": ("dawg-solve", ["solve", "roll", "play", "search", "rearrange", "prove"]),
            "boggle_dawg.dawgc_cli": ("dawgc", ["build", "info", "verify", "words"])}


def _commands():
    for module, (prog, subcommands) in PROGRAMS.items():
        yield module, prog, []
        for sub in subcommands:
            yield module, prog, [sub]


@pytest.mark.parametrize("module, prog, sub", list(_commands()))
def test_version_and_short_help_on_every_command(module, prog, sub):
    version = run_cli(module, *sub, "--version")
    assert (version.returncode, version.stdout, version.stderr) == (0, f"{prog} {__version__}\n", "")
    short, long = run_cli(module, *sub, "-h"), run_cli(module, *sub, "--help")
    assert short.returncode == 0 and short.stdout == long.stdout
    assert short.stdout.startswith(f"Usage: {' '.join([prog, *sub])} ")
    for placeholder in ("<str>", "<int>", "<float>", "<path>", "{"):
        assert placeholder not in short.stdout, placeholder


def test_help_names_the_board_form_completion_and_click_placeholders():
    top = run_cli("boggle_dawg.dawg_solve", "--help").stdout
    assert "dawg-solve [FILE] BOARD" in top and "dawg-solve [FILE] --boards PATH" in top
    assert "--install-completion" in top and "--install-completion" in run_cli("boggle_dawg.dawgc_cli", "--help").stdout
    assert "-j, --jobs INTEGER" in run_cli("boggle_dawg.dawg_solve", "solve", "-h").stdout
    assert "-t, --seconds FLOAT" in run_cli("boggle_dawg.dawg_solve", "play", "-h").stdout
    assert "-o, --out PATH" in run_cli("boggle_dawg.dawgc_cli", "build", "-h").stdout
    assert "Usage: dawgc build [OPTIONS] WORDLIST" in run_cli("boggle_dawg.dawgc_cli", "build", "-h").stdout


def test_a_short_option_means_one_thing_in_both_programs():
    from boggle_dawg.dawgc_cli import app as dawgc
    from boggle_dawg.solve_cli import full_app

    dawg_solve = full_app()

    meaning: dict[str, set[str]] = {}
    for app in (dawg_solve, dawgc):
        for command in typer.main.get_command(app).commands.values():
            for param in command.params:
                opts = getattr(param, "opts", [])
                shorts = [o for o in opts if len(o) == 2]
                longs = [o for o in opts if o.startswith("--")]
                for short in shorts:
                    meaning.setdefault(short, set()).update(longs)
    clashes = {short: longs for short, longs in meaning.items() if len(longs) > 1}
    assert clashes == {}
    assert meaning["-s"] == {"--size"} and meaning["-n"] == {"--count"} and meaning["-b"] == {"--boards"}
    assert meaning["-t"] == {"--seconds"} and meaning["-m"] == {"--method"}


@pytest.mark.parametrize("args, status, fragment", [
    (("solve", "abcd", "--no-such-option"), 2, "No such option: --no-such-option"),
    (("solve", "abcd", "--jobs", "x"), 2, "'x' is not a valid int"),
    (("solve", "a", "b", "c"), 2, "too many arguments"),
    (("solve", "abcd", "--size", "9x9"), 2, "--size: 9x9 is outside"),
    (("search", "--seconds", "nan"), 2, "--seconds: must be a number"),
    (("search", "--method", "anneal", "--t1", "inf"), 2, "--t1: must be a number"),
    (("search", "--method", "anneal", "--swap-share", "nan"), 2, "--swap-share: must be a number"),
    (("roll", "--count", "many"), 2, "'many' is not a valid int"),
    (("solve", "/nowhere/lexicon", "abcd"), 1, "/nowhere/lexicon: no such file"),
    (("solve", "/nowhere/lexicon", "--boards", "-"), 1, "/nowhere/lexicon: no such file"),
    # an unknown built-in name given to an option is a wrong option value, whichever option
    (("roll", "--dice", "nosuch"), 2, "--dice: 'nosuch' is neither a dice file nor a built-in set"),
    (("roll", "--language", "klingon"), 2, "--language: language 'klingon': neither a language file nor a built-in"),
    (("solve", "abcd", "--rules", "nosuch"), 2, "--rules: rules 'nosuch': neither a rules file nor built-in rules"),
    (("roll", "--language", "/nowhere/klingon.toml"), 2, "--language: /nowhere/klingon.toml: no such file"),
    # an empty name (an unset shell variable) is a slip, not a request for the default
    (("solve", "abcdefghijklmnop", "--size", ""), 2, "--size: empty; give a value or leave the option out"),
    (("roll", "--language", ""), 2, "--language: empty"),
])
def test_exit_status_is_2_for_usage_and_1_for_bad_input(args, status, fragment):
    proc = run_cli("boggle_dawg.dawg_solve", *args)
    assert_clean_error(proc, fragment)
    assert proc.returncode == status


def test_dawgc_usage_errors_are_one_line_with_status_2():
    proc = run_cli("boggle_dawg.dawgc_cli", "build")
    assert_clean_error(proc, "Missing argument 'WORDLIST'", "see 'dawgc build --help'")
    assert proc.returncode == 2


def test_jobs_beyond_the_cores_are_capped_and_said(make_lexicon):
    lexicon = make_lexicon(["cat", "cats"])
    proc = run_cli("boggle_dawg.dawg_solve", str(lexicon), "--boards", "-", "-q", "--jobs", "1000", stdin="catsabcdefghijkl\n")
    assert proc.returncode == 0 and proc.stdout == "2\n"
    assert proc.stderr == (f"dawg-solve: --jobs 1000: this machine has {usable_cores()} {plural('core', usable_cores())}; "
                           f"using {usable_cores()}\n")
    assert resolve_jobs(1000) == resolve_jobs(0) == usable_cores() and resolve_jobs(1) == 1


def test_plurals_for_one_point_and_one_word(make_lexicon):
    lexicon = str(make_lexicon(["cat"]))
    proc = run_cli("boggle_dawg.dawg_solve", lexicon, "catx")
    assert proc.stdout.splitlines()[2] == "1 point, 1 word"
    played = run_cli("boggle_dawg.dawg_solve", "play", lexicon, "--board", "catx", stdin="cat\n")
    assert "You found 1 word for 1 point:" in played.stdout
    assert "The board holds 1 word of 3+ letters for 1 point (you scored 100%)." in played.stdout


def test_a_lone_board_is_a_board_even_when_a_file_has_its_name(tmp_path):
    (tmp_path / "cats").write_text("not a lexicon")
    (tmp_path / "not-a-board").mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO), "BOGGLE_DAWG_CACHE": str(tmp_path / "cache")}

    def solve(arg: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "boggle_dawg.dawg_solve", arg], capture_output=True, text=True,
                              cwd=tmp_path, env=env, timeout=300, check=False)

    proc = solve("cats")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:2] == ["C A", "T S"]
    # a folder that holds no lexicon is not called one
    assert_clean_error(solve("not-a-board"), "not-a-board is not a BOARD (or --boards PATH) and holds no lexicon",
                       "no lexicon here")


def test_play_refuses_letters_the_lexicon_lacks(make_lexicon):
    lexicon = str(make_lexicon(["cats", "acts", "tacs"], charset="14"))
    proc = run_cli("boggle_dawg.dawg_solve", "play", lexicon, "--board", "zest", stdin="zest\n")
    assert_clean_error(proc, "board zest (the board has Z) uses a letter outside the lexicon's charset")
    rolled = run_cli("boggle_dawg.dawg_solve", "play", lexicon, "--seed", "1", stdin="")
    assert_clean_error(rolled, "(the dice rolled", "uses a letter outside the lexicon's charset")


def test_an_unknown_language_is_a_usage_error_and_a_bad_file_bad_input(tmp_path):
    proc = run_cli("boggle_dawg.dawgc_cli", "build", "/nowhere/words.txt", "--language", "xx")
    assert_clean_error(proc, "--language: language 'xx': neither a language file nor a built-in language")
    assert proc.returncode == 2
    bad = tmp_path / "klingon.toml"
    bad.write_text("name = 'tlh'\n")
    proc = run_cli("boggle_dawg.dawg_solve", "roll", "--language", str(bad))
    assert_clean_error(proc, "klingon.toml: field")
    assert proc.returncode == 1


def test_play_advises_in_the_lexicons_terms(tmp_path, make_lexicon):
    from boggle_dawg import build_lexicon

    russian = build_lexicon(["кот", "жизнь", "сон"], out=tmp_path / "ru", language="ru").path
    proc = run_cli("boggle_dawg.dawg_solve", "play", str(russian), "--board", "abcd", stdin="")
    assert_clean_error(proc, "(the board has A, B, C, D)", "they are not letters of Русский (ru): play a board in "
                             "its letters, or dice of that language (--dice FILE)")
    assert "--charset" not in proc.stderr
    english = str(make_lexicon(["cats", "acts", "tacs"], charset="14"))
    proc = run_cli("boggle_dawg.dawg_solve", "play", english, "--board", "zest", stdin="")
    assert_clean_error(proc, "(the board has Z)", "play with a lexicon of every letter of English (dawgc build "
                                                  "without --charset)")


def test_a_board_in_letters_the_lexicon_lacks_names_them_before_its_shape(make_lexicon):
    lexicon = str(make_lexicon(["cats", "acts"]))
    for args in ([lexicon, "жизнь"], ["жизнь"]):
        proc = run_cli("boggle_dawg.dawg_solve", *args)
        assert_clean_error(proc, "board 'жизнь' uses a letter outside the lexicon's charset "
                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ: Ж, З, И, Н, Ь")
        assert "square" not in proc.stderr and proc.returncode == 1
    proc = run_cli("boggle_dawg.dawg_solve", lexicon, "abcde")  # its letters are fine: its shape is not
    assert_clean_error(proc, "board 'abcde': 5 cells is not square")


def test_a_near_command_name_gets_a_did_you_mean(make_lexicon):
    proc = run_cli("boggle_dawg.dawg_solve", "solv", "abcd")
    assert_clean_error(proc, "solv: no such file or directory, nor a command (did you mean 'dawg-solve solve'?)")
    assert proc.returncode == 2
    proc = run_cli("boggle_dawg.dawg_solve", "serch")
    assert_clean_error(proc, "5 cells is not square", "(or did you mean 'dawg-solve search'?)")
    proc = run_cli("boggle_dawg.dawg_solve", "serch", "--seed", "3")  # an option of the command meant
    assert_clean_error(proc, "No such option: --seed", "or did you mean 'dawg-solve search'?")
    assert proc.returncode == 2
    proc = run_cli("boggle_dawg.dawg_solve", "serch", "--size", "5x1")  # a board after all: no guess needed
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    proc = run_cli("boggle_dawg.dawg_solve", "/nowhere/lexicon", "abcd")  # not like a command: no guess
    assert_clean_error(proc, "/nowhere/lexicon: no such file or directory")
    assert "did you mean" not in proc.stderr


def test_a_tanglet_list_read_as_plain_hints_at_the_option(tmp_path):
    words = tmp_path / "words"
    words.write_text("AACHENER Aachener\nABEND\n")
    proc = run_cli("boggle_dawg.dawgc_cli", "build", str(words), "--language", "de", "-o", str(tmp_path / "out"))
    assert_clean_error(proc, "line 1: 'AACHENER Aachener': more than one word on the line (a Tanglet words file? "
                             "--input-format tanglet reads one)")


@pytest.mark.parametrize("module", PROGRAMS)
def test_help_lists_each_command_whole(module):
    listed = run_cli(module, "-h").stdout.split("Commands:")[1]
    assert "..." not in listed
    whole = {"boggle_dawg.dawgc_cli": "Check every structure and numbering; with --source, round-trip to the word list.",
             "boggle_dawg.dawg_solve": "Serve a JSON API (solve, score, look up, roll; rooms, the daily board) and the "
                                       "browser game at / until Ctrl-C or SIGTERM."}[module]
    assert whole in " ".join(listed.split())
