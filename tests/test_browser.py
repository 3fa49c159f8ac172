"""The browser game in a real Chromium (Debian's, driven by Playwright) against a real server: a round
is played with the keyboard and the mouse, ended, and a missed word's path shown on the board; and
a Russian round, on a server of a Russian and an English lexicon, offers the Russian dice only, speaks
Russian and judges a word typed in capitals. Without a browser: every language's catalogue of the page's
words has every key (tests/test_rooms_browser.py plays rooms, links, the daily board and languages).

Skips when Chromium or Playwright is absent, except under CI, where `.ci/run` installs both.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import httpx2
import pytest
from test_server import RUSSIAN_SAMPLE, start_server, tanglet_sample

from boggle_dawg.solver.rules import builtin_rules_names

from support import IN_CI, shared_path

pytestmark = pytest.mark.slow  # a real Chromium, and servers of the shipped full-size list

SEED = 13  # the classic dice's roll played: tracks of several lengths
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOT = os.environ.get("GAME_SCREENSHOT")  # a PNG to write of the round's end (docs/game.png is one)


def need(ok: bool, reason: str) -> None:
    if not ok:
        if IN_CI:
            pytest.fail(f"{reason}; .ci/run installs it for CI")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    need(shutil.which(CHROMIUM) is not None, f"{CHROMIUM} not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        need(False, "playwright not installed (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=CHROMIUM, args=CHROMIUM_ARGS,
            headless=True, viewport={"width": 390, "height": 844}, has_touch=True)  # a phone's screen
        yield context
        context.close()


@pytest.fixture(scope="module")
def server(built):
    proc, url = start_server(str(built("default")))
    yield url
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="module")
def two_languages(built, tmp_path_factory):
    russian = tanglet_sample(tmp_path_factory.mktemp("ru") / "ru", "ru", RUSSIAN_SAMPLE, set(), "plain", True)
    proc, url = start_server(str(built("default")), str(russian), "--dice",
                             str(shared_path("lexicons", "tanglet", "ru", "dice")))
    yield url, russian.name
    proc.terminate()
    proc.wait(10)


def cell_centre(page, cell: int) -> tuple[float, float]:
    box = page.locator(f"#grid .cell[data-cell='{cell}']").bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_a_round_in_the_browser(browser, server):
    page = browser.new_page()
    page.set_default_timeout(10_000)
    page.goto(server + f"/?dice=classic&seed={SEED}")
    page.wait_for_function("document.querySelector('#origin').textContent.includes('seed')")
    assert page.text_content("#origin") == f"classic dice, seed {SEED}"
    board = page.get_attribute("#grid", "data-board")
    answers = httpx2.post(f"{server}/api/solve", json={"board": board}, timeout=10).json()["words"]

    typed, traced = answers[0], answers[1]
    page.fill("#word", typed["word"])
    page.press("#word", "Enter")
    page.wait_for_function(f"document.querySelector('#answer').textContent.includes('{typed['word']}')")
    assert page.text_content("#answer") == f"{typed['word']}: +{typed['points']} point" + \
        ("" if typed["points"] == 1 else "s")

    x, y = cell_centre(page, traced["path"][0])
    page.mouse.move(x, y)
    page.mouse.down()
    for cell in traced["path"][1:]:
        page.mouse.move(*cell_centre(page, cell), steps=4)
    assert page.input_value("#word") == traced["word"]
    assert page.locator("#grid .cell.traced").count() == len(traced["path"])
    page.mouse.up()
    page.wait_for_function(f"document.querySelector('#answer').textContent.startsWith('{traced['word']}:')")
    assert "+" in page.text_content("#answer")
    assert page.locator("#found li").count() == 2

    asked = []  # "New round" during a round asks first; dismissed, the round goes on
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.click("#new-round")
    assert asked == ["End this round and start a new one? Its words will be lost."]
    assert page.get_attribute("#grid", "data-board") == board and page.locator("#found li").count() == 2

    page.click("#end-round")
    page.locator("#end").wait_for()
    maximum = sum(w["points"] for w in answers)
    assert f"You scored {typed['points'] + traced['points']} of the board's {maximum} points" in \
        page.text_content("#result")
    assert page.locator("#your-words li").count() == 2
    missed = page.locator("#missed-words button")
    assert missed.count() == len(answers) - 2
    best = missed.first
    word = best.get_attribute("data-word")
    best.click()
    path = next(w["path"] for w in answers if w["word"] == word)
    on_path = page.eval_on_selector_all("#grid .cell.on-path", "cells => cells.map(c => [Number(c.dataset.cell), "
                                                               "Number(c.dataset.step)])")
    assert sorted(on_path, key=lambda c: c[1]) == [[cell, step + 1] for step, cell in enumerate(path)]
    if SCREENSHOT:
        page.screenshot(path=SCREENSHOT)

    # on a phone, a word chosen low in the list brings the board, scrolled away, back into view
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert not board_in_view(page)
    missed.last.click()
    page.wait_for_function("document.querySelector('#missed-words li:last-child').classList.contains('chosen')")
    assert board_in_view(page)
    page.click("#new-round")  # no round running: nothing to ask
    page.locator("#play").wait_for()
    page.close()


def board_in_view(page) -> bool:
    return page.evaluate("(() => { const box = document.querySelector('#grid').getBoundingClientRect(); "
                         "return box.top >= 0 && box.bottom <= window.innerHeight; })()")


def test_a_round_under_other_rules_from_the_menu_and_the_link(browser, server):
    """The rules menu lists the server's rule sets; ?rules=words chooses the word count, and the round's
    maximum is then the board's number of words."""
    page = browser.new_page()
    page.set_default_timeout(10_000)
    page.goto(server + f"/?dice=classic&rules=words&seed={SEED}")
    page.wait_for_function("document.querySelector('#origin').textContent.includes('seed')")
    assert page.eval_on_selector_all("#rules option", "options => options.map(o => o.value)") == \
        ["big", "standard", "words"]
    assert page.input_value("#rules") == "words"
    board = page.get_attribute("#grid", "data-board")
    answers = httpx2.post(f"{server}/api/solve", json={"board": board, "rules": "words"}, timeout=10).json()["words"]
    page.click("#end-round")
    page.locator("#end").wait_for()
    assert f"You scored 0 of the board's {len(answers)} points" in page.text_content("#result")
    assert page.text_content("#your-words") == "none"  # said, not an empty list
    page.close()


