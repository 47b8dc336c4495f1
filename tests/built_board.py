"""An 1830 board built from the start map as players build it on the page (tests/test_editor_browser.py
taps it in; tests/test_upgrades.py has the engine list the tiles that fit each of its hexes)."""

# (hex, tile, taps on Rotate): each tile is one the page lists as fitting; H16 is laid three times
# (city, green, brown), I15 (printed B) and H18 (printed OO) upgraded twice; three lays are turned.
LAYS = [
    ("I17", "9", 0),
    ("H16", "57", 0),
    ("H18", "59", 2),
    ("G17", "56", 0),
    ("G19", "54", 0),
    ("I15", "53", 0),
    ("H16", "15", 0),
    ("H14", "9", 1),
    ("I13", "8", 0),
    ("F18", "8", 0),
    ("F20", "1", 0),
    ("I15", "61", 0),
    ("H18", "65", 0),
    ("H16", "63", 0),
]
TOKENS = [("I15", 0, "B&O"), ("G19", 0, "NYNH"), ("H18", 1, "PRR")]
# The same board as a document, written by hand from the rotations the taps above choose.
DOCUMENT = {
    "game": "1830",
    "phase": "5",
    "company": "B&O",
    "trains": ["4", "5"],
    "lays": [
        {"hex": "I17", "tile": "9", "rotation": 1},
        {"hex": "G17", "tile": "56", "rotation": 0},
        {"hex": "G19", "tile": "54", "rotation": 0},
        {"hex": "H14", "tile": "9", "rotation": 1},
        {"hex": "I13", "tile": "8", "rotation": 1},
        {"hex": "F18", "tile": "8", "rotation": 0},
        {"hex": "F20", "tile": "1", "rotation": 0},
        {"hex": "I15", "tile": "61", "rotation": 0},
        {"hex": "H18", "tile": "65", "rotation": 3},
        {"hex": "H16", "tile": "63", "rotation": 0},
    ],
    "tokens": [
        {"hex": "I15", "city": 0, "company": "B&O"},
        {"hex": "G19", "city": 0, "company": "NYNH"},
        {"hex": "H18", "city": 1, "company": "PRR"},
    ],
}
