from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class OptimizeRequest(_message.Message):
    __slots__ = ("board", "state_json", "node_budget")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    NODE_BUDGET_FIELD_NUMBER: _ClassVar[int]
    board: Board
    state_json: str
    node_budget: int
    def __init__(self, board: _Optional[_Union[Board, _Mapping]] = ..., state_json: _Optional[str] = ..., node_budget: _Optional[int] = ...) -> None: ...

class OptimizeResponse(_message.Message):
    __slots__ = ("solution",)
    SOLUTION_FIELD_NUMBER: _ClassVar[int]
    solution: Solution
    def __init__(self, solution: _Optional[_Union[Solution, _Mapping]] = ...) -> None: ...

class OptimizeStreamRequest(_message.Message):
    __slots__ = ("board", "state_json", "node_budget")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    NODE_BUDGET_FIELD_NUMBER: _ClassVar[int]
    board: Board
    state_json: str
    node_budget: int
    def __init__(self, board: _Optional[_Union[Board, _Mapping]] = ..., state_json: _Optional[str] = ..., node_budget: _Optional[int] = ...) -> None: ...

class OptimizeStreamResponse(_message.Message):
    __slots__ = ("solution", "final")
    SOLUTION_FIELD_NUMBER: _ClassVar[int]
    FINAL_FIELD_NUMBER: _ClassVar[int]
    solution: Solution
    final: bool
    def __init__(self, solution: _Optional[_Union[Solution, _Mapping]] = ..., final: _Optional[bool] = ...) -> None: ...

class CheckRoutesRequest(_message.Message):
    __slots__ = ("board", "state_json", "routes", "routes_json", "with_optimum")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    STATE_JSON_FIELD_NUMBER: _ClassVar[int]
    ROUTES_FIELD_NUMBER: _ClassVar[int]
    ROUTES_JSON_FIELD_NUMBER: _ClassVar[int]
    WITH_OPTIMUM_FIELD_NUMBER: _ClassVar[int]
    board: Board
    state_json: str
    routes: _containers.RepeatedCompositeFieldContainer[RouteInput]
    routes_json: str
    with_optimum: bool
    def __init__(self, board: _Optional[_Union[Board, _Mapping]] = ..., state_json: _Optional[str] = ..., routes: _Optional[_Iterable[_Union[RouteInput, _Mapping]]] = ..., routes_json: _Optional[str] = ..., with_optimum: _Optional[bool] = ...) -> None: ...

class CheckRoutesResponse(_message.Message):
    __slots__ = ("legal", "revenue", "routes", "optimum", "errors")
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    REVENUE_FIELD_NUMBER: _ClassVar[int]
    ROUTES_FIELD_NUMBER: _ClassVar[int]
    OPTIMUM_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    legal: bool
    revenue: int
    routes: _containers.RepeatedCompositeFieldContainer[RouteCheck]
    optimum: Solution
    errors: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, legal: _Optional[bool] = ..., revenue: _Optional[int] = ..., routes: _Optional[_Iterable[_Union[RouteCheck, _Mapping]]] = ..., optimum: _Optional[_Union[Solution, _Mapping]] = ..., errors: _Optional[_Iterable[str]] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games", "train_kinds", "other_titles")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    TRAIN_KINDS_FIELD_NUMBER: _ClassVar[int]
    OTHER_TITLES_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[Game]
    train_kinds: _containers.RepeatedScalarFieldContainer[str]
    other_titles: _containers.RepeatedCompositeFieldContainer[TitleCoverage]
    def __init__(self, games: _Optional[_Iterable[_Union[Game, _Mapping]]] = ..., train_kinds: _Optional[_Iterable[str]] = ..., other_titles: _Optional[_Iterable[_Union[TitleCoverage, _Mapping]]] = ...) -> None: ...