def test_a_russian_round(browser, two_languages):
    server, russian = two_languages
    page = browser.new_page()
    page.set_default_timeout(10_000)
    page.goto(server + f"/?lexicon={russian}&seed={SEED}")
    page.wait_for_selector("#grid[data-board]")
    assert page.text_content("#origin") == f"кубики ru, зерно {SEED}"  # a Russian lexicon's page speaks Russian
    assert page.text_content("#end-round") == "Закончить раунд"
    assert page.eval_on_selector_all("#dice option", "options => options.map(o => o.textContent)") == \
        ["ru (4x4)", "ru (5x5)"]
    cells = page.eval_on_selector_all("#grid .cell", "cells => cells.map(c => c.textContent)")
    assert len(cells) == 16 and all(len(c) == 1 and "А" <= c <= "Я" for c in cells), cells
    board = page.get_attribute("#grid", "data-board")
    answers = httpx2.post(f"{server}/api/solve", json={"board": board, "lexicon": russian}, timeout=10).json()["words"]
    typed = answers[0]
    page.fill("#word", typed["word"].upper())
    page.press("#word", "Enter")
    page.wait_for_function(f"document.querySelector('#answer').textContent.startsWith('{typed['word']}:')")
    assert "+" in page.text_content("#answer")
    page.select_option("#lexicon", index=0)  # English: its dice, not Russian ones
    assert "ru (4x4)" not in page.eval_on_selector_all("#dice option", "options => options.map(o => o.textContent)")
    page.close()


def test_a_seed_of_many_digits_gives_its_own_board(browser, server):
    """A link's seed is kept as its digits: 99999999999999999999999 is not 1e+23 (another board)."""
    seed = "99999999999999999999999"
    page = browser.new_page()
    page.set_default_timeout(10_000)
    page.goto(server + f"/?dice=classic&seed=000{seed}")
    page.wait_for_function("document.querySelector('#origin').textContent.includes('seed')")
    assert page.text_content("#origin") == f"classic dice, seed {seed}"
    rolled = httpx2.get(f"{server}/api/roll", params={"dice": "classic", "seed": seed}, timeout=10).json()
    assert page.get_attribute("#grid", "data-board") == rolled["boards"][0]["board"]
    page.close()


@pytest.mark.parametrize("seed", ["abc", "-1", "1.5"])
def test_a_bad_seed_in_the_link_is_said_and_the_page_plays(browser, server, seed):
    page = browser.new_page()
    page.set_default_timeout(10_000)
    page.goto(server + f"/?seed={seed}")
    page.wait_for_function("document.querySelector('#origin').textContent.includes('seed')")
    assert page.text_content("#error") == (f'The link\'s seed "{seed}" is not a whole number of 0 or more: here is '
                                           f'a random board instead.')
    assert page.locator("#grid .cell").count() == 16 and page.is_enabled("#word") and page.is_enabled("#end-round")
    page.close()


