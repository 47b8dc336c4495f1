"""api.warm_up: what a service runs once at start."""

from optimizer import api


def test_warm_up_solves_an_example_of_every_game_shipped():
    warmed = api.warm_up()
    assert {"1830", "1880", "1880 Romania", "1894", "18EU"} <= set(warmed) and len(warmed) == len(set(warmed))