class Board(_message.Message):
    __slots__ = ("id", "game", "layout", "phase", "corporation", "trains", "hexes")
    ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    LAYOUT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    CORPORATION_FIELD_NUMBER: _ClassVar[int]
    TRAINS_FIELD_NUMBER: _ClassVar[int]
    HEXES_FIELD_NUMBER: _ClassVar[int]
    id: str
    game: str
    layout: str
    phase: Phase
    corporation: Corporation
    trains: _containers.RepeatedCompositeFieldContainer[Train]
    hexes: _containers.RepeatedCompositeFieldContainer[Hex]
    def __init__(self, id: _Optional[str] = ..., game: _Optional[str] = ..., layout: _Optional[str] = ..., phase: _Optional[_Union[Phase, _Mapping]] = ..., corporation: _Optional[_Union[Corporation, _Mapping]] = ..., trains: _Optional[_Iterable[_Union[Train, _Mapping]]] = ..., hexes: _Optional[_Iterable[_Union[Hex, _Mapping]]] = ...) -> None: ...

class Phase(_message.Message):
    __slots__ = ("name", "tiles")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    name: str
    tiles: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., tiles: _Optional[_Iterable[str]] = ...) -> None: ...

class Corporation(_message.Message):
    __slots__ = ("id", "name", "type", "minor", "owner", "companies", "president_companies", "abilities", "ferry_marker", "assignments")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    MINOR_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    COMPANIES_FIELD_NUMBER: _ClassVar[int]
    PRESIDENT_COMPANIES_FIELD_NUMBER: _ClassVar[int]
    ABILITIES_FIELD_NUMBER: _ClassVar[int]
    FERRY_MARKER_FIELD_NUMBER: _ClassVar[int]
    ASSIGNMENTS_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    type: str
    minor: bool
    owner: str
    companies: _containers.RepeatedScalarFieldContainer[str]
    president_companies: _containers.RepeatedScalarFieldContainer[str]
    abilities: _containers.RepeatedCompositeFieldContainer[Ability]
    ferry_marker: bool
    assignments: _struct_pb2.Struct
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., type: _Optional[str] = ..., minor: _Optional[bool] = ..., owner: _Optional[str] = ..., companies: _Optional[_Iterable[str]] = ..., president_companies: _Optional[_Iterable[str]] = ..., abilities: _Optional[_Iterable[_Union[Ability, _Mapping]]] = ..., ferry_marker: _Optional[bool] = ..., assignments: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class Ability(_message.Message):
    __slots__ = ("type", "description", "owner", "hexes", "amount")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    HEXES_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    type: str
    description: str
    owner: str
    hexes: _containers.RepeatedScalarFieldContainer[str]
    amount: float
    def __init__(self, type: _Optional[str] = ..., description: _Optional[str] = ..., owner: _Optional[str] = ..., hexes: _Optional[_Iterable[str]] = ..., amount: _Optional[float] = ...) -> None: ...

class Train(_message.Message):
    __slots__ = ("id", "name", "distance", "price", "multiplier", "requires_token", "local", "owner", "pullman")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DISTANCE_FIELD_NUMBER: _ClassVar[int]
    PRICE_FIELD_NUMBER: _ClassVar[int]
    MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    REQUIRES_TOKEN_FIELD_NUMBER: _ClassVar[int]
    LOCAL_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    PULLMAN_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    distance: Distance
    price: float
    multiplier: int
    requires_token: bool
    local: bool
    owner: str
    pullman: bool
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., distance: _Optional[_Union[Distance, _Mapping]] = ..., price: _Optional[float] = ..., multiplier: _Optional[int] = ..., requires_token: _Optional[bool] = ..., local: _Optional[bool] = ..., owner: _Optional[str] = ..., pullman: _Optional[bool] = ...) -> None: ...

class Distance(_message.Message):
    __slots__ = ("stops", "rows")
    STOPS_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    stops: int
    rows: _containers.RepeatedCompositeFieldContainer[DistanceRow]
    def __init__(self, stops: _Optional[int] = ..., rows: _Optional[_Iterable[_Union[DistanceRow, _Mapping]]] = ...) -> None: ...

class DistanceRow(_message.Message):
    __slots__ = ("nodes", "pay", "visit", "multiplier")
    NODES_FIELD_NUMBER: _ClassVar[int]
    PAY_FIELD_NUMBER: _ClassVar[int]
    VISIT_FIELD_NUMBER: _ClassVar[int]
    MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedScalarFieldContainer[str]
    pay: int
    visit: int
    multiplier: int
    def __init__(self, nodes: _Optional[_Iterable[str]] = ..., pay: _Optional[int] = ..., visit: _Optional[int] = ..., multiplier: _Optional[int] = ...) -> None: ...

