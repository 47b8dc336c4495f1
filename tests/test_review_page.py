"""The page's review of a whole game, in a real browser (Debian's Chromium driven by Playwright) on a
real server started with the engine (``serve --engine``), and the review's HTTP answers.

Needs Chromium, Ruby and the engine: skipped without them, failed under ``CI=true``.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request

import pytest

from . import ruby
from .browsers import TIMEOUT_MS
from .corpus import states
from .servers import ServerProcess

if not ruby.in_ci():
    pytest.importorskip("playwright")  # the test extra installs it; a bare install has none
from playwright.sync_api import expect

ROOT = ruby.ROOT


@pytest.fixture(scope="module")
def game():
    ruby.tool("ruby")
    return ruby.engine_dir() / "public" / "fixtures" / "1830" / "26855.json"


@pytest.fixture(scope="module")
def server(tmp_path_factory, game):
    srv = ServerProcess(tmp_path_factory.mktemp("review"), "--workers", "1", "--engine", ruby.engine_dir())
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def bare_server(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("bare"), "--workers", "1")
    yield srv
    srv.stop()


def post(url: str, body: bytes) -> tuple:
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=300) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def test_review_over_http_is_the_cli_review_in_lines(server, game):
    status, text = post(server.http_url + "/page/review", game.read_bytes())
    assert status == 200
    head, *rows, last = [json.loads(line) for line in text.splitlines()]
    assert head == {"count": len(rows), "title": "1830 · game 26855"}
    corpus = {s["action_id"]: s for s in states() if s["id"].startswith("1830/26855@")}
    if corpus:
        assert [r["action_id"] for r in rows] == sorted(corpus)
        assert [r["ran"] for r in rows] == [corpus[r["action_id"]]["expected"]["human_recheck"] for r in rows]
    assert sum(c["left"] for c in last["summary"].values()) == sum(r["left"] for r in rows)
    assert last["svg"].startswith("<svg")


def test_a_body_that_is_not_a_game_is_400(server):
    status, text = post(server.http_url + "/page/review", b'{"title": "1830"}')
    assert status == 400 and "not a game's export" in json.loads(text)["message"]


def test_a_server_without_engine_says_so(bare_server, game):
    with urllib.request.urlopen(bare_server.http_url + "/page/review") as answer:
        assert json.load(answer) == {"review": False}
    status, text = post(bare_server.http_url + "/page/review", game.read_bytes())
    assert status == 400 and "serve --engine" in json.loads(text)["message"]


def test_serve_with_a_wrong_engine_is_one_line_and_exit_2(tmp_path):
    with pytest.raises(RuntimeError, match="no engine at /nonexistent"):
        ServerProcess(tmp_path, "--engine", "/nonexistent")


@pytest.mark.parametrize("width, shot", [(1280, "review.png"), (390, None)])
def test_upload_a_game_and_read_its_review(browser, server, game, width, shot, tmp_path):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(server.http_url + "/")
    page.get_by_role("link", name="review a whole game").click()
    expect(page.locator("#game-file")).to_be_enabled()
    expect(page.locator("#unavailable")).to_be_hidden()
    page.locator("#game-file").set_input_files(str(game))
    expect(page.locator("#review-status")).to_have_text("1830 · game 26855: 43 of 43 runs reviewed", timeout=300_000)
    expect(page.locator("#review-chart svg")).to_be_visible(timeout=60_000)
    rows = page.locator("#runs tbody tr")
    expect(rows).to_have_count(43)
    assert page.locator("#runs tbody tr td.bad").count() == 2  # NYC's 30 and PRR's 20 left on the table
    total = page.locator("#companies tfoot td").all_text_contents()
    assert total == ["total", "8800", "8850", "50", ""]
    if shot:  # docs/review.png is this picture: ROUTE18XX_DOCS_SHOTS=1 writes it there
        where = ROOT / "docs" if os.environ.get("ROUTE18XX_DOCS_SHOTS") == "1" else tmp_path
        page.screenshot(path=str(where / shot), full_page=True)
        assert (where / shot).stat().st_size > 10_000
    context.close()
    assert not errors, errors


def test_where_the_engine_pays_otherwise_the_page_says_so(browser, server):
    """18EU/74045: seven optima run a Pullman on a city without the company's token; the engine pays
    those routes less (see tests/test_ruby_client.py), and each such optimum is marked, with the
    engine's figure in its tooltip."""
    game = ruby.engine_dir() / "public" / "fixtures" / "18EU" / "74045.json"
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server.http_url + "/review")
    expect(page.locator("#game-file")).to_be_enabled()
    page.locator("#game-file").set_input_files(str(game))
    expect(page.locator("#review-status")).to_have_text(re.compile(r"114 of 114 runs reviewed"), timeout=300_000)
    marked = page.locator("#runs td[title]")
    expect(marked).to_have_count(7)
    assert all(t.endswith(" *") for t in marked.all_text_contents())
    assert marked.first.get_attribute("title") == "the 18xx.games engine pays 150 for these routes"
    context.close()