def test_the_page_loads_without_a_miss_and_fits_a_phone(browser, server):
    """No request of a page load is refused (a browser asks for /favicon.ico unless the page names its
    icon), and the word box's placeholder fits a phone's width whole."""
    page = browser.new_page()
    page.set_default_timeout(10_000)
    refused = []
    page.on("response", lambda response: response.status >= 400 and refused.append(response.url))
    page.goto(server + "/")
    page.wait_for_function("document.querySelector('#origin').textContent.includes('seed')")
    page.wait_for_load_state("networkidle")
    assert refused == []
    fits = page.evaluate("""(() => {
        const input = document.querySelector('#word'), style = getComputedStyle(input);
        const context = document.createElement('canvas').getContext('2d');
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return context.measureText(input.placeholder).width <= room;
    })()""")
    assert fits
    page.close()


def test_the_dice_menu_lists_the_languages_own_set_first(browser, tmp_path):
    """A German lexicon (letters a-z) fits the English sets too; its own, Tanglet's de, comes first."""
    from boggle_dawg import build_lexicon

    german = build_lexicon(["abend", "straße", "haus", "nase", "rose", "tasse"], out=tmp_path / "de",
                           language="de").path
    proc, url = start_server(str(german), "--dice", str(shared_path("lexicons", "tanglet", "de", "dice")))
    try:
        page = browser.new_page()
        page.set_default_timeout(10_000)
        page.goto(url + "/")
        page.wait_for_selector("#grid[data-board]")
        offered = page.eval_on_selector_all("#dice option", "options => options.map(o => o.textContent)")
        assert offered[:2] == ["de (4x4)", "de (5x5)"] and "classic (4x4)" in offered
        page.close()
    finally:
        proc.terminate()
        proc.wait(10)


# --- the page's catalogues: no browser needed -------------------------------------------------------

STATIC = Path(__file__).resolve().parents[1] / "boggle_dawg" / "server" / "static"
CATALOGUES = STATIC / "i18n"
PLURAL_FORMS = {"en": {"one", "other"}, "de": {"one", "other"}, "nl": {"one", "other"},  # as Intl.PluralRules picks
                "fr": {"one", "many", "other"}, "es": {"one", "many", "other"},
                "pl": {"one", "few", "many", "other"}, "ru": {"one", "few", "many", "other"}}


def placeholders(text) -> set[str]:
    forms = text.values() if isinstance(text, dict) else [text]
    return {name for form in forms for name in re.findall(r"\{(\w+)\}", form)}


def test_every_catalogue_has_every_key_and_its_placeholders():
    """Each language's catalogue (static/i18n/*.json) has every key of the English one, no other, each plural
    with the forms its language's plural rules pick and the same {placeholders}."""
    catalogues = {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in CATALOGUES.glob("*.json")}
    assert set(catalogues) == set(PLURAL_FORMS)
    english = catalogues["en"]
    for name, catalogue in catalogues.items():
        assert set(catalogue) == set(english), (name, set(english) ^ set(catalogue))
        for key, text in catalogue.items():
            assert isinstance(text, dict) == isinstance(english[key], dict), (name, key)
            if isinstance(text, dict):
                assert set(text) == PLURAL_FORMS[name], (name, key)
            assert placeholders(text) == placeholders(english[key]), (name, key)
            assert all(form.strip() or key == "end.share" for form in (text.values() if isinstance(text, dict)
                                                                       else [text])), (name, key)


def test_every_text_the_page_names_is_in_the_catalogue():
    """The keys the page's HTML and scripts name (data-i18n attributes, t("...") calls) are the English
    catalogue's; keys made up at run time (verdict.*, rules.*) are listed there too."""
    english = json.loads((CATALOGUES / "en.json").read_text(encoding="utf-8"))
    named = set()
    for path in STATIC.glob("*.*"):
        text = path.read_text(encoding="utf-8")
        named |= set(re.findall(r'data-i18n(?:-\w+)?="([\w.]+)"', text)) | set(re.findall(r'\bt\("([\w.]+)"', text))
    assert named and named <= set(english), named - set(english)
    assert {f"verdict.{v}" for v in ("repeated", "too_short", "not_letters", "not_on_board", "not_in_dictionary",
                                     "too_late")} <= set(english)
    assert {f"rules.{name}" for name in builtin_rules_names()} <= set(english)
