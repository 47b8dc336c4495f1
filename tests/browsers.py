"""The browser the page tests drive: Debian's Chromium through Playwright, one per test module.

Playwright cannot download its own browser here, so it drives the system's Chromium (``apt-get
install chromium``; ``$CHROMIUM`` names another binary). Without one the browser tests are skipped,
except under ``CI=true``, where they fail: CI installs Chromium (``.ci/run``). Loaded as a pytest
plugin (``tests/conftest.py``), so that the modules share the fixture without importing it.
"""

from __future__ import annotations

import os
import shutil

import pytest

IN_CI = os.environ.get("CI", "").lower() == "true"
TIMEOUT_MS = 20_000


def chromium_path() -> str:
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if path:
        return path
    if IN_CI:
        pytest.fail("Chromium is missing under CI=true (.ci/run installs Debian's chromium): browser tests must run")
    pytest.skip("no Chromium (apt-get install chromium, or set $CHROMIUM): browser tests skipped outside CI")


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for the module's tests (Playwright imported here: a bare install has none)."""
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield b
        b.close()