class Hex(_message.Message):
    __slots__ = ("id", "tile", "color", "rotation", "code", "location_name", "neighbors", "borders", "cities", "tile_reservations", "assignments", "no_neighbors", "hex_tokens", "no_hex_tokens")
    class NeighborsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: str
        def __init__(self, key: _Optional[int] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    COLOR_FIELD_NUMBER: _ClassVar[int]
    ROTATION_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    LOCATION_NAME_FIELD_NUMBER: _ClassVar[int]
    NEIGHBORS_FIELD_NUMBER: _ClassVar[int]
    BORDERS_FIELD_NUMBER: _ClassVar[int]
    CITIES_FIELD_NUMBER: _ClassVar[int]
    TILE_RESERVATIONS_FIELD_NUMBER: _ClassVar[int]
    ASSIGNMENTS_FIELD_NUMBER: _ClassVar[int]
    NO_NEIGHBORS_FIELD_NUMBER: _ClassVar[int]
    HEX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    NO_HEX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    id: str
    tile: str
    color: str
    rotation: int
    code: str
    location_name: str
    neighbors: _containers.ScalarMap[int, str]
    borders: _containers.RepeatedCompositeFieldContainer[Border]
    cities: _containers.RepeatedCompositeFieldContainer[City]
    tile_reservations: _containers.RepeatedScalarFieldContainer[str]
    assignments: _struct_pb2.Struct
    no_neighbors: bool
    hex_tokens: _containers.RepeatedCompositeFieldContainer[HexToken]
    no_hex_tokens: bool
    def __init__(self, id: _Optional[str] = ..., tile: _Optional[str] = ..., color: _Optional[str] = ..., rotation: _Optional[int] = ..., code: _Optional[str] = ..., location_name: _Optional[str] = ..., neighbors: _Optional[_Mapping[int, str]] = ..., borders: _Optional[_Iterable[_Union[Border, _Mapping]]] = ..., cities: _Optional[_Iterable[_Union[City, _Mapping]]] = ..., tile_reservations: _Optional[_Iterable[str]] = ..., assignments: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., no_neighbors: _Optional[bool] = ..., hex_tokens: _Optional[_Iterable[_Union[HexToken, _Mapping]]] = ..., no_hex_tokens: _Optional[bool] = ...) -> None: ...

class HexToken(_message.Message):
    __slots__ = ("owner", "type", "player")
    OWNER_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    owner: str
    type: str
    player: str
    def __init__(self, owner: _Optional[str] = ..., type: _Optional[str] = ..., player: _Optional[str] = ...) -> None: ...

class Border(_message.Message):
    __slots__ = ("edge", "type", "cost")
    EDGE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    COST_FIELD_NUMBER: _ClassVar[int]
    edge: int
    type: str
    cost: float
    def __init__(self, edge: _Optional[int] = ..., type: _Optional[str] = ..., cost: _Optional[float] = ...) -> None: ...

class City(_message.Message):
    __slots__ = ("index", "slots", "tokens", "reservations", "token_types", "extra_tokens", "extra_reservations")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    SLOTS_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    RESERVATIONS_FIELD_NUMBER: _ClassVar[int]
    TOKEN_TYPES_FIELD_NUMBER: _ClassVar[int]
    EXTRA_TOKENS_FIELD_NUMBER: _ClassVar[int]
    EXTRA_RESERVATIONS_FIELD_NUMBER: _ClassVar[int]
    index: int
    slots: int
    tokens: _containers.RepeatedScalarFieldContainer[str]
    reservations: _containers.RepeatedScalarFieldContainer[str]
    token_types: _containers.RepeatedScalarFieldContainer[str]
    extra_tokens: _containers.RepeatedScalarFieldContainer[str]
    extra_reservations: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, index: _Optional[int] = ..., slots: _Optional[int] = ..., tokens: _Optional[_Iterable[str]] = ..., reservations: _Optional[_Iterable[str]] = ..., token_types: _Optional[_Iterable[str]] = ..., extra_tokens: _Optional[_Iterable[str]] = ..., extra_reservations: _Optional[_Iterable[str]] = ...) -> None: ...

