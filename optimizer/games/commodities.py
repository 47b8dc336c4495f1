"""Commodities (``commodities``): a route whose track crosses the hex of a commodity the company may
deliver and the hex of one of that commodity's markets earns the commodity's value, once a commodity.

18 India (lib/engine/game/g_18_india/game.rb#commodity_bonus, #route_commodities, #visit_jewelery,
#available_commodities, COMMODITY_BONUSES, SPICE_BONUSES): the location names of ``route.all_hexes``
(every hex its paths cross), with ``JEWELRY`` where they cross the hex P6 assigned (step/assign.rb
#process_assign: the assigning company claims the jewelry concession), are matched against the
commodities available to the company: its own claims (the ``commodities`` ability's description,
g_18_india/corporation.rb, #claim_concession: ``ORE`` and ``TEA`` are two sources each) and the ones
nobody has claimed. Spices pay the best ``SPICE_BONUSES`` entry among the names crossed. Which
commodities another company has claimed, and so which are still nobody's, the board document does not
say (``@unclaimed_commodities`` is the game's): here a company is paid only the commodities it has
claimed itself, so that no route is priced above what the engine pays it (one delivering a commodity
nobody has claimed yet is paid less here than by the engine).
"""

from __future__ import annotations

JEWELRY = "JEWELRY"


def claimed_here(company, ability: str) -> set:
    """The concessions the company has claimed (its ability's description: ``Commodities: ORE TEA``)."""
    for a in company.abilities:
        if a.get("type") == ability:
            text = str(a.get("description") or "")
            return set(text.partition(":")[2].split())
    return set()


def goods_terms(board, company, rule: dict | None, segments: list) -> tuple:
    """(bits crossed per segment, terms): each term (source bit, markets' mask, value, spice
    ((bit, value), ...)) for a commodity available to the company; ((), ()) without the rule."""
    if not rule:
        return (), ()
    bonuses, spices = rule["bonuses"], rule.get("spices", {})
    jewel_hexes = {hx.id for hx in board.hexes.values() if hx.assignments.get(rule["jewelry_assignment"])}
    own = claimed_here(company, rule["ability"])
    bit_of: dict = {}

    def bit(name: str) -> int:
        return 1 << bit_of.setdefault(name, len(bit_of))

    terms = []
    for source, b in bonuses.items():
        if b["commodity"] not in own:
            continue  # another company's, or nobody's: the board document does not say which (see above)
        markets = 0
        for name in b["locations"]:
            markets |= bit(name)
        spice = tuple((bit(name), int(v)) for name, v in spices.items()) if b.get("value") is None else ()
        terms.append((bit(source), markets, int(b["value"] or 0), spice))
    by_seg = []
    for seg in segments:
        mask = 0
        for h in seg.hexes:
            hx = board.hexes.get(h)
            if hx is None:
                continue
            if hx.location_name in bit_of:
                mask |= 1 << bit_of[hx.location_name]
            if h in jewel_hexes and JEWELRY in bit_of:
                mask |= 1 << bit_of[JEWELRY]
        by_seg.append(mask)
    return tuple(by_seg), tuple(terms)


def goods_bonus(problem, segs) -> int:
    """What the commodities earn on a route over these segments."""
    if not problem.goods_terms or not segs:
        return 0
    crossed = 0
    for k in segs:
        crossed |= problem.goods_bits_by_seg[k]
    total = 0
    for source, markets, value, spice in problem.goods_terms:
        if crossed & source and crossed & markets:
            total += value if not spice else max([v for b, v in spice if crossed & b], default=0)
    return total
