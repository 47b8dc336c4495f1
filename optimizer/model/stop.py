"""A stop: one revenue centre of the board as the rules see it for one company."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Stop:
    """A revenue centre a route can count."""

    id: str  # "HEX._N"
    hex: str
    node: int
    kind: str  # city | town | offboard
    large: bool  # counts against the large (city) number of a train
    value: int  # value in this phase for this company (bonus-adjusted where a game says so)
    token: bool  # holds the operating company's token
    end_only: bool  # a route may start or end here but not pass through
    location: str  # stops with one location may not both be on one route
    red: bool  # a red (off-board) location, for red-to-red bonuses
    name: str | None = None
    no_end: bool = False  # a route may pass through here but neither begin nor end here
    mine: bool = False  # only goods trains visit it, one a route (1837 family: a mine)
    half_again: bool = False  # a route through it pays half its sum again and needs 2 other stops (1850Jr's ports)
    min_three: bool = False  # a route with it needs 2 other stops (1836Jr's ports; 1850Jr's by half_again)
    end_bonus: int = 0  # a route beginning or ending here earns this again, once (1870's reached destination)