class RouteInput(_message.Message):
    __slots__ = ("train", "stops", "hexes")
    TRAIN_FIELD_NUMBER: _ClassVar[int]
    STOPS_FIELD_NUMBER: _ClassVar[int]
    HEXES_FIELD_NUMBER: _ClassVar[int]
    train: str
    stops: _containers.RepeatedScalarFieldContainer[str]
    hexes: _containers.RepeatedCompositeFieldContainer[HexChain]
    def __init__(self, train: _Optional[str] = ..., stops: _Optional[_Iterable[str]] = ..., hexes: _Optional[_Iterable[_Union[HexChain, _Mapping]]] = ...) -> None: ...

class Solution(_message.Message):
    __slots__ = ("id", "revenue", "optimal", "bound", "routes", "elapsed_ms", "stats", "rules", "revenue_rules", "unsupported")
    ID_FIELD_NUMBER: _ClassVar[int]
    REVENUE_FIELD_NUMBER: _ClassVar[int]
    OPTIMAL_FIELD_NUMBER: _ClassVar[int]
    BOUND_FIELD_NUMBER: _ClassVar[int]
    ROUTES_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    STATS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    REVENUE_RULES_FIELD_NUMBER: _ClassVar[int]
    UNSUPPORTED_FIELD_NUMBER: _ClassVar[int]
    id: str
    revenue: int
    optimal: bool
    bound: int
    routes: _containers.RepeatedCompositeFieldContainer[RouteResult]
    elapsed_ms: float
    stats: SearchStats
    rules: str
    revenue_rules: _containers.RepeatedScalarFieldContainer[str]
    unsupported: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., revenue: _Optional[int] = ..., optimal: _Optional[bool] = ..., bound: _Optional[int] = ..., routes: _Optional[_Iterable[_Union[RouteResult, _Mapping]]] = ..., elapsed_ms: _Optional[float] = ..., stats: _Optional[_Union[SearchStats, _Mapping]] = ..., rules: _Optional[str] = ..., revenue_rules: _Optional[_Iterable[str]] = ..., unsupported: _Optional[_Iterable[str]] = ...) -> None: ...

class RouteResult(_message.Message):
    __slots__ = ("train", "name", "revenue", "stops", "paid", "hexes", "nodes")
    TRAIN_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REVENUE_FIELD_NUMBER: _ClassVar[int]
    STOPS_FIELD_NUMBER: _ClassVar[int]
    PAID_FIELD_NUMBER: _ClassVar[int]
    HEXES_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    train: str
    name: str
    revenue: int
    stops: _containers.RepeatedScalarFieldContainer[str]
    paid: _containers.RepeatedScalarFieldContainer[str]
    hexes: _containers.RepeatedCompositeFieldContainer[HexChain]
    nodes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, train: _Optional[str] = ..., name: _Optional[str] = ..., revenue: _Optional[int] = ..., stops: _Optional[_Iterable[str]] = ..., paid: _Optional[_Iterable[str]] = ..., hexes: _Optional[_Iterable[_Union[HexChain, _Mapping]]] = ..., nodes: _Optional[_Iterable[str]] = ...) -> None: ...

class HexChain(_message.Message):
    __slots__ = ("hexes",)
    HEXES_FIELD_NUMBER: _ClassVar[int]
    hexes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, hexes: _Optional[_Iterable[str]] = ...) -> None: ...

class SearchStats(_message.Message):
    __slots__ = ("nodes", "stopped_by", "core", "stops", "segments", "search_ms", "deadline_ms", "deadline_from", "read_ms", "graph_ms", "encode_ms")
    NODES_FIELD_NUMBER: _ClassVar[int]
    STOPPED_BY_FIELD_NUMBER: _ClassVar[int]
    CORE_FIELD_NUMBER: _ClassVar[int]
    STOPS_FIELD_NUMBER: _ClassVar[int]
    SEGMENTS_FIELD_NUMBER: _ClassVar[int]
    SEARCH_MS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FROM_FIELD_NUMBER: _ClassVar[int]
    READ_MS_FIELD_NUMBER: _ClassVar[int]
    GRAPH_MS_FIELD_NUMBER: _ClassVar[int]
    ENCODE_MS_FIELD_NUMBER: _ClassVar[int]
    nodes: int
    stopped_by: str
    core: str
    stops: int
    segments: int
    search_ms: float
    deadline_ms: float
    deadline_from: str
    read_ms: float
    graph_ms: float
    encode_ms: float
    def __init__(self, nodes: _Optional[int] = ..., stopped_by: _Optional[str] = ..., core: _Optional[str] = ..., stops: _Optional[int] = ..., segments: _Optional[int] = ..., search_ms: _Optional[float] = ..., deadline_ms: _Optional[float] = ..., deadline_from: _Optional[str] = ..., read_ms: _Optional[float] = ..., graph_ms: _Optional[float] = ..., encode_ms: _Optional[float] = ...) -> None: ...

