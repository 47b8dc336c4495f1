import os

import pytest

from .corpus import require_corpus

# The server processes and their fixtures (server, client, stub, states, cli_answers), shared by the
# end-to-end modules without importing fixtures into each.
pytest_plugins = ["tests.servers", "tests.browsers"]  # and the browser the page tests drive


def pytest_configure(config):
    # Fail early and loudly in CI when the corpus is missing (never skip corpus tests there).
    try:
        require_corpus()
    except RuntimeError as err:
        raise pytest.UsageError(str(err)) from None


@pytest.fixture(params=["compiled", "python"])
def core(request, monkeypatch):
    """Run a test against both searches, the compiled core and its pure-Python twin."""
    import optimizer.core

    monkeypatch.setenv("OPTIMIZER_CORE", request.param)  # for the processes a test starts
    monkeypatch.setattr(optimizer.core, "DEFAULT", request.param)  # read once, at import, in this one
    return request.param


@pytest.fixture
def clean_env(monkeypatch):
    monkeypatch.delenv("OPTIMIZER_CORE", raising=False)
    return os.environ
