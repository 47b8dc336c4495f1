"""Every board the engine draws is read: the catalogue's 772 states (97 more titles), by both readers.

The catalogue (``catalog/states`` of the corpus) holds boards the engine draws with its own
tolerance: lower-case and negative hex ids, partitions, stripes, future track, halts, towns that
upgrade to cities, trailing commas, edge 6, an edge joined to itself, codes with a missing ``;``, a
hex listed twice, train rows without ``visit`` or with node types no tile has. Each state must be
read by the reference reader and the fast reader alike, into the same board, with the engine's own
view of the track (each hex's ``exits``, an answer field the readers never see) matched.
"""

from __future__ import annotations

import json

import pytest

from optimizer.board.state import read_board_fast, read_board_reference
from optimizer.model.trains import spec_from_train

from .corpus import catalogue_states

STATES = catalogue_states()
TITLES = sorted({s["id"].split("/")[0] for s in STATES})


def _summary(board) -> tuple:
    """What a read board holds, in plain values, to compare the two readers."""
    hexes = tuple(
        (
            hx.id,
            hx.tile.code,
            hx.rotation,
            hx.color,
            tuple(sorted(hx.neighbors.items())),
            tuple((n, c.slots, tuple(c.tokens), tuple(c.neutral)) for n, c in sorted(hx.cities.items())),
        )
        for hx in board.hexes.values()
    )
    trains = tuple((t.id, t.name, json.dumps(t.distance, sort_keys=True), t.multiplier) for t in board.trains)
    return board.game, board.layout, board.phase_name, tuple(board.phase_tiles), board.company.id, hexes, trains


def test_the_catalogue_is_there():
    """Without a corpus there is nothing to read (``tests/corpus.py`` fails under ``CI=true``)."""
    if not STATES:
        pytest.skip("no corpus here (not under CI)")
    assert len(STATES) >= 700 and len(TITLES) >= 90


@pytest.mark.corpus
@pytest.mark.parametrize("title", TITLES)
def test_every_catalogue_state_is_read_by_both_readers_alike(title):
    for doc in (s for s in STATES if s["id"].split("/")[0] == title):
        text = json.dumps(doc)
        reference = read_board_reference(json.loads(text))
        fast_dict, fast_text = read_board_fast(json.loads(text)), read_board_fast(text)
        assert _summary(reference) == _summary(fast_dict) == _summary(fast_text), doc["id"]
        for h in doc["hexes"]:
            hx = reference.hexes[h["id"]]
            if "exits" in h and hx.tile.code == h["code"]:  # the engine's own view of the track
                assert sorted(hx.tile.exits(hx.rotation)) == sorted(h["exits"]), (doc["id"], h["id"])
        for t in reference.trains:
            spec_from_train(t)  # every train has caps the search can use


@pytest.mark.corpus
def test_18rhl_reads_the_later_g8():
    """18Rhl's map lists G8 twice; the later listing (its impassable border) stands, as in the engine."""
    if not STATES:
        pytest.skip("no corpus here (not under CI)")
    doc = next(s for s in STATES if s["id"].startswith("18Rhl/"))
    listings = [h for h in doc["hexes"] if h["id"] == "G8"]
    assert len(listings) == 2
    board = read_board_fast(json.dumps(doc))
    assert board.hexes["G8"].borders == [(4, "impassable")] and 4 not in board.hexes["G8"].neighbors


@pytest.mark.corpus
@pytest.mark.parametrize("title", TITLES)
def test_every_catalogue_board_reads_alike_as_a_board_message(title):
    """The proto's ``Board`` carries every catalogue board (a row without ``visit``, a hex cut off on
    every edge: ``no_neighbors``), from a document converted or sent as HTTP's proto3 JSON: the
    server's fast path and the long way read the board the document reads to."""
    from server.generated.route18xx.v1 import route_optimizer_pb2 as pb
    from server.runtime import limits
    from server.translation import convert, jsonform, service

    for doc in (s for s in STATES if s["id"].split("/")[0] == title):
        expected = _summary(read_board_reference(json.loads(json.dumps(doc))))
        by_http = jsonform.parse_request({"board": json.loads(json.dumps(doc))}, pb.OptimizeRequest).board
        for board in (pb.Board.FromString(convert.state_to_board(doc).SerializeToString()), by_http):
            fast = service.read_state(pb.OptimizeRequest(board=board), limits.Limits())
            long_way = read_board_reference(convert.board_to_state(board))
            assert _summary(fast) == _summary(long_way) == expected, doc["id"]
