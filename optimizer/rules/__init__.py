"""A player's routes: read as track of the board (routes.py) and judged by the rules (check.py)."""