class RouteCheck(_message.Message):
    __slots__ = ("train", "legal", "revenue", "stops", "paid", "errors", "hexes")
    TRAIN_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    REVENUE_FIELD_NUMBER: _ClassVar[int]
    STOPS_FIELD_NUMBER: _ClassVar[int]
    PAID_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    HEXES_FIELD_NUMBER: _ClassVar[int]
    train: str
    legal: bool
    revenue: int
    stops: _containers.RepeatedScalarFieldContainer[str]
    paid: _containers.RepeatedScalarFieldContainer[str]
    errors: _containers.RepeatedScalarFieldContainer[str]
    hexes: _containers.RepeatedCompositeFieldContainer[HexChain]
    def __init__(self, train: _Optional[str] = ..., legal: _Optional[bool] = ..., revenue: _Optional[int] = ..., stops: _Optional[_Iterable[str]] = ..., paid: _Optional[_Iterable[str]] = ..., errors: _Optional[_Iterable[str]] = ..., hexes: _Optional[_Iterable[_Union[HexChain, _Mapping]]] = ...) -> None: ...

class Game(_message.Message):
    __slots__ = ("title", "layout", "trains", "phases", "rules", "revenue_rules", "unsupported")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    LAYOUT_FIELD_NUMBER: _ClassVar[int]
    TRAINS_FIELD_NUMBER: _ClassVar[int]
    PHASES_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    REVENUE_RULES_FIELD_NUMBER: _ClassVar[int]
    UNSUPPORTED_FIELD_NUMBER: _ClassVar[int]
    title: str
    layout: str
    trains: _containers.RepeatedCompositeFieldContainer[GameTrain]
    phases: _containers.RepeatedCompositeFieldContainer[GamePhase]
    rules: str
    revenue_rules: _containers.RepeatedScalarFieldContainer[str]
    unsupported: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, title: _Optional[str] = ..., layout: _Optional[str] = ..., trains: _Optional[_Iterable[_Union[GameTrain, _Mapping]]] = ..., phases: _Optional[_Iterable[_Union[GamePhase, _Mapping]]] = ..., rules: _Optional[str] = ..., revenue_rules: _Optional[_Iterable[str]] = ..., unsupported: _Optional[_Iterable[str]] = ...) -> None: ...

class TitleCoverage(_message.Message):
    __slots__ = ("title", "rules", "unsupported")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    UNSUPPORTED_FIELD_NUMBER: _ClassVar[int]
    title: str
    rules: str
    unsupported: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, title: _Optional[str] = ..., rules: _Optional[str] = ..., unsupported: _Optional[_Iterable[str]] = ...) -> None: ...

class GameTrain(_message.Message):
    __slots__ = ("name", "distance", "price", "count")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DISTANCE_FIELD_NUMBER: _ClassVar[int]
    PRICE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    name: str
    distance: Distance
    price: float
    count: int
    def __init__(self, name: _Optional[str] = ..., distance: _Optional[_Union[Distance, _Mapping]] = ..., price: _Optional[float] = ..., count: _Optional[int] = ...) -> None: ...

class GamePhase(_message.Message):
    __slots__ = ("name", "tiles", "train_limit", "train_limits")
    class TrainLimitsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    TRAIN_LIMIT_FIELD_NUMBER: _ClassVar[int]
    TRAIN_LIMITS_FIELD_NUMBER: _ClassVar[int]
    name: str
    tiles: _containers.RepeatedScalarFieldContainer[str]
    train_limit: int
    train_limits: _containers.ScalarMap[str, int]
    def __init__(self, name: _Optional[str] = ..., tiles: _Optional[_Iterable[str]] = ..., train_limit: _Optional[int] = ..., train_limits: _Optional[_Mapping[str, int]] = ...) -> None: ...
