"""The players' page in a real browser: Debian's Chromium driven by Playwright, on a real server.

Playwright cannot download its own browser here, so it drives the system's Chromium
(``apt-get install chromium``; ``$CHROMIUM`` names another binary). Without one these tests are
skipped, except under ``CI=true``, where they fail: CI installs Chromium (``.ci/run``).
"""

from __future__ import annotations

import json
import re
import urllib.request

import pytest

from .browsers import IN_CI, TIMEOUT_MS
from .servers import ServerProcess

if not IN_CI:
    pytest.importorskip("playwright")  # the test extra installs it; a bare install has none
from playwright.sync_api import expect


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("page"))
    yield srv
    srv.stop()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    errors = []
    pg.on("pageerror", lambda err: errors.append(str(err)))
    pg.goto(server.http_url + "/")
    expect(pg.locator("body")).to_have_attribute("data-ready", "true")
    yield pg
    context.close()
    assert not errors, errors


def optimum(server, example: str) -> dict:
    """The best routes of an example board, from the HTTP API (what the page shows as best)."""
    with urllib.request.urlopen(f"{server.http_url}/page/examples/{example}") as answer:
        board = json.load(answer)
    req = urllib.request.Request(
        f"{server.http_url}/v1/optimize",
        data=json.dumps({"board": board}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req) as answer:
        return json.load(answer)["solution"]


def clicks(route: dict) -> list:
    """A route's hexes in the order a player clicks them: its chains joined at the stops."""
    chains = [c["hexes"] for c in route["hexes"]]
    return chains[0] + [h for chain in chains[1:] for h in chain[1:]]


def draw(page, train: str, hexes: list) -> None:
    page.locator(f'.train-button[data-train="{train}"]').click()
    for hex_id in hexes:
        page.locator(f'#board polygon.hex[data-hex="{hex_id}"]').click()


def test_opens_on_the_default_board_solved_with_both_routes(page):
    expect(page.locator("#total")).to_have_text("440")
    expect(page.locator("#status")).to_have_text("optimal")
    expect(page.locator("#best tbody tr")).to_have_count(2)
    expect(page.locator("#best tbody .revenue")).to_have_text(["230", "210"])
    routes = page.locator("#board svg g.route")
    expect(routes).to_have_count(2)
    assert {routes.nth(i).get_attribute("data-train") for i in range(2)} == {"4-0", "5-0"}
    expect(page.locator("#board svg .legend")).to_contain_text("440")


def test_18eu_example_reused_track_is_refused_and_a_legal_route_earns(page, server):
    best = optimum(server, "18eu")
    page.locator("#example").select_option("18eu")
    expect(page.locator("#board-name")).to_contain_text("18EU")
    expect(page.locator("#total")).to_have_text(best["revenue"])
    expect(page.locator("#status")).to_have_text("optimal")

    first, second = best["routes"][0], best["routes"][1]
    draw(page, first["train"], clicks(first))
    mine = page.locator(f'#yours tr[data-train="{first["train"]}"]')
    expect(mine.locator(".reason")).to_have_text("legal")
    expect(mine.locator(".revenue")).to_have_text(first["revenue"])
    gap = int(best["revenue"]) - int(first["revenue"])
    expect(page.locator("#gap")).to_have_text(f"{gap} below the optimum")

    reused = first["hexes"][0]["hexes"]  # the first leg of the route above, for the other train
    draw(page, second["train"], reused)
    theirs = page.locator(f'#yours tr[data-train="{second["train"]}"]')
    expect(theirs.locator(".reason")).to_contain_text(
        re.compile(
            r"route 2 uses the side between \w+ and \w+ "
            r"that route 1 already uses"
        )
    )
    expect(page.locator("#gap")).to_contain_text("not legal")

    page.locator("#clear").click()
    draw(page, second["train"], clicks(second))
    expect(theirs.locator(".reason")).to_have_text("legal")
    expect(theirs.locator(".revenue")).to_have_text(second["revenue"])


def test_deadline_and_improvements_arrive(page):
    page.locator("#deadline").fill("5000")
    page.locator("#solve").click()
    expect(page.locator("#progress li").last).to_contain_text("440 (final)")
    assert page.locator("#progress li").count() > 2  # provisional solutions came first


def test_readable_on_a_phone(browser, server):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    pg.goto(server.http_url + "/")
    expect(pg.locator("#total")).to_have_text("440")
    assert pg.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    board, panel = pg.locator("#board").bounding_box(), pg.locator(".panel").bounding_box()
    assert board["width"] <= 390 and panel["y"] >= board["y"] + board["height"] - 1  # stacked, not squeezed
    context.close()
