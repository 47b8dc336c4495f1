"""Dense synthetic late-game boards, deterministic from a seed, to stress the search.

Real games rarely reach the densest boards, yet those are where a router is slow. A board here is
a real game's map (1830 or 18EU) with most hexes upgraded to green, brown or gray tiles of that
game's tile set, rotated so track joins its neighbours, tokens of the operating company and of
rivals, and a few long trains (D, express). Two knobs move the search time: ``track`` (the
fraction of layable hexes filled, grown outward from the company's home like a real network) and
``trains``. Tile counts of the supply are ignored on purpose: no real supply fills a map.
"""

from __future__ import annotations

import random
import re
from functools import lru_cache

from ..board.geometry import neighbour_ids, opposite
from ..board.tiles import parse_code
from ..games import canonical_name, game_data
from ..games.tilelays import empty_cities, preprinted_hex

FIXED_COLOURS = frozenset({"gray", "red", "blue"})  # preprinted hexes no tile replaces
COLOUR_WEIGHTS = {"green": 3, "brown": 4, "gray": 1}  # a late game: mostly brown
UPGRADE_ORDER = ("white", "yellow", "green", "brown", "gray")
PASSES = 3  # re-rotation passes once every neighbour is laid
DEFAULTS = {"tokens": 4, "rivals": 0.35, "company": None}  # left out of a board's id


def train(name: str, index: int = 0) -> dict:
    """A train from its name: ``D`` (unlimited), ``8E`` (express: pays the best 8, visits any),
    ``4+4`` (plus), ``6`` (standard)."""
    distance: int | list[dict]
    if name == "D":
        distance = 999
    elif m := re.fullmatch(r"(\d+)E", name):
        distance = [{"nodes": ["city", "offboard", "town"], "pay": int(m.group(1)), "visit": 99}]
    elif m := re.fullmatch(r"(\d+)\+(\d+)", name):
        distance = [
            {"nodes": ["town"], "pay": int(m.group(2)), "visit": int(m.group(2))},
            {"nodes": ["city", "offboard", "town"], "pay": int(m.group(1)), "visit": int(m.group(1))},
        ]
    elif name.isdigit():
        distance = int(name)
    else:
        raise ValueError(f"unknown train {name!r} (D, 8E, 4+4 or 6)")
    return {"id": f"{name}-{index}", "name": name, "distance": distance}


def _signature(tile) -> tuple:
    """What a tile must keep to replace another: its labels, or else its number of cities and towns."""
    if tile.labels:
        return ("label", tile.labels)
    return ("stops", len(tile.cities), sum(1 for n in tile.nodes if n.kind == "town"))


class _Map:
    """A game's map and tile set, indexed for laying: neighbours, fixed exits, upgrade candidates."""

    def __init__(self, game: str):
        self.data = game_data(game)
        self.layout = self.data["layout"]
        self.hexes = {h["id"]: h for h in self.data["hexes"]}
        self.neighbours = neighbour_ids(list(self.hexes), self.layout)
        for h in self.data["hexes"]:  # track never crosses an impassable border
            for b in h.get("borders") or []:
                if b.get("type") == "impassable":
                    other = self.neighbours[h["id"]].pop(b["edge"], None)
                    if other:
                        self.neighbours[other].pop(opposite(b["edge"]), None)
        self.fixed = {
            hid: set(parse_code(h["code"]).exits(h.get("rotation", 0)))
            for hid, h in self.hexes.items()
            if h.get("color") in FIXED_COLOURS
        }
        tiles = [(t, parse_code(t["code"])) for t in self.data["tiles"]]
        self.candidates = {}  # hex id -> {colour: [(tile, rotation, exits)]}
        for hid, h in self.hexes.items():
            if hid in self.fixed:
                continue
            want = _signature(parse_code(h["code"]))
            above = UPGRADE_ORDER.index(h.get("color") or "white")
            by_colour: dict = {}
            for t, parsed in tiles:
                if _signature(parsed) != want or UPGRADE_ORDER.index(t["color"]) <= above:
                    continue
                for r in _distinct_rotations(parsed):
                    by_colour.setdefault(t["color"], []).append((t, r, set(parsed.exits(r))))
            if by_colour:
                self.candidates[hid] = by_colour


def _distinct_rotations(tile) -> list:
    """Rotations that lay different track (a symmetric tile repeats itself)."""
    seen: dict = {}
    for r in range(6):
        seen.setdefault(frozenset(frozenset((p.a, p.b)) for p in tile.paths_rotated(r)), r)
    return sorted(seen.values())


@lru_cache(maxsize=8)
def _map(game: str) -> _Map:
    return _Map(game)


def _growth_order(m: _Map, start: str, rng: random.Random) -> list:
    """Layable hexes in the order a network spreads from ``start``: each next to one laid before."""
    order, seen = [], {start}
    frontier = [start]
    while frontier:
        hid = frontier.pop(rng.randrange(len(frontier)))
        if hid in m.candidates:
            order.append(hid)
        elif hid != start:
            continue  # fixed hexes (off-boards, gray cities) end a branch of growth
        for other in sorted(m.neighbours[hid].values()):
            if other not in seen:
                seen.add(other)
                frontier.append(other)
    return order


def _score(m: _Map, hid: str, exits: set, laid: dict, region: set) -> int:
    """How well a tile's exits meet the track around it: joined ends score, dead ends cost."""
    score = 0
    for edge, other in m.neighbours[hid].items():
        theirs = m.fixed.get(other, laid.get(other))
        facing = theirs is not None and opposite(edge) in theirs
        if edge in exits:
            if facing:
                score += 3
            elif other in m.fixed:
                score -= 10  # track into a gray or off-board side that has none: not a legal lay
            elif other in laid:
                score -= 1
            elif other not in region:
                score -= 1
        elif facing:
            score -= 1  # leaves the neighbour's track dangling
    score -= 10 * sum(1 for e in exits if e not in m.neighbours[hid])  # off the map
    return score


