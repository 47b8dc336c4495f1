"""The board editor in a real browser, at phone width, by taps alone (issue 29): an 1830 board built
from the start map (upgrades, rotations, tokens of three companies, a 4 and a 5 train) is solved
to the same answer as the same board given as a document to the HTTP API; a reload keeps it; the
shared link rebuilds it in a fresh browser context. Debian's Chromium, driven by Playwright, on a
real server (see tests/test_page_browser.py for how the browser is found)."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request

import pytest

from optimizer.games import game_names

from .browsers import IN_CI, TIMEOUT_MS
from .built_board import DOCUMENT, LAYS, TOKENS
from .servers import ServerProcess

if not IN_CI:
    pytest.importorskip("playwright")
from playwright.sync_api import expect

from .test_page_browser import clicks

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("editor"))
    yield srv
    srv.stop()


def phone_page(browser, url):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(url)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    return context, page, errors


def solution(server, doc) -> dict:
    """The HTTP API's answer for a tile-lay document, as any client sends it."""
    req = urllib.request.Request(
        f"{server.http_url}/v1/optimize",
        data=json.dumps({"stateJson": json.dumps(doc)}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=30) as answer:
        return json.load(answer)["solution"]


def exported(page) -> dict:
    href = page.locator("#ed-export").get_attribute("href")
    prefix = "data:application/json;charset=utf-8,"
    assert href.startswith(prefix)
    return json.loads(urllib.parse.unquote(href[len(prefix) :]))


def same_board(doc: dict) -> dict:
    """A document with its tokens in a fixed order (the page keeps them in the order they were placed)."""
    key = lambda t: (t["hex"], t["city"], t["company"])  # noqa: E731
    return dict(doc, tokens=sorted(doc["tokens"], key=key))


def tap_hex(page, hex_id):
    page.locator(f'#board polygon.hex[data-hex="{hex_id}"]').tap()
    expect(page.locator("#hex-sheet")).to_have_attribute("data-hex", hex_id)
    expect(page.locator("#hex-sheet")).to_be_visible()


def close_sheet(page):
    page.locator("#sheet-close").tap()
    expect(page.locator("#hex-sheet")).to_be_hidden()


def expect_shown(page, best):
    expect(page.locator("#total")).to_have_text(best["revenue"])
    expect(page.locator("#status")).to_have_text("optimal")
    expect(page.locator("#best tbody .revenue")).to_have_text([r["revenue"] for r in best["routes"]])


def open_editor(page):
    """Build a board, then a new 1830 board: its start map, first company and phase."""
    page.locator("#build").tap()
    expect(page.locator("#editor")).to_have_attribute("aria-busy", "false")
    page.locator("#ed-game").select_option("1830")
    page.locator("#ed-new").tap()
    expect(page.locator("#editor")).to_have_attribute("aria-busy", "false")
    expect(page.locator("#board-name")).to_have_text("1830 · PRR")


def build_by_taps(page):
    open_editor(page)
    page.locator("#ed-company").select_option("B&O")
    expect(page.locator("#board-name")).to_have_text("1830 · B&O")
    page.locator("#ed-phase").select_option("5")
    expect(page.locator("#board svg .legend")).to_contain_text("phase 5")
    for name in ("4", "5"):
        page.locator(f'.add-train[data-train="{name}"]').tap()
    expect(page.locator(".train-chip")).to_have_text(["4 ×", "5 ×"])
    for hex_id, tile, turns in LAYS:
        tap_hex(page, hex_id)
        choice = page.locator(f'#hex-sheet .tile-choice[data-tile="{tile}"]')
        expect(choice).to_be_enabled()
        choice.tap()
        expect(page.locator(f'#board polygon.hex[data-hex="{hex_id}"]')).to_have_attribute("data-tile", tile)
        for _ in range(turns):
            before = page.locator("#hex-sheet h3").inner_text()
            page.locator("#rotate").tap()
            expect(page.locator("#hex-sheet h3")).not_to_have_text(before)
        close_sheet(page)
    for hex_id, city, company in TOKENS:
        tap_hex(page, hex_id)
        page.locator("#token-company").select_option(company)
        page.locator(f'#hex-sheet .city-row[data-city="{city}"] .add-token').tap()
        expect(page.locator(f'#hex-sheet .city-row[data-city="{city}"] .token-chip')).to_have_text(f"{company} ×")
        close_sheet(page)


def test_a_board_built_by_taps_on_a_phone_solves_as_its_document(browser, server):
    best = solution(server, DOCUMENT)
    assert int(best["revenue"]) > 0 and len(best["routes"]) == 2
    context, page, errors = phone_page(browser, server.http_url + "/")
    build_by_taps(page)
    assert same_board(exported(page)) == same_board(DOCUMENT)
    expect_shown(page, best)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")  # no sideways scroll
    # The best routes are named by their printed names, as the CLI names them.
    expect(page.locator("#best tbody .stops").first).to_contain_text("Baltimore (I15)")

    # undo takes back the last tap (PRR's token), and the answer with it
    page.locator("#ed-undo").tap()
    assert [t["company"] for t in exported(page)["tokens"]] == ["B&O", "NYNH"]
    page.locator("#build").tap()  # leave the editor and come back: the board is kept
    page.locator("#build").tap()
    tap_hex(page, "H18")
    page.locator("#token-company").select_option("PRR")
    page.locator('#hex-sheet .city-row[data-city="1"] .add-token').tap()
    expect(page.locator('#hex-sheet .city-row[data-city="1"] .token-chip')).to_have_text("PRR ×")
    close_sheet(page)
    expect_shown(page, best)

    page.reload()  # the device keeps the board
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect_shown(page, best)
    assert same_board(exported(page)) == same_board(DOCUMENT)

    # taps draw a route on the built board, checked as on any board
    page.locator('#tap-mode button[data-mode="routes"]').tap()
    four = next(r for r in best["routes"] if r["name"] == "4")
    page.locator(f'.train-button[data-train="{four["train"]}"]').tap()
    for hex_id in clicks(four):
        page.locator(f'#board polygon.hex[data-hex="{hex_id}"]').tap()
    mine = page.locator(f'#yours tr[data-train="{four["train"]}"]')
    expect(mine.locator(".reason")).to_have_text("legal")
    expect(mine.locator(".revenue")).to_have_text(four["revenue"])
    expect(mine.locator(".hexes")).to_contain_text("Baltimore (I15)")
    expect(page.locator("#hex-sheet")).to_be_hidden()  # taps no longer open a hex
    # or a route written as players say it: the 5 train by name, the stops by their printed names
    five = next(r for r in best["routes"] if r["name"] == "5")
    names = {"I15": "Baltimore", "H16": "Lancaster", "H18": "Philadelphia", "G19": "New York", "I19": "Atlantic"}
    spoken = " - ".join(names[s.split(".")[0]] for s in five["stops"])
    page.locator("#route-text").fill(f"5: {spoken}")
    page.locator("#route-form button").tap()
    theirs = page.locator(f'#yours tr[data-train="{five["train"]}"]')
    expect(theirs.locator(".reason")).to_have_text("legal")
    expect(theirs.locator(".revenue")).to_have_text(five["revenue"])
    expect(page.locator("#your-total")).to_have_text(best["revenue"])
    expect(page.locator("#gap")).to_have_text("equal to the optimum")

    page.locator("#ed-share").tap()
    link = page.locator("#ed-link").input_value()
    assert "#board=" in link
    context.close()
    assert not errors, errors

    fresh, other, other_errors = phone_page(browser, link)  # a fresh context: no storage, only the link
    expect_shown(other, best)
    assert same_board(exported(other)) == same_board(DOCUMENT)
    fresh.close()
    assert not other_errors, other_errors


def test_the_tiles_offered_fit_the_hex_and_say_how_many_are_left(browser, server):
    context, page, errors = phone_page(browser, server.http_url + "/")
    open_editor(page)
    page.locator("#ed-phase").select_option("2")  # yellow only
    tap_hex(page, "H16")  # Lancaster, a plain city: the yellow city tile, 4 in the supply
    expect(page.locator("#hex-sheet .tile-choice")).to_have_count(1)
    expect(page.locator('#hex-sheet .tile-choice[data-tile="57"]')).to_contain_text("57 · 4 left")
    page.locator('#hex-sheet .tile-choice[data-tile="57"]').tap()
    expect(page.locator("#hex-sheet h3")).to_contain_text("tile 57")
    close_sheet(page)
    tap_hex(page, "H16")  # now green cities fit, listed as of a later phase
    expect(page.locator("#hex-sheet .tile-choice.later")).to_have_count(2)
    close_sheet(page)
    tap_hex(page, "E19")  # Albany: one 57 is on the map now
    expect(page.locator('#hex-sheet .tile-choice[data-tile="57"]')).to_contain_text("57 · 3 left")
    context.close()
    assert not errors, errors


# ---- the page's own routes the editor uses -----------------------------------------------------


def _get(server, path):
    try:
        with urllib.request.urlopen(server.http_url + path, timeout=30) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as err:
        return err.code, json.load(err)


def _post(server, path, body):
    req = urllib.request.Request(
        server.http_url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as err:
        return err.code, json.load(err)


def test_the_editors_routes_answer_and_refuse_clearly(server):
    status, games = _get(server, "/page/games")
    assert status == 200 and [g["title"] for g in games] == game_names()  # every title with static data
    status, setup = _get(server, "/page/games/1830")
    assert status == 200 and setup["start"] == {
        "game": "1830",
        "phase": "2",
        "company": "PRR",
        "trains": [],
        "lays": [],
        "tokens": [],
    }
    b_and_o = next(c for c in setup["companies"] if c["id"] == "B&O")
    assert b_and_o["name"] == "Baltimore & Ohio Railroad" and b_and_o["color"] == "#025aaa"  # the engine's blue
    assert setup["places"]["I15"] == "Baltimore"
    assert _get(server, "/page/games/9999")[0] == 404

    status, choices = _post(server, "/page/tiles", {"board": DOCUMENT, "hex": "G19"})
    assert status == 200 and [f["tile"] for f in choices["fits"]] == ["62"]
    assert choices["fits"][0]["svg"].startswith("<svg") and 'data-tile="62"' in choices["fits"][0]["svg"]
    status, bad = _post(server, "/page/tiles", {"board": DOCUMENT, "hex": "Z99"})
    assert status == 400 and "unknown hex 'Z99'" in bad["message"]
    assert bad["details"][0]["fieldViolations"][0]["field"] == "hex"
    status, bad = _post(server, "/page/tiles", {"board": {"game": "1830", "hexes": []}, "hex": "G19"})
    assert status == 400 and "tile-lay document" in bad["message"]
    status, bad = _post(server, "/page/tiles", {"hex": "G19"})
    assert status == 400 and '{"board": <tile-lay document>, "hex": "F20"}' in bad["message"]
    many = dict(DOCUMENT, lays=DOCUMENT["lays"] * 101)  # 1010 lays: more than any map has hexes
    status, bad = _post(server, "/page/tiles", {"board": many, "hex": "G19"})
    assert status == 400 and bad["message"] == "lays: more than 1000"
    huge = dict(DOCUMENT, id="x" * 300_000)
    status, bad = _post(server, "/page/tiles", {"board": huge, "hex": "G19"})
    assert status == 413 and "larger than the limit of 262144" in bad["message"]
