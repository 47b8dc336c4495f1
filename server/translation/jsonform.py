"""Requests and answers in the proto3 JSON mapping, with the board-state document accepted as ``board``.

Protobuf's own ``json_format`` does the mapping (lowerCamelCase written, lowerCamelCase and
snake_case read). A web client holding a board-state document should be able to send it as it is,
``{"board": <document>}``; four things in a real document are not the proto3 JSON of ``Board``,
and :func:`board_document_to_json` rewrites just those before parsing, so the proto stays as it is:

- a train's ``distance`` is an integer or a list of rows (``Distance`` is ``{stops}`` or ``{rows}``);
- an empty token slot or reservation is ``null`` (a repeated string holds ``""`` for it);
- a hex cut off on every edge gives ``"neighbors": {}`` (the proto says ``noNeighbors: true``);
- the corpus's answer and provenance fields (``expected``, a hex's ``exits``/``nodes``/``paths``,
  ...) are not input, and are dropped by name; any other unknown field is still an error.
"""

from __future__ import annotations

from google.protobuf import json_format, message_factory

from optimizer.errors import OptimizerError

# The corpus's non-input fields (see the corpus README): answers and provenance, never read.
ANSWER_FIELDS = {
    "board": {"expected", "game_key", "fixture", "action_id", "engine_commit", "entity_mismatch"},
    "corporation": {"flags", "engine_type", "class"},
    "hex": {"exits", "nodes", "paths", "all_neighbors"},
}
CITY_LISTS = ("tokens", "reservations", "token_types", "extra_tokens", "extra_reservations")


def _without(doc: dict, names) -> dict:
    return {k: v for k, v in doc.items() if k not in names}


def board_document_to_json(doc):
    """The proto3 JSON of ``Board`` for a board-state document (already proto3 JSON: unchanged)."""
    if not isinstance(doc, dict):
        return doc  # json_format names the type error
    out = _without(doc, ANSWER_FIELDS["board"])
    if isinstance(out.get("corporation"), dict):
        out["corporation"] = _without(out["corporation"], ANSWER_FIELDS["corporation"])
    if isinstance(out.get("trains"), list):
        out["trains"] = [_train(t) for t in out["trains"]]
    if isinstance(out.get("hexes"), list):
        out["hexes"] = [_hex(h) for h in out["hexes"]]
    return out


def _train(train):
    if not isinstance(train, dict):
        return train
    distance = train.get("distance")
    if isinstance(distance, bool) or distance is None:
        return train
    if isinstance(distance, int):
        return train | {"distance": {"stops": distance}}
    if isinstance(distance, list):
        return train | {"distance": {"rows": distance}}
    return train


def _hex(hx):
    if not isinstance(hx, dict):
        return hx
    out = _without(hx, ANSWER_FIELDS["hex"])
    if out.get("neighbors") == {} and "noNeighbors" not in out and "no_neighbors" not in out:
        out["noNeighbors"] = True  # given, and none: what the proto says with no_neighbors
    if out.get("hex_tokens") == [] and "noHexTokens" not in out and "no_hex_tokens" not in out:
        out["noHexTokens"] = True  # given, and none: what the proto says with no_hex_tokens
    if isinstance(out.get("hex_tokens"), list):
        out["hex_tokens"] = [_hex_token(t) for t in out["hex_tokens"]]
    if isinstance(out.get("cities"), list):
        out["cities"] = [_city(c) for c in out["cities"]]
    return out


def _hex_token(token):
    """A player id given as a number (the document takes either) as the proto's string."""
    player = token.get("player") if isinstance(token, dict) else None
    if isinstance(player, int) and not isinstance(player, bool):
        return token | {"player": str(player)}
    return token


def _city(city):
    if not isinstance(city, dict):
        return city
    out = dict(city)
    for name in CITY_LISTS:
        if isinstance(out.get(name), list):
            out[name] = ["" if v is None else v for v in out[name]]
    return out


def parse_request(obj, message_class):
    """A request message from its JSON object; a ``board`` may be a board-state document.

    Raises :class:`OptimizerError` naming the field (the proto3 JSON path, e.g.
    ``board.hexes[3].rotation``) when the JSON is not a valid request.
    """
    if not isinstance(obj, dict):
        raise OptimizerError("the request body must be a JSON object", field="(body)")
    if "board" in obj:
        obj = obj | {"board": board_document_to_json(obj["board"])}
    obj, state_json = _take_state_json(obj)
    message = message_class()
    try:
        json_format.ParseDict(obj, message)
        if state_json is not None:
            if message.WhichOneof("source") is not None:
                raise json_format.ParseError("give board or stateJson, not both")
            message.state_json = state_json
    except json_format.ParseError as err:
        field = _field_of(obj, message_class)
        raise OptimizerError(
            f"{field}: not a valid {message_class.DESCRIPTOR.name} in JSON ({err})", field=field
        ) from None
    return message


def _take_state_json(obj: dict) -> tuple:
    """``obj`` without a string ``stateJson``, and that string (checked as json_format would).

    json_format looks for unpaired surrogates in a string with a regular expression: 2 ms on a
    24 kB board, half of a whole answer. Encoding it as UTF-8 is the same check, done in C.
    """
    for key in ("stateJson", "state_json"):
        text = obj.get(key)
        if isinstance(text, str):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                return obj, None  # json_format names the problem
            return {k: v for k, v in obj.items() if k != key}, text
    return obj, None


def _field_of(obj: dict, message_class) -> str:
    """The path of the first field json_format refuses, e.g. ``hexes[3].rotation``.

    json_format's message does not name every field on the way, so each field is tried alone,
    descending into the one that fails. A board's fields are named as in the document (no
    ``board.`` prefix), as the service names them whichever form the board came in.
    """
    path = _locate(obj, message_class, "")
    return path[len("board.") :] if path.startswith("board.") else path


def _fails(obj: dict, message_class) -> bool:
    try:
        json_format.ParseDict(obj, message_class())
    except json_format.ParseError:
        return True
    return False


def _locate(obj: dict, message_class, path: str) -> str:
    descriptor = message_class.DESCRIPTOR
    for key, value in obj.items():
        if not _fails({key: value}, message_class):
            continue
        here = f"{path}.{key}" if path else key
        field = descriptor.fields_by_camelcase_name.get(key) or descriptor.fields_by_name.get(key)
        if field is None or field.message_type is None or field.message_type.GetOptions().map_entry:
            return here
        inner = message_factory.GetMessageClass(field.message_type)
        if field.is_repeated and isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, dict) and _fails(item, inner):
                    return _locate(item, inner, f"{here}[{i}]")
                if not isinstance(item, dict):
                    return f"{here}[{i}]"
        if isinstance(value, dict) and not field.is_repeated:
            return _locate(value, inner, here)
        return here
    return path or "(body)"


def to_json(message) -> dict:
    """A message in the proto3 JSON mapping (lowerCamelCase; defaults such as ``optimal: false`` written)."""
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