def _lay(m: _Map, region: list, rng: random.Random) -> dict:
    """Choose a colour per hex, then the tile and rotation of that colour that joins best."""
    colour_of = {}
    for hid in region:
        colours = sorted(m.candidates[hid], key=UPGRADE_ORDER.index)
        late = [c for c in colours if c in COLOUR_WEIGHTS]
        colour_of[hid] = rng.choices(late, [COLOUR_WEIGHTS[c] for c in late])[0] if late else colours[-1]
    laid: dict = {}
    choice: dict = {}
    members = set(region)
    for _ in range(PASSES + 1):
        for hid in region:
            options = m.candidates[hid][colour_of[hid]]
            laid.pop(hid, None)
            scored = [(_score(m, hid, exits, laid, members), k) for k, (_, _, exits) in enumerate(options)]
            top = max(s for s, _ in scored)
            best = [k for s, k in scored if s == top]
            keep = choice.get(hid)
            k = keep if keep in best else rng.choice(best)  # settle: move only to a strictly better lay
            choice[hid] = k
            laid[hid] = options[k][2]
    return {hid: m.candidates[hid][colour_of[hid]][choice[hid]] for hid in region}


def synthetic_board(
    seed: int = 0,
    *,
    game: str = "1830",
    track: float = 1.0,
    trains=("D", "8E"),
    tokens: int = 4,
    rivals: float = 0.35,
    company: str | None = None,
) -> dict:
    """A dense late-game board-state document (the corpus format), the same for the same arguments.

    The full map is laid and tokened first, then cut to the first ``track`` of its growth order:
    a board with less track is the same board with its outer hexes left blank, so search time
    can be compared along ``track``.

    Parameters
    ----------
    seed : int
        Picks the growth of the network, the tiles, rotations and tokens.
    game : str
        A built-in game whose map and tile set are used (1830 and 18EU give the densest track).
    track : float
        Fraction (0, 1] of the layable hexes that get a tile, grown outward from the company's home.
    trains : sequence of str
        Train names as :func:`train` reads them.
    tokens : int
        Tokens of the operating company (its home included), in cities of the laid region.
    rivals : float
        Chance that each other city slot holds a rival's token (full cities block).
    company : str, optional
        The operating company; default the game's first company with a home hex.
    """
    if not 0 < track <= 1:
        raise ValueError(f"track must be a fraction in (0, 1], not {track!r}")
    title = canonical_name(game) or game
    m = _map(title)
    rng = random.Random(f"{title}/{seed}/{company}")
    corps = [c for c in m.data["corporations"] if c.get("coordinates") in m.hexes]
    corp = next((c for c in corps if c["id"] == company), None) if company else corps[0]
    if corp is None:
        raise ValueError(f"no company {company!r} with a home hex in {title}")
    home = corp["coordinates"]

    order = _growth_order(m, home, rng)
    lays = _lay(m, order, rng)  # the full map; the cut below keeps a prefix of the growth
    cities = [hid for hid in order if any(c.get("slots") for c in empty_cities(lays[hid][0]["code"]))]
    ours = rng.sample(cities, len(cities))  # where our tokens go, first come first served
    rival_seed = rng.randrange(1 << 30)

    region = order[: max(1, round(track * len(order)))]
    hexes = {hid: preprinted_hex(h) for hid, h in m.hexes.items()}
    for hid in region:
        tile, rotation, _ = lays[hid]
        hexes[hid].update(tile=tile["name"], code=tile["code"], color=tile["color"], rotation=rotation)
        hexes[hid]["cities"] = empty_cities(tile["code"])
    laid = set(region)
    _place_tokens(
        hexes,
        corp["id"],
        [home] + [h for h in ours if h in laid and h != home][: tokens - 1],
        sorted(c["id"] for c in m.data["corporations"] if c["id"] != corp["id"]),
        rivals,
        rival_seed,
    )
    phase = m.data["phases"][-1]
    extra = "".join(
        f"/{k}{v}" for k, v in (("tokens", tokens), ("rivals", rivals), ("company", company)) if v != DEFAULTS[k]
    )
    return {
        "id": f"synthetic/{title}/track{track:g}/{'-'.join(trains)}/seed{seed}{extra}",
        "game": title,
        "layout": m.layout,
        "phase": {"name": str(phase["name"]), "tiles": list(phase["tiles"])},
        "corporation": {"id": corp["id"], "name": corp.get("name") or corp["id"]},
        "trains": [train(t, i) for i, t in enumerate(trains)],
        "hexes": list(hexes.values()),
    }


def _place_tokens(hexes, company, ours, others, rivals, seed) -> None:
    """Our tokens in the given hexes; then each free slot elsewhere holds a rival's token with
    chance ``rivals``, drawn per hex so that a hex's rivals do not depend on the cut."""
    for hid in ours:
        city = next((c for c in hexes[hid]["cities"] if c.get("slots") and None in c["tokens"]), None)
        if city is None:
            raise ValueError(f"hex {hid} has no free city slot for {company}")
        city["tokens"][city["tokens"].index(None)] = company
    for hid, h in hexes.items():
        if hid in ours:
            continue
        rng = random.Random(f"{seed}/{hid}")
        for city in h["cities"]:
            for k, holder in enumerate(city["tokens"]):
                if holder is None and rng.random() < rivals:
                    city["tokens"][k] = rng.choice(others)
