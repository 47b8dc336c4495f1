"""Revenue rules as data: a game described by the ``revenue_rules`` of its data file.

Each key is one rule family the 18xx.games engine adds to the plain sum of stop values; a game
is then a data file, and a new game needs code only for a family not seen yet:

- ``train_values``: a train kind paid another entry of the stops' revenue tables
  (``{"D": "diesel"}``: 1889's off-boards pay ``diesel_N`` to D trains).
- ``assigned_stop_bonuses``: ``[{assignment, amount, per_icon?, owns?}]``: a route's stop on a hex
  holding an assignment the company holds too earns ``amount`` once per route (times the
  ``per_icon`` icons on the hex's tile when given) (1846 Steamboat, Meat Packing, Boomtown); with
  ``owns``, the company need not hold the assignment but own that private company (18SJ's
  Sveabolaget: g_18_sj/game.rb#sveabolaget_bonus, 30 a port icon for ``sveabolaget.owner``).
- ``hex_assignment_stop_bonuses``: ``[{assignment, amount}]``: every paid stop on a hex holding the
  assignment, whoever placed it, earns ``amount`` (1817's bridge tokens:
  lib/engine/game/g_1817/game.rb#revenue_for, ``stops.count { |stop| stop.hex.assigned?('bridge') }``);
  with ``owns`` only for the owner of that private company (18SJ's GKB: g_18_sj/game.rb#gkb_bonus).
- ``city_token_bonus``: ``{amount, companies}``: a paid city earns ``amount`` for each token of these
  companies in it (18Mag's majors, the engine's ``Corporation``s, not its minors nor the mines' neutral
  tokens: lib/engine/game/g_18_mag/game.rb#revenue_for, ``corp_tokens = stops.select(&:city?).sum { |c|
  c.tokens.count { |t| t&.corporation&.corporation? } }`` times ``CORP_TOKEN_REVENUE``).
- ``first_row_pays_total``: ``{company_types}``: a train of a company of those types is paid its best
  stops only, as many as its first row pays (18CZ's large companies: g_18_cz/game.rb#revenue_for,
  ``route.train.distance[0][:pay]`` of the stops' revenues, largest first).
- ``track_stop_bonus``: ``{track, amount}``: a route any of whose paths is of a track kind in ``track``
  earns ``amount`` for each stop it is paid (1844: ``revenue += 10 * stops.size if route.paths.any? {
  |path| path.track == :narrow }``, lib/engine/game/g_1844/game.rb#revenue_for); a kernel family, the
  route's track kinds read from its segments (``Problem.gauge_by_seg``).
- ``token_hex_doubles``: ``{trains}``: the trains named are paid a stop's value again where a city of
  its hex holds the company's token (18SJ's E train: g_18_sj/game.rb#revenue_for, #friendly_city?).
- ``track_assignment_bonuses``: ``[{assignment, amount, no_ends?}]``: a route whose track crosses a hex
  holding the assignment earns ``amount``, once a hex however often it crosses it (1817's mines and
  ranches, 18Hiawatha's farms: g_1817/game.rb#revenue_for, ``route.all_hexes.count { |hex|
  hex.assigned?(mine) }``; ``Route#all_hexes`` is the uniq hexes of the route's paths). With
  ``no_ends`` a route may not start or end at such a hex ("Route cannot start or end with a mine"):
  the markers lie on plain track, so no route has a node there; a stop on one is refused. With
  ``except_trains`` (train names) those trains' routes earn nothing there (1822PNW's forests, 10 a hex,
  and Ski Haus, 30: none for an E train, g_1822_pnw/game.rb#forest_revenue, #ski_haus_revenue): the
  problem's ``skip_penalty_by_train``.
- ``track_hexes_bonuses``: ``[{hexes, amount, owner_amounts?, phases?, while_named?}]``: a route whose
  track crosses one of ``hexes`` earns ``amount``, once a hex, in the phases named (``phases``), while the
  hex's location name starts with ``while_named`` where given; a company owning a private named in
  ``owner_amounts`` earns that amount instead (1868 Wyoming's forts, g_1868_wy/game.rb#fort_bonuses over
  ``Route#connection_hexes``: 10 a fort, 20 for Trabing Bros' owner; all nine stand in phase 2, the yellow
  go in phase 3, the green in 5, the brown in 7, #event_remove_forts!, renaming ``Ft. X / Y`` hexes ``Y``).
- ``home_only_colour``: ``{color, homes}``: a stop on a hex of that colour is closed to every company
  but the one whose home it is (``homes``: company -> hex, the corporations' ``coordinates``): 1868
  Wyoming's purple hexes, g_1868_wy/game.rb#check_connected ("Route is not connected").
- ``track_tile_penalties``: ``[{tiles, amount, except_company?}]``: a route whose track crosses a hex
  whose tile is one named loses ``amount``, once a hex, unless the company owns ``except_company``
  (1822PNW's Portage: g_1822_pnw/game.rb#portage_penalty, PNW1/PNW2, none with P16).
- ``track_label_bonuses``: ``[{label, amount, tiles?, phase?}]``: a route whose track crosses a hex
  whose (not white) tile's label holds ``label`` earns ``amount``, or ``tiles[name]`` for the tiles
  named there, or ``phase[colour]`` once the phase has that tile colour; once a hex, summed over
  the rules a hex meets (18USA's resources: lib/engine/game/g_18_usa/game.rb#revenue_for over
  ``route.all_hexes - stop_hexes``, #tile_resources, ``ORE20_TILES``, #phase_5_or_later?; its
  resource tiles hold no stop a route reaches, so no such hex is a stop hex).
- ``train_stop_bonuses``: ``[{train, amount, except_tiles?}]``: a train whose name matches the
  pattern ``train`` earns ``amount`` more for every paid stop, but for those on the tiles named
  (18USA's Pullman upgrade, a train named ``5P``: ``20 * stops.count { |s| !RURAL_TILES.include?
  (s.tile.name) }``). ``hexes``: only the stops on these hexes; ``phases``: only in the phases of these
  names (1868 Wyoming's uranium: a stop on J12 earns 20 more in phase 5 and 40 in 6, one on J20 20 in both,
  g_1868_wy/game.rb#uranium_bonus, #update_boomtown_revenue!); ``company_types``: only for companies of
  these types (1822CA's grain elevators: 10 a paid stop on one, for a major's train neither E, nor the
  grain train, nor the Pullman's: lib/engine/game/g_1822_ca/game.rb#grain_and_port_bonus).
- ``untokened_tile_penalties``: ``[{tiles, amount}]``: a route paying a stop on one of these tiles
  whose city holds no token of the company loses ``amount``, once a route (18USA's company towns:
  g_18_usa/game.rb#revenue_for, ``revenue -= 10 if company_tile && !company_tile.cities.first
  .tokened_by?(corporation)``, ``COMPANY_TOWN_TILES``), as a set pair whose two sets are those stops.
- ``ability_stop_bonuses``: ability types whose ``hexes`` pay ``amount`` for every stop of a
  route on them (18AL Warrior Coal Field, ``hexes_bonus``).
- ``group_pairs``: ``[{a, b, amount}]``: a route paying a stop of set ``a`` and one of set ``b``
  earns ``amount``; sets are ``{"group": G}`` (stops in group G), ``{"label": L}`` (stops on
  tiles labelled L), ``{"hexes": [H, ...]}`` (stops on those hexes) or ``{"assignment": A}`` (stops on
  hexes holding assignment A, 18Neb's cattle token); ``"icons"`` pays the numbers
  on both ends' icons (1846 East-West), ``{hex: n}`` the sum of both ends' hexes' entries (1844's
  bonuses: g_1844/game.rb#east_west_bonus_revenue sums ``hex_bonus_revenue`` of the route's stops,
  #setup_offboard_bonuses: the ``bonus_N`` icon of the hex or of its group). Paid once per route only where no route can pay two stops
  of one set (1846's E group, 1882's off-boards: a route reaches off-boards only at its ends).
  ``{"label_has": L}`` is the stops on tiles whose label holds the letter L (18 Los Angeles: ``N/E``
  is north and east); a rule with ``unless_paired`` pays no pair of stops an earlier rule pays (18 Los
  Angeles's N/S only where the route is not E/W: g_18_los_angeles/game.rb#east_west_bonus, whose
  labelled stops are all route ends: off-boards, and Reseda's terminal city).
- ``token_penalties``: ``[{token, amount, reduced?}]``: a paid stop on a hex whose city holds the
  neutral ``token`` loses ``amount``, once a route; ``reduced`` (``{hexes, amount, unless_assignment}``)
  costs ``amount`` there instead, unless the company and the hex share the assignment (18 Los Angeles's
  Dump, -20, -10 at Westminster unless its Steamship bonus pays there:
  g_18_los_angeles/game.rb#dump_penalty, #revenue_for).
- ``train_track_groups``: ``[{name_has, group}]``: trains whose name holds ``name_has`` run in their own
  overlap group: their routes may share track with the other trains', not with each other's (18 Los
  Angeles's freight trains, N/M: g_18_los_angeles/game.rb#check_overlap, #train_type).
- ``set_pairs``: ``[{a, b, amount, company?, visited?}]``: ``amount`` once for a route paying (with
  ``visited``: visiting) a stop of set ``a`` and one of set ``b``, however many of each; sets as for
  ``group_pairs``; only for ``company`` where it names one (1888's destinations: a stop of the
  company's home hex and one of its destination hex, lib/engine/game/g_1888/game.rb#revenue_for and
  ``#destinated?``, paid once a route per destination). With ``largest``, a route meeting both sets
  (by its paid stops) is also paid its richest paid stop's value again, its row's multiplier applied
  (18Neb's east-west route: lib/engine/game/g_18_neb/game.rb#east_west_bonus, ``stops.map { |stop|
  stop.route_revenue(route.phase, route.train) }.max``, with stops labelled E and W, #east_west_route?).
  With ``holds``, only for a company the engine assigned that (18Neb's cattle token, #cattle_bonus);
  with ``owns``, only for a company owning that private company (1868 Wyoming's Wylie, P2a: 10 for a route
  paying a stop on C5 or D4, g_1868_wy/game.rb#revenue_for, YELLOWSTONE_HEXES: a set with itself).
  ``trains``: only for trains whose names match
  the pattern (the problem's ``skip_set_pairs_by_train``); ``company_types``: only for companies of those
  types (1822CA's ports: a route paying a grain elevator and an east (west) port earns 10, the grain
  train 20, g_1822_ca/game.rb#grain_and_port_bonus). ``amount_of_hex`` (a hex id) in place of
  ``amount``: the value of that hex's off-board in the board's phase, times the route's train's
  multiplier, paid whole to a train paid half rounded down (``obsolete_trains``: the pair is declared at
  twice the amount for it, which halving gives back exactly, ``(S + 2B) / 2 = S / 2 + B``), as
  1858Switzerland adds its red-to-red bonuses after G1858's halving (g_1858_switzerland/game.rb
  #revenue_for, #north_south_bonus, #east_west_bonus, #r2r_bonus: ``@bonus_revenue[bonus]
  .route_revenue(@phase, route.train)`` of B16 and L16, BONUS_HEXES).
- ``best_route_bonuses``: ``[{company?, ability?, hexes?, amount?, per_stop?, per_phase_colour?}]``:
  paid once for the company, on its route that earns it most: ``amount`` when the route visits a
  stop on every hex of ``hexes``, plus ``per_stop`` for each stop it visits (1846 Mail Contract,
  18AL named routes); it applies when the company owns ``company`` or holds an ability of type
  ``ability``. ``per_phase_colour`` (``{"yellow": 10, ...}``) adds to ``amount`` for each of the
  phase's tile colours it names (18Norway's mail contract: no ``hexes``, 10 per colour of yellow,
  green and brown, g_18_norway/game.rb#routes_revenue).
  ``per_stop_kinds`` (``["city"]``) counts only the stops of those kinds (18Tokaido's Sleeper Train: 10 a
  city the route visits, lib/engine/game/g_18_tokaido/game.rb#sleeper_bonus, ``visited_stops.count { |s|
  s.is_a?(Engine::Part::City) }``, on ``#best_sleeper_route``).
  ``every_company``: it applies to every company;
  ``assignment``: its hexes are those holding the assignment, whoever placed it (none yet: never paid);
  ``phase_amounts`` (``{"5": 30}``): the amount once the phase's number is at least a key's;
  ``multiplied``: the amount times the route's train's multiplier (1822PNW's mill, g_1822_pnw/game.rb
  #mill_bonus, #calculate_mill_bonus, #mill_bonus_amount: an E train's twice, and only where the mill's
  city holds the company's token, as a train paid only by token cities meets a group only at those);
  ``per_hex``: ``{assignment, amount, except_trains?}``: ``amount`` for each hex holding the assignment
  that the route's track crosses, none for the trains named (1822PNW's lumber baron, P14: the best
  route's forests paid once more, #lumber_baron_bonus, #forest_revenue).
- ``tokened_cities_only``: ``true`` where a city pays nothing to a route of a company without a
  token in it (towns and off-boards pay as usual): 1840, lib/engine/game/g_1840/game.rb#revenue_for.
- ``shared_locations``: ``{name: [H, ...]}``: the stops of these hexes are one place, so a route
  visits one of them at most (18Neb's North and South Chicago: g_18_neb/game.rb#check_other, "Cannot
  include both North and South Chicago", CHICAGO_HEXES L4 and L6). 18ESP's mountain passes are one
  place too ("Route can only use one mountain pass", g_18_esp/game.rb#check_distance, of
  ``Route#hexes``, the hexes of the route's nodes: each pass hex holds one city).
- ``subsidy_parts``: ``["halt"]``: a stop of these parts (as the tile code names them) pays a route
  nothing; the engine pays its value to the company as a subsidy, which is not the routes' revenue
  (18ESP's harbours and mines: lib/engine/game/g_18_esp/game.rb#revenue_for, ``stop.halt? ? 0``;
  #subsidy_for, #routes_subsidy). It is still a stop: visited, counted against the train's distance,
  and in the route's stops for the bonuses that read them (#east_west_bonus's E harbours).
- ``token_city_bonuses``: ``{hex: amount}``: a route visiting the city of the hex while it holds the
  company's token earns ``amount`` (18ESP's mountain passes: g_18_esp/game.rb#revenue_for,
  #tokened_mountain_pass, ``MOUNTAIN_PASS_TOKEN_BONUS``, over ``Route#hexes``); a stop bonus, as each
  such hex holds one city and a route visits it once.
- ``blocked_while_empty``: ``[hex, ...]``: the city of such a hex blocks every company while it holds no
  token (18ESP's mountain passes: g_18_esp/game.rb#setup fills each with two block tokens of no company,
  ``Token.new(nil, ...)``, which a board document shows as empty slots, ``null``; #open_mountain_pass
  removes them, and the opener may token it). A pass opened and not tokened yet is taken as closed.
- ``offboards_closed_to``: ``[company type, ...]``: a company of these types may not run to an
  off-board (18ESP's minors: g_18_esp/game.rb#check_distance, "Minors can not run to offboard
  locations"): its off-boards are closed stops, out of every search, and the checker names why.
- ``one_stop_per_hex``: ``true`` where a route may not pay two stops of one hex (1852: Missouri,
  lib/engine/game/g_18_mo/game.rb#check_other): each stop's location is its hex (a stop in a group
  keeps the group's location, which a route reaches once already). It is also the engine's "Route
  visits same hex twice" (g_1817, g_1822, g_1866, g_1867, g_18_esp, g_18_fl, g_18_hiawatha
  ``#revenue_for``): ``Route#hexes`` is the hexes of the route's nodes (the ends of its node-to-node
  chains), not of its track, so a route passing a hex's track twice is legal and one visiting two of
  its stops is not. ``{"except_hexes": [H, ...]}`` exempts the hexes the engine lists as
  ``DOUBLE_HEX`` (1822 family, 1866, 18ESP: two stops of those hexes may share a route);
  ``{"hexes": [H, ...]}`` keeps it to those hexes.
  ``{"except_towns": true}`` those whose tile (as laid now) has a town (g_1824 ``#revenue_for``:
  "Route cannot visit same revenue center twice", of the stops whose ``hex.tile.towns`` is empty:
  Wien's three cities, not a double town's two towns).
- ``local_cities_once``: ``"city"`` where no city may be on the routes of two of the company's local
  trains (lib/engine/game/g_1822/game.rb#check_local_cities: "Local train can only use each token on
  ... once", of every route of a local train, a local run or not), ``"hex"`` where it is no hex with
  such a city (g_1866/game.rb#check_overlap). A local train (``local: true``: lib/engine/train.rb
  #local?) may always run one city holding the company's token alone, on no track, in every title.
- ``stop_classes``: ``{"large": [types], "small_groups"?, "small_groups_trains"?, "large_visit_from_name"?}``:
  the node types a train's large caps count, where the engine's rows give cities, off-boards and towns
  a row each (18Ardennes, 18VA; see :mod:`optimizer.games.stop_classes`); groups whose cities count
  small where every train matches ``small_groups_trains`` (18VA's CMD for freight trains); the large
  visit capped at the number in the train's name (18VA ``#check_distance``).
- ``freight_ports``: ``{freight_suffix, doubler_suffix, offboard_group, port_group, port_links, zone_group,
  zone_per_size, steamboat: {assignment, amount, doubler_amount}}``: passenger, freight and doubler trains
  paid apart, ports open only with a token in their linked city, the zone (CMD) closed to all but freight
  trains (18VA, lib/engine/game/g_18_va/game.rb#revenue_for, #check_distance); see
  :mod:`optimizer.games.freight_ports`.
- ``label_count_bonus``: ``{label, amount}``: ``amount`` for each paid stop on a hex labelled (or to be
  labelled) ``label``, less ``amount`` once a route (1848's K_BONUS, g_1848 ``#revenue_for``).
- ``gauge_borders``: ``{free_in_name?}``: each border a route's track crosses is a gauge change that
  counts as a city of no value, one free for a train whose name has ``free_in_name`` (g_1848
  ``#visited_stops``); the searches count them per segment (``gauge_halves_by_seg``).
- ``end_towns_count``: ``true`` where towns at a route's ends count against the pay of the train's
  city row (g_18_mt ``#check_distance``; ``end_cap_by_train``).
- ``unsupported_trains``: ``{name: reason}``: a train refused with the reason (1848's 2E).
- ``hex_distance``: trains whose distance is hex edges crossed, not stops (1849, 1844, 1858,
  18Ireland, 18NY): which trains, how edges are counted; see :mod:`optimizer.games.hex_trains`.
- ``track_walk``: how routes walk the track, where the title departs from the engine's default
  (gauge matched where a walk crosses a hex side, lib/engine/part/path.rb#walk and #tracks_match?):
  ``{"ignore_gauge": true}`` where its tiles set ``ignore_gauge_walk`` (g_18_carolinas, g_1844,
  g_18_norway ``#setup``), ``{"skip_track": "narrow"}`` where no route walks that track at all
  (the engine's ``Game::Base#skip_route_track_type`` for every train; 18Ireland's, whose trains all
  count hexes, is ``hex_distance``'s ``only_gauge``). Gauges by train (1858's metre-gauge M trains,
  g_1858/game.rb#skip_route_track_type) are ``hex_distance``'s ``train_gauge``.
- ``home_route``: ``{"homes": {company: hex}}``: some route of a run must visit the company's token
  city in its home hex (g_1860/game.rb and g_1862/game.rb #check_home_token, from
  #check_route_combination): a rule on the whole run; see :mod:`optimizer.games.home_route`.
- ``narrow_gauge_revenue``: ``true`` where a stop also pays the places its narrow gauge reaches
  (18Ireland); see :mod:`optimizer.games.narrow_gauge`.
- ``paid_only_tokened_or_red``: ``{"suffix": "DE"}``: a train whose name ends so is paid only the
  stops holding the company's token and red off-boards (lib/engine/game/g_18_ny/game.rb#compute_stops,
  second edition: ``stops.select! { |stop| stop.tokened_by?(route.corporation) || stop.tile.color ==
  :red }``); the others pay it nothing.
- ``e_trains``: ``{trains, token_ends?}``: the trains named (the engine's ``train_type`` :etrain) are
  paid only by cities holding the company's token (others are passed through, paying nothing) and
  run in an overlap group of their own: they may reuse track the company's other trains use, not
  each other's (g_1822/game.rb and g_1866/game.rb ``#revenue_for``, ``#check_overlap``,
  ``#compute_other_paths``). With ``token_ends`` a route also starts and ends at such cities
  (g_1822/game.rb#check_distance: "E-train route must start and end at tokened cities"; two of them,
  so "at least 2 tokened cities" follows).
- ``destination_bonus``: ``{"company_type": T}``: a company of type T (1822's majors) that has placed
  its destination token earns, once, on its route that earns it most, the value of the destination
  token's city times the route's train's multiplier, where the route visits the city holding its home
  token and the one holding its destination token (g_1822/game.rb#calculate_destination_bonus,
  #destination_bonus, #revenue_for). The home token's hex is the company's ``Home: ... (HEX)`` ability;
  the destination token is the company's token of type ``destination`` (the document's ``token_types``).
- ``no_town_ends``: ``true`` where a route may not begin or end at a town (or halt): it may only
  pass through one (lib/engine/game/g_steam_over_holland/game.rb, g_18_rhl/game.rb and
  g_1862/game.rb ``#check_distance``: "Route cannot begin/end in a town"). The converse of an
  off-board's end-only: both searches refuse such a route, and its extensions are still grown.
  ``{"except_trains": [...]}``: towns, but the trains named may begin and end anywhere (1825's 3T, 4T,
  U3 and 2+2: g_1825/game.rb#check_distance; the problem's ``ends_free_by_train``).
- ``end_hexes``: ``{trains, hexes, name}``: a route of the trains named begins or ends (or both) at a
  stop on these hexes (18Rhl's 8 train and the RGE hexes: lib/engine/game/g_18_rhl/game.rb#check_distance,
  "Route for 8 trains must begin and/or end in an RGE hex", #rge_terminus?, ``RGE_HEXES``); both
  searches refuse another route of theirs (the problem's ``needs_end_by_train``, ``end_set_by_stop``) and
  still grow it; ``name`` says the hexes in a player's words.
- ``route_termini``: ``{framed_end_only?, factories, mines}``: a route begins and ends at a terminus
  only: a city holding the company's token, a town on a factory hex, or a city not blocked on a factory
  or mine hex (lib/engine/game/g_1873/game.rb#check_distance: "Route must begin and end with token or
  non-tokened out open mine or factory", #terminus?, ``FACTORY_INFO``, the mines' ``coordinates`` in
  #game_minors). Whether a mine is open is the engine's (``@minor_info[mine][:open]``), not the board
  document's: every mine hex is taken as open, so a closed mine's city may end a route here (named in
  coverage.json). With ``framed_end_only`` a stop on a framed tile is never passed through ("Route
  cannot pass through a town", ``node.tile.frame``), so one that is no terminus is out of reach.
- ``no_distance_limit``: ``true`` where a train's number is no cap on the stops it visits: every
  route runs any number of stops, paid for each (lib/engine/game/g_1873/game.rb#check_distance: "no
  real 'distance' for 1873 routes", it checks only the ends and the towns passed; an NT train is N
  such routes, #add_subtrains!, which the board document lists as N trains).
- ``mining_runs``: ``{diesel, stop_revenue, diesel_stop_revenue, factories, mines, concessions}``:
  Harzbahn 1873's run, priced and checked as a whole (see :mod:`optimizer.games.mining_runs`): a stop
  pays once (by hex, to the first route of its kind), a city ``stop_revenue`` where it holds no token
  of the company, a factory ``factories[hex]``, a mine ``mines[hex]`` times the distance of the longest
  non-diesel train there; the ``diesel`` trains (a track of their own, token ends) are paid
  ``diesel_stop_revenue`` a city; the subtrains of one NT train meet; the company's ``concessions``
  (hex lists) are run (lib/engine/game/g_1873/game.rb#revenue_for, #check_route_combination). The
  compiled kernel declines such a problem: the reference search answers it.
  ``{"parts": ["halt"]}`` keeps it to the nodes the tile code names so (1860's halts:
  g_1860/game.rb#check_distance, "Route cannot begin/end in a halt"); ``{"tiles": [...]}`` to the towns
  of the tiles named (18USA's rural junctions X07-X09: g_18_usa/game.rb#check_distance, "Train cannot
  start or end on a rural junction", ``RURAL_TILES``).
- ``counted_stops``: ``{min, towns_count_for?}``: the stops a train counts against its distance are
  its cities and the off-boards paying in yellow; towns and off-boards paying nothing there ride
  free, except towns for the trains named in ``towns_count_for``; a route must count ``min`` of
  them (lib/engine/game/g_18_zoo/game.rb ``#check_distance``, ``#cities_visited``: "Water and
  external gray don't count as city/offboard."). Every stop visited is still paid (a numeric
  distance, ``Game::Base#compute_stops``).
- ``mines``: ``{assignment?, token?, goods_suffix?}``: the stops of hexes holding the assignment
  (1837, 1824: ``coal``, set by lib/engine/game/g_1837/game.rb#setup_mines on ``MINE_HEXES``), or
  the cities holding the named neutral token (18Mag: ``mine``), are mines. A goods train (its name
  ends with ``goods_suffix``: ``G`` in 1837, ``g`` in 1824, ``#goods_train?``) must visit exactly one
  mine, every other train none (g_1837 ``#check_other``: "Must visit one mine", "Cannot visit more
  than one mine", "Only goods trains can visit a mine"; g_18_mag ``#check_other``: "Cannot visit
  mine" without the round's SNW rail car, which a board document does not carry, so never). A mine
  pays no route revenue: g_1837 ``#revenue_for`` is ``super - #mine_revenue``, paid instead as the
  company's subsidy (``#routes_subsidy``), which is not the routes' revenue (``Game::Base
  #routes_revenue``). All mines share one location, so no route reaches two.
- ``gauges``: ``[{sets, trains?, except_trains?, company_types?}]``: the first rule naming the
  train (by name, ``trains`` / ``except_trains``) and the company's type (``company_types``) says
  which track kinds (the tile DSL's ``track:``: ``broad``, ``narrow``, ``dual``) its route may use:
  every path of the route within one of ``sets``; a train no rule names runs any track.
  18Carolinas: no route mixes the gauges, dual track goes with either
  (g_18_carolinas/game.rb#check_other: "Train cannot use more than one gauge"); 1840: a minor's
  route only broad track (g_1840/game.rb#check_track_type); 18Norway: ships only water (``narrow``),
  trains never (g_18_norway/game.rb#check_other, ``#ship?``: a train whose ``track_type`` is narrow).
  ``trains_match``: a pattern the train's whole name matches (18ESP: the engine's
  ``#skip_route_track_type`` keeps a narrow train off broad track and a broad one off narrow track,
  "Routes must use correct gauage", #check_distance; the board document names a train, not its
  ``track_type``, which the name tells: the narrow variants 1+2 .. 5+6 and 6+8 of the game's TRAINS,
  "+1" appended by a tender (step/route.rb), a combined train "N+MC" running any track,
  step/combined_trains.rb#create_combined_train!).
- ``ability_stop_doubles``: ability types whose ``hexes`` pay their stops twice (18JP-T's hex_bonus,
  lib/engine/game/g_18_jpt/game.rb#revenue_for: "Double revenue of corporation's destination hexes").
- ``own_hex_doubles``: ``true`` where a stop on a hex the engine assigned the company itself pays twice
  (1850's edge token, lib/engine/game/g_1850/game.rb#revenue_for; the engine pays the first such stop of
  a route, and a company has one edge token, on an off-board of one stop).
- ``port_per_token``: ``{group}``: a stop of the group (a port) pays its value once for each city of the
  route holding the company's token, not for itself (1836Jr30 and 1836Jr56,
  lib/engine/game/g_1836_jr30/game.rb#revenue_for: ``revenue -= per_token``, then ``per_token`` for each
  ``stop.city? && stop.tokened_by?(route.train.owner)``): pairs of the port and each such city, so a
  route is paid the port once per token city it pays. A route with the port must contain 2 other
  stops, in both searches and the pricing (``half_again_by_stop``'s flag 2).
- ``port_half_again``: ``{group}``: a route with a stop of the group (a port) pays half its sum again,
  rounded down to 10, and needs 2 other stops (1850Jr, lib/engine/game/g_1850_jr/game.rb#revenue_for:
  ``revenue += (revenue / 2).floor(-1)``, "must contain 2 other stops"): the port's pairs with every
  other stop pay half that stop's value (rounded up), and both searches and the pricing take back what
  the rounding leaves out and refuse a port route of fewer than 3 stops (``half_again_by_stop``). Its
  trains pay every stop alike, at multiplier 1; others are refused.
- ``destination_ends``: ``true``: a route whose first (else last) stop lies on the company's reached
  destination hex earns that stop's value again, once (1870, lib/engine/game/g_1870/game.rb
  #destination_revenue, #destination_hex: the first ability's first hex, reached once the hex no longer
  holds the company's assignment); both searches and the pricing add it at a route's ends
  (``end_bonus_by_stop``).
- ``assigned_hex_doubles``: ``[hex, ...]``: a stop on one of these hexes pays twice where the company
  holds an assignment keyed by the hex's id (18Ardennes' mines, lib/engine/game/g_18_ardennes/trains.rb
  #mine_bonus: ``stop.route_revenue`` again where ``route.train.owner.assignments.key?(coord)`` for a
  stop on ``MINE_HEXES``; the train's multiplier applies, as to the stop's own value).
- ``offboard_phase_columns``: ``{phase name: column}`` where an off-board's revenue table is keyed by
  columns the engine picks by the phase's name rather than by the phase's tile colours (1841:
  ``white`` in phases 2-3, ``gray`` in 4-5, ``black`` in 6-8, lib/engine/game/g_1841/game.rb
  #game_route_revenue, ``REAL_PHASE_TO_REV_PHASE``).
- ``holes``: ``true`` where two hexes may be holes joined by a tunnel (18ZOO: the tiles
  g_18_zoo/game.rb#assign_hole lays, an off-board and paths with lanes): a route through the tunnel
  counts one more stop (each tunnel end is half a gauge change, ``gauge_halves_by_seg``) and is paid
  the first hole's off-board times the trains' multiplier (on the hex beyond its tunnel side, crossed
  by the tunnel's routes only, once a route), #pass_through_hole?, #cities_visited, #revenue_for; the
  two holes' off-boards share a location ("Route cannot use holes as terminal more than once",
  #check_other).
- ``extra_distance``: ``{company, amount, except_trains?}``: a train not named counts ``amount`` more
  large stops while the company owns ``company``, where it is the company's one such train (18ZOO's
  A_TIP_OF_SUGAR: g_18_zoo/game.rb#distance_aux); where it serves two or more, any one of them but
  one only in a run (#check_connected: ``Problem.one_extra_large``, each search the best of the runs
  with one of them counting one more, :func:`optimizer.graph.problem.one_extra_variants`).
- ``crow_distance_bonus``: ``{trains, per_hex}``: a train whose whole name matches the pattern ``trains``
  earns ``per_hex`` for each hex, as the crow flies, between its route's first and last stop on a hex
  whose tile has a city or an off-board (18GB's X trains: lib/engine/game/g_18_gb/game.rb#distance_bonus,
  #hex_crow_distance, over the engine's hex x and y, lib/engine/hex.rb ``Hex.init_x_y``).
- ``closed_private_hex_bonuses``: ``true`` where a private's ``hex_bonus`` (the data file's companies)
  pays each stop on its hexes for the company whose director owns it, once the private is closed
  (g_18_gb/game.rb#revenue_bonuses: ``co.value.positive?`` pays nothing, ``#close_company`` sets 0):
  read as a tile laid on the hex the private blocks (``#close_company_in_hex``); one its owner closed
  by choice the board document does not show.
- ``routes_share_track``: ``true`` where the company's routes may share track, each train's route
  still using a piece of track once (lib/engine/game/g_1877_stockholm_tramways/game.rb and
  g_1862/game.rb: ``#check_overlap`` empty, ``#check_overlap_single`` per route, ``#compute_other_paths``
  ``[]``): every train runs in an overlap group of its own (``Problem.track_group_by_train``).
- ``stops_paid_once``: ``true`` where a stop already on an earlier route of the run pays nothing
  (g_1877_stockholm_tramways/game.rb#revenue_for, #stop_on_other_route?): the run pays each stop it
  pays once, to the first route (in the order the routes are listed) paid it; a stop sharing a group
  with it pays nothing either. A route is paid what the engine's ``compute_stops`` gives: every stop
  for a train paying all, a freight train's ends, and for one paying some of its cities the ones the
  engine picks across the run (g_1862/game.rb#global_optimize); see ``revenue.paid_once_run``. A route
  alone earns at least its share, so the bounds stay admissible. The nested kernel prices it where
  every train pays all its stops and no stop has a group (a level's route less the stops of the levels
  before it); otherwise the reference answers.
- ``linked_stops``: ``{group, token_hexes}``: the stops of the group are no route's while the company
  holds no token in a city on one of ``token_hexes`` (g_1862/game.rb#check_london, #london_link?: "Train
  cannot visit London w/o link", of a route's first and last stops; London's are off-boards, which only
  end routes, so no route reaches them).
- ``routes_meet``: ``true`` where a run's routes must all link up through stops they share (g_1860/game.rb
  and g_1862/game.rb #check_intersection, from #check_route_combination): a rule on the whole run; see
  :mod:`optimizer.games.routes_meet`.
- ``unlike_ends``: ``["red", "blue"]``: no route begins and ends on hexes of one of these colours
  (g_1862/game.rb#check_distance: "Route cannot visit two red offboards or two ports"). Checked where a
  route is priced; the kernels decline it (the reference answers).
- ``freight_trains``: ``{pattern, bonus, port_bonus}``: the trains whose name matches ``pattern`` are paid
  their route's two ends and ``bonus`` (``port_bonus`` where an end is a port) for each hex between the
  ends as the crow flies (g_1862/game.rb#freight_revenue, #hex_crow_distance); see
  :mod:`optimizer.games.freight`. Priced by the reference search (the kernels decline it).
- ``civil_war``: ``{"ability": T}``: while the company holds an ability of type T, a run of every one
  of its trains pays its lowest-earning route nothing (lib/engine/game/g_18_tn/game.rb#routes_revenue:
  ``total_revenue - routes.map(&:revenue).min`` unless ``routes.size < corporation.trains.size``). Such
  a run earns what the run without that route earns, so the searches keep the runs that leave a
  train idle (``Problem.not_all_trains``: a rule on the whole run, kept at the leaf; the packing
  kernel declines it), and the checker prices a run of every train as the engine does.
- ``halved_trains``: ``{"prefix": P}``: a train whose name starts with P is paid half its route's
  revenue (its stops and bonuses), rounded to 10 as Ruby's ``round(-1)`` (half away from zero), before
  its track penalties: 1822MX's 3/2P, g_1822_mx/game.rb#revenue_for; the problem's ``halved_by_train``.
- ``obsolete_trains``: ``{"phases": [...], "from_phase": {train: phase}}``: a train of a name listed is
  obsolete from that phase on (the board's phase, ordered by ``phases``) and paid half its route's
  revenue, rounded down (1858, 1858India, 1858Switzerland: g_1858/game.rb#revenue_for, ``revenue /= 2 if
  route.train.obsolete``; optimizer/games/obsolete.py says why the phase decides it); the problem's
  ``halved_by_train`` (HALF_DOWN).
- ``multiplied_trains``: ``{name: N}``: a train of that name is paid N times its route's revenue
  (18Uruguay's 4D: lib/engine/game/g_18_uruguay/game.rb#revenue_for, ``revenue *= 2 if route.train.name
  == '4D'``, on the plain sum of its stops): the train's multiplier, as a document's ``multiplier``.
- ``trains_kept_off``: ``[{trains, hexes}]``: the trains named may not visit a stop on these hexes
  (18Uruguay's 4D and the ports, the England off-boards: g_18_uruguay/game.rb#check_distance, "4D
  trains cannot deliver goods", goods.rb#visits_include_port?, ``PORTS``); the search keeps them off as it
  keeps a train off a mine (``Problem.mine_by_stop``, ``MINES_NONE``), so no title declares it beside
  ``mines`` or ``freight_ports``.
- ``towns_fill``: ``true`` where a train of a city row (pay N) and a town row (pay M, often 0) pays
  every city and off-board it visits, and its best towns in the pay left: N + M less its cities
  (1867 and 1861: g_1867/game.rb#compute_stops, a train's pay-0 town row fills the stops its main
  row lacks; 1852: Missouri, g_18_mo/game.rb#compute_stops, East St. Louis's town paid while the
  cities are fewer than the pay; 1860, g_1860/game.rb#compute_stops, ``th_allowance``). A train of
  other rows (1867's 5+5E: off-boards mandatory, cities and towns filling) is left as its rows say.
- ``express_trains``: ``{name_has}``: the trains of a numeric distance N whose name holds ``name_has``
  (18NewEngland's 5E, 6E, 8E) run as one, the company's smallest (``#route_trains``: the others run no
  route), visiting at most N cities and off-boards, all paid, towns passed free, its best towns filling
  the pay its cities leave, and it is paid times the number of them the company owns
  (g_18_new_england/game.rb#check_distance, #compute_stops, #revenue_multiplier, #revenue_for).
- ``leased_trains``: ``{owner, stop_value, route_bonus}``: a train of that owner (the bank's ``depot``)
  pays ``stop_value`` for each stop it pays and ``route_bonus`` once a route, and its towns fill only
  the pay its cities leave (1860's insolvent company: g_1860/game.rb#revenue_for, ``40 + (20 *
  stops.size)`` under #loaner_new_rules?, and #compute_stops under #ignore_second_allowance?). The
  route bonus is a set pair of every stop, so it holds only where every train of the company is
  leased (an insolvent company runs the one it leases); beside trains of its own it is not applied.
  Its halts pay nothing, as the engine's once the Southern has formed (#ignore_halts?,
  ``@sr_after_southern``, a fact the board document does not carry; before, each pays 20).
- ``connection_bonuses``: ``{assignment, amount, offboard_locations, ambiguous_hexes?}``: a paid stop on a
  location whose bonus the company has not claimed earns ``amount``, once across the company's routes:
  the first route paying it (in the order of the trains) earns it, a later one does not
  (lib/engine/game/g_18_ny/game.rb#revenue_for, #route_connection_bonus_hexes, #potential_route_connection
  _bonus_hexes). A city's hex holds the assignment while unclaimed; an off-board location is a list of
  hexes, the first holding the assignment (#init_connection_bonuses, #claim_connection_bonus), and a red
  stop on any of them pays that location. A hex of two locations (``ambiguous_hexes``: 18NY's A21,
  whose location the route's exit there decides, #offboard_connection_bonus_hex) pays none here. The
  stop's value holds the amount (``Problem.once_bits_by_stop``, ``once_amount``); both searches take it
  back from a later route paying the location again, at the leaf of the reference and as each level
  prices its route in the nested kernel (the packing kernel declines it). ``ability_revenue``: ability
  types whose ``$N`` the company earns with its routes whatever they are (#routes_revenue,
  #connection_bonus_revenue, #coal_revenue: the bonuses it has claimed, ``Problem.fixed_revenue``).
- ``development_values``: ``{token_type, counts, phase_tokens, bonus: {company, owners, amount},
  covers}``: a boom city's value follows the tokens the document's ``hex_tokens`` place on its hex and
  those around it, and ``bonus`` adds to it for the president's tokens next to it (1868 Wyoming's boom
  cities and Teapot Dome, g_1868_wy/game.rb#update_boomcity_revenue!, #teapot_dome_bonuses); on a
  board giving ``hex_tokens`` the coverage lines beginning as ``covers`` does are answered, not named.
  See :mod:`optimizer.games.development_tokens`.
- ``train_maintenance``: ``{company_types, tables}``: a company of those types earns its trains'
  maintenance beside its routes, with some route only (1840's minors: g_1840/game.rb#routes_revenue,
  #maintenance_costs, #buy_train, MAINTENANCE_COST), where its own trains settle the table the game
  has made active; see :mod:`optimizer.games.maintenance` (``Problem.fixed_revenue``, ``fixed_needs_route``).
- ``inherits``: the title whose families this one takes as its own, where the engine makes this
  title's game a subclass of that one's (``{"inherits": "1846"}``: 1846 2p Variant, 1852: Missouri);
  families the file declares beside it replace the inherited ones of the same key.

Where the engine says "once per route" and a hex has several stops, pairs of those stops take
the bonus back once, so that a route paying two of them is paid once.

Every declared title also keeps two rules of the engine's that hold in every game:

- a city keeps its groups when its hex is upgraded (lib/engine/hex.rb#lay: ``new_city.groups =
  old_city.groups``), so Long Beach's four cities stay one group on the laid tiles, whose code has none;
- no two stops of a route share a group (lib/engine/route.rb#revenue: "Cannot use group ... more than
  once"). Stops of the same groups share a location; two stops whose groups only overlap (18 Los
  Angeles's Oxnard, ``W|NW|SW``, and Reseda, ``NW``) are a visited pair of :data:`FORBIDDEN`, worth less
  than any run gains, so that no best run holds such a route; the checker names the group.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from itertools import combinations

from ..board.tiles import parse_code
from ..errors import BoardError
from ..model import (
    MINES_ANY,
    MINES_NONE,
    MINES_ONE,
    BestRouteBonus,
    Bonuses,
    CrowBonus,
    PairBonus,
    SetPairBonus,
    TrainSpec,
)
from ..model.trains import UNLIMITED
from .base import HALF_DOWN, HALF_TO_TEN, Rules
from .development_tokens import boom_city, boom_value, neighbour_token_bonus
from .freight import freight_terms
from .freight_ports import is_zone, port_closed, steamboat_pairs, train_type, value_for
from .hex_trains import UNCAPPED, hex_spec, segment_costs
from .home_route import home_stop
from .maintenance import known_maintenance
from .mining_runs import MiningRuns, groups_of
from .narrow_gauge import narrow_gauge_bonus
from .national_regions import home_hexes, region_of, segment_reason
from .obsolete import obsolete_in_phase
from .stop_classes import spec_by_classes

FORBIDDEN = -(1 << 24)  # a visited pair no legal route holds: a route with it earns less than none
# a path with lanes: "path=a:5,b:2,a_lane:2.0": group 1, 2 its ends, group 3 the end with the lanes
_LANE_PATH = re.compile(r"path=a:(\d),b:(\d),(a|b)_lane:")


def engine_xy(hex_id: str, axes: dict | None) -> tuple:
    """A hex's x and y as the engine's ``Hex.init_x_y`` (lib/engine/hex.rb): its letters' index in
    ``LETTERS`` (A = 0 .. Z, AA = 26 .. AZ) or less that in ``NEGATIVE_LETTERS`` (a = -1 ..), and its
    number less one, on the axes the game says."""
    m = re.fullmatch(r"([A-Za-z]+)(-?\d+)", hex_id)
    if m is None:
        raise BoardError(f"hex id {hex_id!r} is not letters and a number", field="hexes")
    letters, number = m.group(1), int(m.group(2))
    if letters.islower() and len(letters) == 1:
        letter = -(ord(letters) - ord("a") + 1)
    elif len(letters) == 1 and letters.isupper():
        letter = ord(letters) - ord("A")
    elif len(letters) == 2 and letters[0] == "A" and letters.isupper():
        letter = 26 + ord(letters[1]) - ord("A")
    else:
        raise BoardError(f"hex id {hex_id!r}: the engine has no x or y for its letters", field="hexes")
    x_is_letter = (axes or {}).get("x", "letter") == "letter"
    return (letter, number - 1) if x_is_letter else (number - 1, letter)


def closed_private_bonuses(data: dict) -> tuple:
    """The privates of a data file with a ``hex_bonus`` and the hexes they block (``blocks_hexes``):
    (company, bonus hexes, amount, blocked hexes, the printed tile of each blocked hex)."""
    tiles = {h["id"]: h.get("tile") for h in data.get("hexes", ())}
    out = []
    for company in data.get("companies", ()):
        abilities = company.get("abilities") or ()
        blocked = tuple(h for a in abilities if a.get("type") == "blocks_hexes" for h in a.get("hexes") or ())
        for a in abilities:
            if a.get("type") == "hex_bonus" and blocked:
                printed = {h: tiles.get(h) for h in blocked}
                out.append((company["id"], tuple(a.get("hexes") or ()), int(a.get("amount") or 0), blocked, printed))
    return tuple(out)


@lru_cache(maxsize=4096)
def icons_of(code: str) -> tuple:
    """The icons of a tile code as (name, sticky): ``icon=image:1846/20,sticky:1`` is ``("20", True)``."""
    out = []
    for part in parse_code(code).cosmetic:
        kind, _, body = part.partition("=")
        if kind == "icon":
            props = dict(p.partition(":")[::2] for p in body.split(","))
            out.append((props.get("image", "").rsplit("/", 1)[-1], props.get("sticky") not in (None, "", "0")))
    return tuple(out)


@lru_cache(maxsize=4096)
def framed(code: str) -> bool:
    """A tile code with a ``frame=`` part (1873's framed "towns")."""
    return any(part.partition("=")[0] == "frame" for part in parse_code(code).cosmetic)


def mining_distance(spec) -> int:
    """The N of an NT train (its name's number: 1873's trains run any number of stops)."""
    digits = re.match(r"\d+", spec.name)
    return int(digits.group()) if digits else 0


def icon_number(name: str) -> int:
    """What an icon says as a number (``20``), 0 for a picture (``port``), as the engine's ``to_i``."""
    digits = ""
    for ch in name:
        if not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits else 0


def yellow_value(node) -> int:
    """A node's revenue in yellow, as the engine's ``revenue[:yellow]`` (a plain number is every colour's)."""
    table = dict(node.revenue)
    return int(table.get(None, table.get("yellow")) or 0)


def towns_fill(train, spec: TrainSpec) -> TrainSpec:
    """``towns_fill``: a train of a city row and a town row pays all its cities and off-boards and, in
    the pay they leave, its best towns (see the module's docstring); other trains as they are."""
    rows = train.distance if isinstance(train.distance, list) else []
    if len(rows) != 2:
        return spec
    large, small = rows
    if not ({"city"} <= set(large["nodes"]) <= {"city", "offboard"} and set(small["nodes"]) <= {"town", "halt"}):
        return spec
    pay = min(int(large["pay"]) + int(small["pay"]), UNLIMITED)
    if spec.visit_large > spec.pay_large or pay <= 0:
        return spec
    return replace(spec, pay_small=pay, pay_total=pay, large_first=True)


class DeclaredRules(Rules):
    """The generic rules plus the families a game's data file declares."""

    title = "generic"
    declared: dict = {}
    printed: dict = {}  # hex id -> the printed map's tile code (its sticky icons outlive upgrades)
    axes: dict = {}  # the data file's axes: whether a hex id's letter is its x or its y
    closed_private_bonuses: tuple = ()  # (company, bonus hexes, amount, blocked hexes, printed tiles)

    @classmethod
    def for_game(cls, title: str, data: dict, declared: dict | None = None) -> type:
        """The rules of a game from its data file; ``declared`` (its families, where they are
        inherited from another game's file) stands in for the file's own ``revenue_rules``."""
        printed = {h["id"]: h["code"] for h in data.get("hexes", ()) if h.get("code")}
        families = data.get("revenue_rules", {}) if declared is None else declared
        attrs = {"title": title, "declared": families, "printed": printed, "axes": data.get("axes") or {}}
        if families.get("closed_private_hex_bonuses"):
            attrs["closed_private_bonuses"] = closed_private_bonuses(data)
        base = TerminiRules if "route_termini" in families else cls  # (others keep the generic stop hooks)
        closing = ("freight_ports", "linked_stops", "home_only_colour", "national_regions", "offboards_closed_to")
        if base is cls and not any(key in families for key in closing):
            attrs["forbidden"] = Rules.forbidden  # no stop closed to the company: graph/walks.py skips the hook
        return type(f"Rules{title}", (base,), attrs)

    def icon_names(self, hx) -> list:
        """The icons on a hex: its tile's, and the printed map's sticky ones once it is upgraded (the
        engine keeps those on the hex, but a laid tile's code does not list them)."""
        names = [name for name, _ in icons_of(hx.tile.code)]
        code = self.printed.get(hx.id)
        if code is not None and code != hx.tile.code:
            names += [name for name, sticky in icons_of(code) if sticky]
        return names

    def node_groups(self, hx, node) -> tuple:
        """A stop's groups: its tile's, or on an upgraded hex the printed map's city's (lib/engine/hex.rb
        #lay carries them onto the new tile's cities: by position where the printed cities differ)."""
        if node.groups or node.kind != "city":
            return node.groups
        code = self.printed.get(hx.id)
        if code is None or code == hx.tile.code:
            return ()
        printed = [n.groups for n in parse_code(code).nodes if n.kind == "city"]
        if not printed or not any(printed):
            return ()
        if len(set(printed)) == 1:
            return printed[0]
        position = sum(1 for n in hx.tile.nodes if n.kind == "city" and n.index < node.index)
        return printed[position] if position < len(printed) else ()

    def is_mine(self, hx, node) -> bool:
        """A mine of ``mines``, or a stop ``freight_ports`` keeps to freight trains (18VA's CMD, which
        pays as usual and may share a route with another), or one ``trains_kept_off`` keeps some trains
        off (18Uruguay's ports, paid as usual)."""
        rule = self.declared.get("freight_ports")
        if rule and node.is_stop and is_zone(rule, node):
            return True
        if node.is_stop and any(hx.id in kept["hexes"] for kept in self.declared.get("trains_kept_off", ())):
            return True
        return self.mines_mine(hx, node)

    def mines_mine(self, hx, node) -> bool:
        rule = self.declared.get("mines")
        if not rule or not node.is_stop:
            return False
        if "assignment" in rule:
            return bool(hx.assignments.get(rule["assignment"]))
        city = hx.cities.get(node.index) if node.kind == "city" else None
        return city is not None and rule.get("token") in city.tokens

    def mine_rule(self, spec: TrainSpec) -> int:
        kept_off = self.declared.get("trains_kept_off")
        if kept_off:
            return MINES_NONE if any(spec.name in kept["trains"] for kept in kept_off) else MINES_ANY
        freight = self.declared.get("freight_ports")
        if freight:
            return MINES_ANY if train_type(freight, spec.name) == "freight" else MINES_NONE
        rule = self.declared.get("mines")
        if not rule:
            return MINES_ANY
        suffix = rule.get("goods_suffix")
        return MINES_ONE if suffix and spec.name.endswith(suffix) else MINES_NONE

    def forbidden(self, hx, node) -> bool:
        """``freight_ports``: a port whose linked city holds no token of the company; ``linked_stops``: a stop
        of the group the company holds no token to link (1862's London)."""
        rule = self.declared.get("freight_ports")
        if rule and port_closed(self.board, self.company.id, rule, hx, node):
            return True
        rule = self.declared.get("linked_stops")
        if rule and rule["group"] in node.groups and not self._linked(rule):
            return True
        if self._foreign_home(hx) or self.offboard_closed(node):
            return True
        region = self.national_region()
        if region is not None and hx.id not in region:
            return True
        return super().forbidden(hx, node)

    def pullman_amount(self, where: str) -> int:
        """``pullman_stop_bonus``: ``{"amount": A}``: the train the company's Pullman is attached to this
        round (the board's ``trains[].pullman``) earns A more for each city and off-board it stops at,
        times its multiplier, and half that once obsolete: the problem adds A to those stops' values for
        it, which its halving gives back as A / 2 (1858India: g_1858_india/game.rb#revenue_for,
        #pullman_bonus, ``(train.multiplier || 1) * (train.obsolete ? 5 : 10)``)."""
        rule = self.declared.get("pullman_stop_bonus")
        return int(rule["amount"]) if rule else super().pullman_amount(where)

    def national_region(self) -> frozenset | None:
        """``national_regions``: the hexes a national company runs within (None: no such company)."""
        return region_of(self.declared.get("national_regions"), self.company)

    def has_token(self, hx, node) -> bool:
        """``national_regions``: a national's home hexes' cities count as holding its token
        (g_1866/game.rb#city_tokened_by?, the nationals' graph's ``home_as_token``)."""
        if node.kind == "city" and self.national_region() is not None:
            if hx.id in home_hexes(self.declared["national_regions"], self.company):
                return True
        return super().has_token(hx, node)

    def blocks(self, hx, node) -> bool:
        """``national_regions``: no token blocks a national (its graph's ``no_blocking``).
        ``blocked_while_empty``: a city of these hexes holding no token is blocked, as the engine's two
        company-less block tokens fill it (18ESP's unopened mountain passes)."""
        if self.national_region() is not None:
            return False
        hexes = self.declared.get("blocked_while_empty")
        city = hx.cities.get(node.index) if hexes and hx.id in hexes and node.kind == "city" else None
        if city is not None and not any(city.tokens) and not city.extra:
            return True
        return super().blocks(hx, node)

    def offboard_closed(self, node) -> bool:
        """``offboards_closed_to``: the node is an off-board and the company's type one named (18ESP's
        minors, g_18_esp/game.rb#check_distance)."""
        return node.kind == "offboard" and self.company.type in (self.declared.get("offboards_closed_to") or ())

    def no_mine_reason(self, name: str) -> str:
        for kept in self.declared.get("trains_kept_off", ()):
            if name in kept["trains"]:
                return f"the {name} train may not visit a stop on {', '.join(kept['hexes'])}"
        return super().no_mine_reason(name)

    def forbidden_reason(self, hx, node) -> str:
        rule = self.declared.get("freight_ports")
        if rule and port_closed(self.board, self.company.id, rule, hx, node):
            return f"a train cannot visit the port {hx.id} without the company's token in its linked city"
        rule = self.declared.get("linked_stops")
        if rule and rule["group"] in node.groups and not self._linked(rule):
            return super().forbidden_reason(hx, node) + f": it holds no token on {' or '.join(rule['token_hexes'])}"
        if self._foreign_home(hx):
            return f"a route may not enter the {hx.color} hex {hx.id}: it is not the company's home"
        region = self.national_region()
        if region is not None and hx.id not in region:
            return super().forbidden_reason(hx, node) + ": a national runs within its region only"
        if self.offboard_closed(node):
            return f"a {self.company.type} may not run to an off-board ({hx.location_name or hx.id}, {hx.id})"
        return super().forbidden_reason(hx, node)

    def _foreign_home(self, hx) -> bool:
        """``home_only_colour``: the hex is of that colour and no home of the company (1868 Wyoming's
        purple hexes, g_1868_wy/game.rb#check_connected: "Route is not connected" for a route whose node
        hexes hold one but ``corporation.coordinates``)."""
        rule = self.declared.get("home_only_colour")
        if not rule:
            return False
        return hx.color == rule["color"] and rule["homes"].get(self.company.id) != hx.id

    def _linked(self, rule: dict) -> bool:
        hexes = [self.board.hexes[h] for h in rule["token_hexes"] if h in self.board.hexes]
        return any(self.company.id in city.tokens for hx in hexes for city in hx.cities.values())

    def location(self, hx, node) -> str:
        if self.mines_mine(hx, node):
            return "mines"  # a route reaches one mine at most
        for name, hexes in (self.declared.get("shared_locations") or {}).items():
            if hx.id in hexes:
                return "shared:" + name  # one of them a route
        if node.kind == "offboard" and hx.id in {hole for hole, _ in self.holes()}:
            return "holes"  # "Route cannot use holes as terminal more than once" (g_18_zoo #check_other)
        rule = self.declared.get("one_stop_per_hex")
        only = rule.get("hexes") if isinstance(rule, dict) else None
        groups = self.node_groups(hx, node)
        if rule and not groups and not self.exempt_from_one_stop(rule, hx) and (only is None or hx.id in only):
            return "hex:" + hx.id
        if groups and hx.id not in self.areas:
            return "group:" + "|".join(groups)
        return super().location(hx, node)

    @staticmethod
    def exempt_from_one_stop(rule, hx) -> bool:
        """A hex whose stops a route may visit two of, though ``one_stop_per_hex`` holds."""
        if not isinstance(rule, dict):
            return False
        has_town = any(n.kind == "town" for n in hx.tile.nodes)
        return hx.id in rule.get("except_hexes", ()) or bool(rule.get("except_towns") and has_town)

    def ends_free(self, spec: TrainSpec) -> bool:
        """``no_town_ends``' ``except_trains``: those trains may begin and end at a town (1825)."""
        rule = self.declared.get("no_town_ends")
        if not isinstance(rule, dict) or self.declared.get("route_termini"):
            return False
        return spec.name in rule.get("except_trains", ())

    def needs_end(self, spec: TrainSpec) -> bool:
        rule = self.declared.get("end_hexes") or {}
        return spec.name in rule.get("trains", ())

    def end_set(self, hx, node) -> bool:
        rule = self.declared.get("end_hexes") or {}
        return node.is_stop and hx.id in rule.get("hexes", ())

    def end_set_reason(self) -> str:
        rule = self.declared.get("end_hexes") or {}
        return rule.get("name") or super().end_set_reason()

    def no_end(self, hx, node) -> bool:
        if self.declared.get("route_termini") and not self.terminus(hx, node):
            return True
        rule = self.declared.get("no_town_ends")
        if isinstance(rule, dict) and "parts" in rule:
            return node.name in rule["parts"]
        if isinstance(rule, dict) and "tiles" in rule:
            return node.kind == "town" and hx.tile_name in rule["tiles"]
        return bool(rule) and node.kind == "town"

    def mining_value(self, stop, spec) -> int:
        """``mining_runs``: what the stop pays the train's route alone (g_1873/game.rb#revenue_for,
        #diesel_revenue); a run pays each stop once (:meth:`run_rule`)."""
        runs = self.declared["mining_runs"]
        hx = self.board.hexes[stop.hex]
        if stop.kind == "city" and self.blocks(hx, hx.tile.nodes[stop.node]):
            return 0
        if spec.name == runs["diesel"]:
            return int(runs["diesel_stop_revenue"]) if stop.kind == "city" else 0
        return self.mining_base(stop) + int(runs["mines"].get(stop.hex, 0)) * mining_distance(spec)

    def mining_base(self, stop) -> int:
        """What a stop pays the mining routes once, its mine aside: the city and the factory."""
        runs = self.declared["mining_runs"]
        hx = self.board.hexes[stop.hex]
        if stop.kind == "city" and self.blocks(hx, hx.tile.nodes[stop.node]):
            return 0
        city = (stop.value if stop.token else int(runs["stop_revenue"])) if stop.kind == "city" else 0
        return city + int(runs["factories"].get(stop.hex, 0))

    def run_rule(self, graph, trains, specs):
        runs = self.declared.get("mining_runs")
        if not runs:
            return super().run_rule(graph, trains, specs)
        stops = graph.stops
        blocked = tuple(
            s.kind == "city" and self.blocks(self.board.hexes[s.hex], self.board.hexes[s.hex].tile.nodes[s.node])
            for s in stops
        )
        groups, names = groups_of(trains, runs["diesel"])
        return MiningRuns(
            diesel_by_train=tuple(spec.name == runs["diesel"] for spec in specs),
            distance_by_train=tuple(mining_distance(spec) for spec in specs),
            group_by_train=groups,
            name_by_group=names,
            base_by_stop=tuple(self.mining_base(s) for s in stops),
            mine_by_stop=tuple(0 if b else int(runs["mines"].get(s.hex, 0)) for s, b in zip(stops, blocked)),
            diesel_by_stop=tuple(
                int(runs["diesel_stop_revenue"]) if s.kind == "city" and not b else 0 for s, b in zip(stops, blocked)
            ),
            blocked_by_stop=blocked,
            hex_by_stop=tuple(s.hex for s in stops),
            hexes_by_seg=tuple(frozenset(seg.hexes) for seg in graph.segments),
            concessions=tuple(frozenset(c) for c in runs["concessions"].get(self.company.id, ())),
        )

    def no_end_reason(self) -> str:
        if self.declared.get("route_termini"):
            return "no terminus: neither a city with the company's token nor a factory or mine not tokened out"
        rule = self.declared.get("no_town_ends")
        if isinstance(rule, dict) and "tiles" in rule:
            return f"a town of tile {' or '.join(rule['tiles'])}"
        return super().no_end_reason()

    def terminus(self, hx, node) -> bool:
        """``route_termini``: a stop a route may begin or end at (g_1873/game.rb#terminus?)."""
        rule = self.declared["route_termini"]
        if node.kind == "town":
            return hx.id in rule.get("factories", ())
        if node.kind != "city":
            return False
        if self.has_token(hx, node):
            return True
        return not self.blocks(hx, node) and (hx.id in rule.get("factories", ()) or hx.id in rule.get("mines", ()))

    def is_large(self, hx, node) -> bool:
        """Under ``counted_stops`` an off-board paying nothing in yellow is not counted
        (G18ZOO#cities_visited: ``v.offboard? && v.revenue[:yellow].positive?``)."""
        if node.kind == "offboard" and "counted_stops" in self.declared:
            return yellow_value(node) > 0
        types = self.large_types()  # stop_classes: the node types it names, less its small groups
        if types is not None:
            return node.kind in types and not set(node.groups) & set(self.small_groups())
        return super().is_large(hx, node)

    def counts_towns(self, spec: TrainSpec) -> bool:
        rule = self.declared.get("counted_stops")
        return rule is None or spec.name in rule.get("towns_count_for", ())

    def min_large(self, spec: TrainSpec) -> int:
        rule = self.declared.get("counted_stops")
        freight = self.declared.get("freight_ports")
        if freight:  # 2 paying non-port stops: a passenger or doubler train's are its cities
            return 0 if train_type(freight, spec.name) == "freight" else 2
        if rule is None or self.counts_towns(spec):
            return 0
        return int(rule.get("min", 0))

    def local_cities_once(self) -> str:
        return self.declared.get("local_cities_once", "")

    def routes_share_track(self) -> bool:
        return bool(self.declared.get("routes_share_track"))

    def stops_paid_once(self) -> bool:
        return bool(self.declared.get("stops_paid_once"))

    def freight_terms(self, spec: TrainSpec) -> tuple | None:
        return freight_terms(self.declared.get("freight_trains"), spec.name)

    def unlike_end_colours(self) -> tuple:
        return tuple(self.declared.get("unlike_ends", ()))

    def variable_cities(self) -> dict | None:
        return self.declared.get("variable_cities")

    def commodities(self) -> dict | None:
        return self.declared.get("commodities")

    def routes_meet(self) -> bool:
        return bool(self.declared.get("routes_meet"))

    # ---- gauge changes ---------------------------------------------------------------------
    def gauge_halves(self, side_name: str) -> int:
        """``gauge_borders``: a border on a hex side the route crosses is a gauge change, counted as a
        city of no value (lib/engine/game/g_1848/game.rb #visited_stops, #get_modified_gauge_distance,
        #edge_crossings: every path edge with a border on its own tile, summed and halved, as each
        border is listed on both hexes)."""
        a, _, b = side_name.partition("/")
        if self.declared.get("holes") and ({a, b} in [{h, n} for h, n in self.holes()]):
            return 1  # each end of the tunnel between two holes: the two make one more stop
        if not self.declared.get("gauge_borders"):
            return 0
        ha, hb = self.board.hexes.get(a), self.board.hexes.get(b)
        if ha is None or hb is None:
            return 0
        edge = next((e for e, other in ha.neighbors.items() if other == b), None)
        if edge is None:
            return 0
        back = next((e for e, other in hb.neighbors.items() if other == a), None)
        return int(any(e == edge for e, _ in ha.borders)) + int(any(e == back for e, _ in hb.borders))

    def holes(self) -> list:
        """``holes``: the two holes' hexes (a tile with an off-board and lanes: the tiles
        g_18_zoo/game.rb#assign_hole lays), each with the hex beyond its tunnel side (the side its
        lanes leave by); none unless there are exactly two."""
        if not self.declared.get("holes"):
            return []
        found = []
        for hx in self.board.hexes.values():
            if not any(n.kind == "offboard" for n in hx.tile.nodes):
                continue
            sides = {int(m.group(2 if m.group(3) == "b" else 1)) for m in _LANE_PATH.finditer(hx.tile.code)}
            for side in sides:
                beyond = hx.neighbors.get((side + hx.rotation) % 6)
                if beyond is not None:
                    found.append((hx.id, beyond))
        return found if len({h for h, _ in found}) == 2 and len(found) == 2 else []

    def hole_bonus(self) -> dict:
        """Passing through the tunnel pays a hole's off-board (G18ZOO#revenue_for, ``@holes[0]``) times
        the trains' multiplier: on the hex beyond the first hole's tunnel side, which only the tunnel's
        routes cross (paid once a route, as track)."""
        holes = self.holes()
        if not holes:
            return {}
        hole, beyond = holes[0]
        hx = self.board.hexes[hole]
        value = max(n.value(self.board.phase_tiles) for n in hx.tile.nodes if n.kind == "offboard")
        multipliers = {int(t.multiplier or 1) for t in self.board.trains} or {1}
        return {beyond: value * (multipliers.pop() if len(multipliers) == 1 else 1)}

    def free_gauge(self, spec: TrainSpec) -> int:
        """A train whose name has ``free_in_name`` (1848's "+" trains) runs one gauge change free."""
        rule = self.declared.get("gauge_borders")
        if not rule or not isinstance(rule, dict) or "free_in_name" not in rule:
            return 0
        return int(rule["free_in_name"] in spec.name)

    def halves(self, spec: TrainSpec) -> int:
        """``halved_trains``: ``{"prefix": P}``: a train whose name starts with P is paid half its route's
        revenue, rounded to 10 (lib/engine/game/g_1822_mx/game.rb#revenue_for: ``(revenue / 2).round(-1)``
        for ``3/2P``). ``obsolete_trains``: a train obsolete in the board's phase is paid half, rounded
        down (:func:`obsolete_in_phase`)."""
        rule = self.declared.get("halved_trains") or {}
        if "prefix" in rule and str(spec.name).startswith(rule["prefix"]):
            return HALF_TO_TEN
        obsolete = self.declared.get("obsolete_trains")
        if obsolete and obsolete_in_phase(obsolete, str(spec.name), self.board.phase_name):
            return HALF_DOWN
        return 0

    def end_cap(self, spec: TrainSpec) -> int:
        """``end_towns_count``: towns at a route's ends count against the cities a train with rows pays
        (lib/engine/game/g_18_mt/game.rb #check_distance: the pay of the row listing cities)."""
        if self.declared.get("end_towns_count"):
            for train in self.board.trains:
                if train.name == spec.name and isinstance(train.distance, list):
                    row = next((r for r in train.distance if "city" in r["nodes"]), None)
                    if row is not None:
                        return min(int(row["pay"]), UNLIMITED)
        return super().end_cap(spec)

    # ---- stop classes and trains -----------------------------------------------------------
    def large_types(self) -> frozenset | None:
        rule = self.declared.get("stop_classes")
        return frozenset(rule["large"]) if rule else None

    def small_groups(self) -> tuple:
        """Groups whose cities count small, where every train of the company is one that may: 18VA's
        CMD, uncounted for freight trains (a ``trains`` pattern) and closed to the others."""
        rule = self.declared["stop_classes"]
        trains = rule.get("small_groups_trains")
        if trains and not all(re.search(trains, t.name) for t in self.board.trains):
            return ()
        return tuple(rule.get("small_groups", ()))

    def spec_by_rows(self, train, where: str) -> TrainSpec | None:
        """The train's caps from its rows, by the title's ``stop_classes`` where it declares them
        (see :mod:`optimizer.games.stop_classes`); a train ``unsupported_trains`` names is refused."""
        reason = self.declared.get("unsupported_trains", {}).get(train.name)
        if reason:
            raise BoardError(f"{where}: train {train.name!r} is not supported: {reason}", field=where)
        types = self.large_types()
        if types is None or not isinstance(train.distance, list):
            return super().train_spec(train, where)
        spec = spec_by_classes(train, types, where)
        digits = re.match(r"\d+", train.name)
        if self.declared["stop_classes"].get("large_visit_from_name") and digits:
            spec = replace(spec, visit_large=min(spec.visit_large, int(digits.group())))
        return spec

    def once_location(self, hx, node) -> str | None:
        """``connection_bonuses``: the location whose unclaimed bonus the stop pays, or None."""
        rule = self.declared.get("connection_bonuses")
        if not rule or not node.is_stop:
            return None
        if hx.color == "red":
            if hx.id in rule.get("ambiguous_hexes", ()):
                return None
            for location in rule.get("offboard_locations", ()):
                first = self.board.hexes.get(location[0])
                if hx.id in location and first is not None and first.assignments.get(rule["assignment"]):
                    return location[0]
            return None
        return hx.id if hx.assignments.get(rule["assignment"]) else None

    def once_locations(self) -> dict:
        out = {}
        for hx in self.board.hexes.values():
            for node in hx.tile.nodes:
                where = self.once_location(hx, node)
                if where is not None:
                    out[hx.node_id(node.index)] = where
        return out

    def once_amount(self) -> int:
        rule = self.declared.get("connection_bonuses")
        return int(rule["amount"]) if rule else 0

    def fixed_revenue(self) -> int:
        kinds = set(self.declared.get("ability_revenue", ()))
        total = 0
        for a in self.company.abilities:
            m = re.search(r"\$(\d+)", str(a.get("description") or ""))
            if a.get("type") in kinds and m:
                total += int(m.group(1))
        return total + (self.maintenance() or 0)

    def maintenance(self) -> int | None:
        """``train_maintenance``: what the company's trains earn beside its routes, None where unknown."""
        rule = self.declared.get("train_maintenance")
        return known_maintenance(rule, self.company.type, self.board.trains) if rule else 0

    def fixed_needs_route(self) -> bool:
        return "train_maintenance" in self.declared

    def not_all_trains(self) -> bool:
        ability = (self.declared.get("civil_war") or {}).get("ability")
        return ability is not None and any(a.get("type") == ability for a in self.company.abilities)

    def leased_only(self) -> bool:
        """``leased_trains``: every train of the company is leased from its owner (see the docstring)."""
        rule = self.declared.get("leased_trains")
        return bool(rule and self.board.trains and all(t.owner == rule["owner"] for t in self.board.trains))

    def home_stop(self, graph) -> int:
        rule = self.declared.get("home_route")
        return home_stop(rule, self.company.id, graph) if rule else super().home_stop(graph)

    def track_walk(self) -> tuple:
        walk = self.declared.get("track_walk") or {}
        return (not walk.get("ignore_gauge", False), walk.get("skip_track"))

    # ---- trains that count hex edges (hex_distance: optimizer/games/hex_trains.py), E trains ------
    def train_spec(self, train, where: str) -> TrainSpec | None:
        """The train's caps under the title's families: under ``counted_stops`` a train of a numeric
        distance counts its large stops only (its towns and unpaid off-boards are free, and it is paid
        for every stop it visits); ``hex_distance`` caps hex edges; ``e_trains`` pay token cities only."""
        spec = self.spec_by_rows(train, where)
        if spec is None:
            return spec
        if self.declared.get("label_count_bonus") and not spec.pays_all:
            raise BoardError(f"{where}: label_count_bonus needs train {train.name!r} to pay every stop", field=where)
        if not self.counts_towns(spec) and not isinstance(train.distance, list):
            free = UNLIMITED
            spec = replace(spec, visit_small=free, visit_total=free, pay_small=free, pay_total=free)
        rule = self.declared.get("hex_distance")
        if rule:
            spec = hex_spec(rule, train, spec)
        if self.declared.get("port_half_again") and (
            spec.multiplier != 1 or spec.kind_multipliers or not spec.pays_all
        ):
            raise BoardError(
                f"{where}: port_half_again needs train {train.name!r} to pay every stop once, at multiplier 1",
                field=where,
            )
        if self.declared.get("towns_fill"):
            spec = towns_fill(train, spec)
        express = self.declared.get("express_trains")
        if express and express["name_has"] in train.name and not isinstance(train.distance, list):
            spec = self.express_spec(express, train, spec)
            if spec is None:
                return None
        if self.leased_only():
            pay = int(train.distance[0]["pay"]) if isinstance(train.distance, list) else spec.pay_large
            rule = self.declared["leased_trains"]
            spec = replace(spec, pay_small=pay, pay_total=pay, large_first=True, stop_value=int(rule["stop_value"]))
        for rule in self.declared.get("train_track_groups", ()):
            if rule["name_has"] in train.name:
                spec = replace(spec, track_group=int(rule["group"]))
                break
        e_rule = self.declared.get("e_trains")
        if e_rule and train.name in e_rule["trains"]:
            spec = replace(spec, tokens_only=True, token_ends=bool(e_rule.get("token_ends")), track_group=1)
        cap = self.declared.get("first_row_pays_total")
        if cap and self.company.type in cap["company_types"] and isinstance(train.distance, list) and train.distance:
            spec = replace(spec, pay_total=min(spec.pay_total, int(train.distance[0]["pay"])))
        runs = self.declared.get("mining_runs")
        if runs and train.name == runs["diesel"]:
            spec = replace(spec, token_ends=True, track_group=1)  # g_1873 #d_terminus?, #check_overlap by kind
        if self.declared.get("no_distance_limit"):
            free = UNLIMITED
            spec = replace(spec, visit_large=free, visit_small=free, visit_total=free)
            spec = replace(spec, pay_large=free, pay_small=free, pay_total=free)
        more = self.extra_distance(train)
        if more:
            spec = replace(spec, visit_large=spec.visit_large + more, pay_large=spec.pay_large + more)
        if self.national_region() is not None:  # no track outside its region (its segments there are forbidden)
            spec = replace(spec, hex_cap=spec.hex_cap if spec.hex_cap >= 0 else UNCAPPED)
        times = (self.declared.get("multiplied_trains") or {}).get(train.name)
        if times:
            spec = replace(spec, multiplier=spec.multiplier * int(times))
        return spec

    def express_spec(self, rule: dict, train, spec: TrainSpec) -> TrainSpec | None:
        """``express_trains``: the company's express trains run as one, its smallest (the others run no
        route), visiting at most N cities and off-boards, all paid, towns free, its best towns filling
        the pay the cities leave, paid times the number of express trains the company owns
        (lib/engine/game/g_18_new_england/game.rb#route_trains, #check_distance, #compute_stops,
        #revenue_multiplier)."""
        express = [t for t in self.board.trains if rule["name_has"] in t.name and not isinstance(t.distance, list)]
        if train is not min(express, key=lambda t: int(t.distance)):
            return None
        n = int(train.distance)
        free = UNLIMITED
        return replace(
            spec,
            visit_large=n,
            visit_small=free,
            visit_total=free,
            pay_large=n,
            pay_small=n,
            pay_total=n,
            large_first=True,
            multiplier=spec.multiplier * len(express),
        )

    def extra_distance(self, train) -> int:
        """``extra_distance``: the large stops one train of the company may count beyond its distance
        while the company owns the private (18ZOO's A_TIP_OF_SUGAR, g_18_zoo/game.rb#distance_aux);
        only where that train is the company's one train the private serves, since no more than one
        may use it in a run (#check_connected: "Only one train can use \"A tip of sugar\"")."""
        rule = self.declared.get("extra_distance")
        if not rule or rule["company"] not in self.company.companies or train.name in rule.get("except_trains", ()):
            return 0
        served = [t for t in self.board.trains if t.name not in rule.get("except_trains", ())]
        return int(rule["amount"]) if len(served) == 1 else 0

    def one_extra_large(self, specs: list) -> tuple:
        """``extra_distance`` where the private serves two or more of the company's trains: any one of
        them, but one only, may count one more large stop in a run (#check_connected)."""
        rule = self.declared.get("extra_distance")
        if not rule or rule["company"] not in self.company.companies or int(rule["amount"]) != 1:
            return ()
        served = [t for t in self.board.trains if t.name not in rule.get("except_trains", ())]
        if len(served) < 2:
            return ()
        return tuple(t for t, spec in enumerate(specs) if spec.name not in rule.get("except_trains", ()))

    def hex_edges(self, graph, spec: TrainSpec) -> list:
        rule = self.declared.get("hex_distance")
        costs = segment_costs(rule, self.board, graph, spec) if rule else super().hex_edges(graph, spec)
        region = self.national_region()
        if region is None:
            return costs
        return [(edges, why or segment_reason(region, seg)) for (edges, why), seg in zip(costs, graph.segments)]

    def track_stop_bonus(self) -> tuple:
        rule = self.declared.get("track_stop_bonus")
        return (tuple(rule["track"]), int(rule["amount"])) if rule else super().track_stop_bonus()

    def gauge_sets(self, train) -> tuple | None:
        for rule in self.declared.get("gauges", ()):
            if "trains" in rule and train.name not in rule["trains"]:
                continue
            if "trains_match" in rule and not re.fullmatch(rule["trains_match"], train.name):
                continue
            if train.name in rule.get("except_trains", ()):
                continue
            if "company_types" in rule and self.company.type not in rule["company_types"]:
                continue
            return tuple(tuple(kinds) for kinds in rule["sets"])
        return None

    # ---- stop values -----------------------------------------------------------------------
    def stops_on(self, hx) -> list:
        return [hx.node_id(n.index) for n in hx.tile.nodes if n.is_stop]

    def assigned_bonus(self, hx) -> int:
        """Assignments the company and the hex share (each paid once per route)."""
        mine = self.company.assignments
        total = 0
        for rule in self.declared.get("assigned_stop_bonuses", ()):
            key = rule["assignment"]
            held = self.owns(rule["owns"]) if "owns" in rule else mine.get(key)
            if held and hx.assignments.get(key):
                count = self.icon_names(hx).count(rule["per_icon"]) if rule.get("per_icon") else 1
                total += rule["amount"] * count
        return total

    def token_penalty(self, hx) -> int:
        """What ``token_penalties`` take from a paid stop on the hex, once a route (18 Los Angeles's Dump)."""
        total = 0
        for rule in self.declared.get("token_penalties", ()):
            if not any(rule["token"] in city.tokens for city in hx.cities.values()):
                continue
            amount = int(rule["amount"])
            reduced = rule.get("reduced")
            if reduced and hx.id in reduced["hexes"]:
                key = reduced.get("unless_assignment")
                if not (key and self.company.assignments.get(key) and hx.assignments.get(key)):
                    amount = int(reduced["amount"])
            total += amount
        return total

    def route_once_bonus(self, hx) -> int:
        """What a route earns once on the hex, however many of its stops it pays (assignments, penalties)."""
        return self.assigned_bonus(hx) - self.token_penalty(hx)

    def ability_bonus(self, hx) -> int:
        kinds = set(self.declared.get("ability_stop_bonuses", ()))
        return sum(
            int(a.get("amount") or 0)
            for a in self.company.abilities
            if a.get("type") in kinds and hx.id in (a.get("hexes") or ())
        ) + self.closed_private_bonus(hx)

    def closed_private_bonus(self, hx) -> int:
        """``closed_private_hex_bonuses``: what the director's closed privates add to a stop on hx,
        a private being closed once a tile lies on the hex it blocked (the engine's
        ``#close_company_in_hex``)."""
        total = 0
        for company, hexes, amount, blocked, printed in self.closed_private_bonuses:
            if hx.id not in hexes or company not in self.company.president_companies:
                continue
            built = [h for h in blocked if h in self.board.hexes and self.board.hexes[h].tile_name != printed.get(h)]
            if built:
                total += amount
        return total

    def has_label(self, hx, label: str) -> bool:
        """The hex's tile is labelled ``label``, or will be (a ``future_label``, as the engine's
        ``tile.future_label.label`` that g_1848 #k_sum reads)."""
        if label in hx.tile.labels:
            return True
        for part in parse_code(hx.tile.code).cosmetic:
            kind, _, body = part.partition("=")
            if kind == "future_label" and dict(p.partition(":")[::2] for p in body.split(",")).get("label") == label:
                return True
        return False

    def label_count_value(self, hx) -> int:
        """``label_count_bonus``: ``amount`` for each paid stop on a hex labelled ``label``; the pair
        of its set with itself takes one back per route (see :meth:`bonuses`)."""
        rule = self.declared.get("label_count_bonus")
        return int(rule["amount"]) if rule and self.has_label(hx, rule["label"]) else 0

    def owns(self, company: str) -> bool:
        """The company owns the private company ``company`` (18SJ's GKB and Sveabolaget pay their owner)."""
        return company in self.company.companies

    def hex_assignment_bonus(self, hx) -> int:
        """What the hex's assignments add to each paid stop on it, whoever placed them (1817's bridges),
        or, with ``owns``, for the owner of that private company only (18SJ's GKB)."""
        return sum(
            int(rule["amount"])
            for rule in self.declared.get("hex_assignment_stop_bonuses", ())
            if hx.assignments.get(rule["assignment"]) and ("owns" not in rule or self.owns(rule["owns"]))
        )

    def city_token_bonus(self, hx, node) -> int:
        """``city_token_bonus``: what the tokens of the companies named add to a paid city (18Mag's majors)."""
        rule = self.declared.get("city_token_bonus") or {}
        city = hx.cities.get(node.index) if rule and node.kind == "city" else None
        if city is None:
            return 0
        majors = rule["companies"]
        return int(rule["amount"]) * len([token for token in city.tokens if token in majors])

    def token_hex_double(self, stop, spec: TrainSpec) -> int:
        """``token_hex_doubles``: a train named there is paid a stop's value again where a city of its
        hex holds the company's token (18SJ's E train, g_18_sj/game.rb#revenue_for, #friendly_city?)."""
        rule = self.declared.get("token_hex_doubles")
        if not rule or spec.name not in rule["trains"]:
            return 0
        hx = self.board.hexes[stop.hex]
        if not any(self.company.id in city.tokens for city in hx.cities.values()):
            return 0
        return hx.tile.nodes[stop.node].value(self.board.phase_tiles)

    def doubled(self, hx, node) -> int:
        """A stop paid twice: on a hex of one of the company's abilities of a type in
        ``ability_stop_doubles`` (18JP-T's destination, hex_bonus), or, with ``own_hex_doubles``, on a
        hex the engine assigned the company itself (1850's edge token), or on a hex of
        ``assigned_hex_doubles`` whose id the company holds as an assignment (18Ardennes' mines)."""
        kinds = set(self.declared.get("ability_stop_doubles", ()))
        on_ability = any(a.get("type") in kinds and hx.id in (a.get("hexes") or ()) for a in self.company.abilities)
        own = self.declared.get("own_hex_doubles") and any(
            key == self.company.id or str(key).endswith(f": {self.company.id}>") for key in hx.assignments
        )
        by_hex = hx.id in self.declared.get("assigned_hex_doubles", ()) and self.company.assignments.get(hx.id)
        return node.value(self.board.phase_tiles) if on_ability or own or by_hex else 0

    def development_rule(self) -> dict | None:
        """``development_values``, where the board gives ``hex_tokens`` (else the document is silent on them)."""
        rule = self.declared.get("development_values")
        return rule if rule and self.board.hex_tokens_given else None

    def open_gaps(self, lines: tuple) -> tuple:
        """The title's coverage lines this board leaves open: those ``development_values`` covers are
        answered on a board giving ``hex_tokens``."""
        rule = self.development_rule()
        if rule is None:
            return lines
        return tuple(line for line in lines if not any(line.startswith(c) for c in rule.get("covers", ())))

    def value_bonus(self, hx, node) -> int:
        rule = self.development_rule()
        teapot = neighbour_token_bonus(self.board, rule, hx, node) if rule and boom_city(hx, node) else 0
        return teapot + self._value_bonus(hx, node)

    def _value_bonus(self, hx, node) -> int:
        narrow = narrow_gauge_bonus(self.board, hx.id, node.index) if self.declared.get("narrow_gauge_revenue") else 0
        own = self.hex_assignment_bonus(hx) + self.doubled(hx, node) + self.label_count_value(hx)
        own += self.city_token_bonus(hx, node)
        once = self.once_amount() if self.once_location(hx, node) is not None else 0
        own += self.token_city_bonus(hx, node)
        return self.route_once_bonus(hx) + self.ability_bonus(hx) + own + narrow + once

    def token_city_bonus(self, hx, node) -> int:
        """``token_city_bonuses``: the amount of the hex where its city holds the company's token (18ESP's
        mountain passes, g_18_esp/game.rb#revenue_for, #tokened_mountain_pass)."""
        amount = (self.declared.get("token_city_bonuses") or {}).get(hx.id)
        return int(amount) if amount and self.has_token(hx, node) else 0

    def subsidy_part(self, hx, node) -> bool:
        """``subsidy_parts``: the stop is a part whose value the engine pays as a subsidy (18ESP's halts)."""
        return node.name in (self.declared.get("subsidy_parts") or ())

    def for_company_type(self, rule: dict) -> bool:
        """The rule names no ``company_types``, or the company's type is one of them."""
        return "company_types" not in rule or self.company.type in rule["company_types"]

    def train_stop_bonus(self, stop, spec: TrainSpec) -> int:
        """What a paid stop adds for this train by ``train_stop_bonuses`` (18USA's Pullman; 1822CA's grain
        elevators, only ``hexes``, only for ``company_types``)."""
        total = 0
        for rule in self.declared.get("train_stop_bonuses", ()):
            if (
                re.fullmatch(rule["train"], spec.name or "")
                and self.board.hexes[stop.hex].tile_name not in rule.get("except_tiles", ())
                and ("hexes" not in rule or stop.hex in rule["hexes"])
                and ("phases" not in rule or self.board.phase_name in rule["phases"])
                and self.for_company_type(rule)
            ):
                total += int(rule["amount"])
        return total

    def label_bonus(self, hx) -> int:
        """What crossing the hex earns by ``track_label_bonuses`` (18USA's resources)."""
        if hx.color == "white":
            return 0
        total = 0
        phase = self.board.phase_tiles
        for rule in self.declared.get("track_label_bonuses", ()):
            if not any(rule["label"] in label for label in hx.tile.labels):
                continue
            amount = int(rule["amount"])
            for colour, later in (rule.get("phase") or {}).items():
                if colour in phase:
                    amount = int(later)
            total += int((rule.get("tiles") or {}).get(hx.tile_name, amount))
        return total

    def track_hex_bonuses(self) -> dict:
        """Hex id -> what a route crossing it earns, once a route (``track_assignment_bonuses``,
        ``track_label_bonuses``)."""
        out: dict = dict(self.hole_bonus())
        if self.declared.get("track_label_bonuses"):
            for hx in self.board.hexes.values():
                amount = self.label_bonus(hx)
                if amount:
                    out[hx.id] = amount
        for rule in self.declared.get("track_assignment_bonuses", ()):
            if rule.get("except_trains"):
                continue  # not every train earns it: train_track_bonuses
            key = rule["assignment"]
            for hx in self.board.hexes.values():
                if not hx.assignments.get(key):
                    continue
                if rule.get("no_ends") and self.stops_on(hx):
                    raise BoardError(
                        f"hex {hx.id}: a route may not start or end at its {key}, and a stop there is not"
                        " supported (lib/engine/game/g_1817/game.rb#revenue_for)",
                        field="hexes",
                    )
                out[hx.id] = out.get(hx.id, 0) + int(rule["amount"])
        for h, amount in self.hexes_crossed_bonuses().items():
            out[h] = out.get(h, 0) + amount
        return out

    def hexes_crossed_bonuses(self) -> dict:
        """Hex id -> what ``track_hexes_bonuses`` pay a route whose track crosses it, once a route: the
        rule's ``hexes``, in the phases named (``phases``), while the hex's location name starts with
        ``while_named`` where given; ``owner_amounts`` (``{company: amount}``) pays a company owning that
        private company its amount instead (1868 Wyoming's forts, g_1868_wy/game.rb#fort_bonuses)."""
        out: dict = {}
        for rule in self.declared.get("track_hexes_bonuses", ()):
            if "phases" in rule and self.board.phase_name not in rule["phases"]:
                continue
            amount = int(rule["amount"])
            for company, more in (rule.get("owner_amounts") or {}).items():
                if self.owns(company):
                    amount = int(more)
            for h in rule["hexes"]:
                hx = self.board.hexes.get(h)
                prefix = rule.get("while_named")
                if hx is None or (prefix and not (hx.location_name or "").startswith(prefix)):
                    continue
                out[h] = out.get(h, 0) + amount
        return out

    def train_track_bonuses(self) -> list:
        """(hex id, amount, train names) of the ``track_assignment_bonuses`` that name ``except_trains``:
        a route of those trains earns nothing there (1822PNW's forests and Ski Haus, none for an E train:
        lib/engine/game/g_1822_pnw/game.rb#forest_revenue, #ski_haus_revenue)."""
        out = []
        for rule in self.declared.get("track_assignment_bonuses", ()):
            names = tuple(rule.get("except_trains") or ())
            if names:
                out += [
                    (hx.id, int(rule["amount"]), names)
                    for hx in self.board.hexes.values()
                    if hx.assignments.get(rule["assignment"])
                ]
        return out

    def track_tile_penalties(self) -> dict:
        """Hex id -> what a route crossing it loses, once a route, by ``track_tile_penalties``: the hexes
        whose tile is one named, unless the company owns ``except_company`` (1822PNW's Portage,
        g_1822_pnw/game.rb#portage_penalty: 10 a PNW1/PNW2 hex of ``Route#all_hexes``, none with P16)."""
        out: dict = {}
        for rule in self.declared.get("track_tile_penalties", ()):
            if rule.get("except_company") in self.company.companies:
                continue
            for hx in self.board.hexes.values():
                if hx.tile_name in rule["tiles"]:
                    out[hx.id] = out.get(hx.id, 0) + int(rule["amount"])
        return out

    def value(self, hx, node) -> int:
        """A mine, or a part of ``subsidy_parts``, pays no route revenue (its value is the company's subsidy); under
        ``tokened_cities_only`` a city without the company's token pays nothing; under
        ``offboard_phase_columns`` an off-board pays the column of its table the engine maps the
        phase's name to, not the phase's tile colours (1841's white/gray/black)."""
        if self.mines_mine(hx, node) or self.subsidy_part(hx, node):
            return 0
        if self.port_group(node):  # paid as pairs with the company's token cities (see bonuses)
            return self.value_bonus(hx, node)
        if self.declared.get("tokened_cities_only") and node.kind == "city" and not self.has_token(hx, node):
            return 0
        columns = self.declared.get("offboard_phase_columns")
        column = columns.get(self.board.phase_name) if columns else None
        if column is not None and node.kind == "offboard":
            return node.value([column]) + self.value_bonus(hx, node)
        rule = self.development_rule()
        if rule and boom_city(hx, node):
            return boom_value(self.board, rule, hx, node) + self.value_bonus(hx, node)
        return super().value(hx, node)

    def make_stop(self, hx, node):
        """``port_half_again``: a stop of its group is flagged (the searches pay the route half again)."""
        stop = super().make_stop(hx, node)
        rule = self.declared.get("port_half_again")
        if rule and rule["group"] in node.groups:
            stop.half_again = True
        if self.port_group(node):  # port_per_token: "must contain 2 other stops"
            stop.min_three = True
        if self.declared.get("destination_ends") and hx.id == self.reached_destination():
            stop.end_bonus = node.value(self.board.phase_tiles)
        return stop

    def reached_destination(self) -> str | None:
        """``destination_ends``: the company's destination hex (the first hex of its first ability, as
        lib/engine/game/g_1870/game.rb#destination_hex reads it) once reached: no longer assigned the
        company (#destination_revenue: ``return 0 if destination.assigned?(route.corporation)``)."""
        abilities = self.company.abilities
        hexes = (abilities[0].get("hexes") or []) if abilities else []
        hx = self.board.hexes.get(hexes[0]) if hexes else None
        if hx is None:
            return None
        cid = self.company.id
        if any(key == cid or str(key).endswith(f": {cid}>") for key in hx.assignments):
            return None
        return hx.id

    def half_again_pairs(self) -> list:
        """``port_half_again``: each port paid with each other stop half that stop's value, rounded up;
        the searches take back what the engine's rounding down to 10 leaves out (never more than the
        pairs add, so they bound the route: ``revenue.half_again_adjustment``). Only where a stop pays
        every train alike, at multiplier 1 (1850Jr's trains), and the ports themselves nothing (1850Jr's
        ``revenue:yellow_0``), so that the pairs are half the route's sum, rounded up."""
        group = self.declared["port_half_again"]["group"]
        ports: list = []
        others: list = []
        for hx in self.board.hexes.values():
            for node in hx.stop_nodes:
                if self.forbidden(hx, node):
                    continue
                stop_id = hx.node_id(node.index)
                value = self.value(hx, node)
                if group in node.groups and value:
                    raise BoardError(
                        f"hex {hx.id}: port_half_again needs its ports worth nothing (this one pays {value})",
                        field="hexes",
                        hex=hx.id,
                    )
                (ports if group in node.groups else others).append((stop_id, value))
        return [PairBonus(p, s, (v + 1) // 2) for p, _ in ports for s, v in others if v > 0]

    def port_group(self, node) -> bool:
        """A stop of ``port_per_token``'s group."""
        rule = self.declared.get("port_per_token")
        return rule is not None and rule["group"] in node.groups

    def port_pairs(self) -> list:
        """``port_per_token``: each port pays its value once for each city of the route holding the
        company's token: a pair of the port and each such city."""
        ports, cities = [], []
        for hx in self.board.hexes.values():
            for node in hx.stop_nodes:
                if self.port_group(node):
                    ports.append((hx.node_id(node.index), node.value(self.board.phase_tiles)))
                elif node.kind == "city" and self.has_token(hx, node):
                    cities.append(hx.node_id(node.index))
        return [PairBonus(port, city, value) for port, value in ports if value for city in cities]

    def train_value(self, stop, spec: TrainSpec) -> int:
        """A train kind named in ``train_values`` is paid that entry of a stop's revenue table where
        it has one (lib/engine/part/revenue_center.rb#route_revenue: a D train takes ``diesel``)."""
        freight = self.declared.get("freight_ports")
        if freight:
            return value_for(
                self.board, self.company, freight, stop, spec, self.board.hexes[stop.hex].tile.nodes[stop.node]
            )
        if self.declared.get("mining_runs"):
            return self.mining_value(stop, spec)
        if spec.stop_value >= 0:  # a leased train (leased_trains): its halts pay nothing, as once halts are ignored
            return 0 if self.board.hexes[stop.hex].tile.nodes[stop.node].name == "halt" else spec.stop_value
        paid_only = self.declared.get("paid_only_tokened_or_red")
        if paid_only and str(spec.name).endswith(paid_only["suffix"]) and not (stop.token or stop.red):
            return 0
        key = self.declared.get("train_values", {}).get(spec.name)
        if spec.tokens_only and not stop.token:
            return 0
        hx = self.board.hexes[stop.hex]
        node = hx.tile.nodes[stop.node]
        table = dict(node.revenue)
        extra = self.train_stop_bonus(stop, spec) if self.declared.get("train_stop_bonuses") else 0
        extra += self.token_hex_double(stop, spec)
        if key is None or key not in table:
            return super().train_value(stop, spec) + extra
        return spec.value_of(table[key], stop.large, stop.kind) + self.value_bonus(hx, node) + extra

    # ---- bonuses ---------------------------------------------------------------------------
    def hex_value_amounts(self, hex_id: str) -> dict:
        """``set_pairs``' ``amount_of_hex``: {amount: train names}, the hex's off-board value in the board's
        phase times each train's multiplier, twice that for a train paid half rounded down (so that the
        halving leaves the bonus whole); none where the value is 0 or the hex is not on the board."""
        hx = self.board.hexes.get(hex_id)
        values = [n.value(self.board.phase_tiles) for n in hx.tile.nodes if n.kind == "offboard"] if hx else []
        value = max(values, default=0)
        obsolete = self.declared.get("obsolete_trains")
        out: dict = {}
        for train in self.board.trains:
            halved = obsolete is not None and obsolete_in_phase(obsolete, train.name, self.board.phase_name)
            amount = value * int(train.multiplier or 1) * (2 if halved else 1)
            if amount:
                out.setdefault(amount, set()).add(train.name)
        return out

    def select(self, spec: dict) -> list:
        """(stop id, hex) of the stops a group-pair set names."""
        out = []
        for hx in self.board.hexes.values():
            for node in hx.tile.nodes:
                if not node.is_stop:
                    continue
                if (
                    ("group" in spec and spec["group"] in self.node_groups(hx, node))
                    or ("label" in spec and spec["label"] in hx.tile.labels)
                    or ("label_has" in spec and any(spec["label_has"] in label for label in hx.tile.labels))
                    or ("hexes" in spec and hx.id in spec["hexes"])
                    or ("assignment" in spec and hx.assignments.get(spec["assignment"]))
                ):
                    out.append((hx.node_id(node.index), hx))
        return out

    def untokened_stops(self, tiles) -> list:
        """The stops on these tiles whose city holds no token of the company."""
        out = []
        for hx in self.board.hexes.values():
            if hx.tile_name not in tiles:
                continue
            for node in hx.stop_nodes:
                city = hx.cities.get(node.index)
                if city is None or self.company.id not in city.tokens:
                    out.append(hx.node_id(node.index))
        return out

    def pair_amount(self, amount, hx_a, hx_b) -> int:
        if isinstance(amount, dict):  # a bonus by hex, both ends' summed (1844's east-west and north-south)
            return int(amount.get(hx_a.id, 0)) + int(amount.get(hx_b.id, 0))
        if amount == "icons":
            return sum(icon_number(n) for n in self.icon_names(hx_a) + self.icon_names(hx_b))
        return int(amount)

    def once_per_route(self) -> list:
        """Pairs taking back a per-route bonus a route would otherwise be paid twice on one hex."""
        pairs = []
        for hx in self.board.hexes.values():
            bonus = self.route_once_bonus(hx)
            stops = self.stops_on(hx)
            if bonus and len(stops) > 1:
                pairs += [PairBonus(a, b, -bonus) for a, b in combinations(stops, 2)]
        return pairs

    def group_conflicts(self) -> list:
        """Visited pairs of :data:`FORBIDDEN` for two stops whose groups overlap but differ (those of the
        same groups share a location already): lib/engine/route.rb#revenue, "Cannot use group ... more
        than once"."""
        grouped = []
        for hx in self.board.hexes.values():
            for node in hx.tile.nodes:
                groups = self.node_groups(hx, node) if node.is_stop else ()
                if groups:
                    grouped.append((hx.node_id(node.index), frozenset(groups)))
        return [
            PairBonus(a, b, FORBIDDEN, visited=True)
            for (a, ga), (b, gb) in combinations(grouped, 2)
            if ga != gb and ga & gb
        ]

    def holds(self, rule: dict) -> bool:
        if rule.get("every_company"):
            return True
        owned = rule.get("company") and rule["company"] in self.company.companies
        ability = rule.get("ability") and any(a.get("type") == rule["ability"] for a in self.company.abilities)
        return bool(owned or ability)

    def assigned_hexes(self, key: str) -> list:
        return [hx.id for hx in self.board.hexes.values() if hx.assignments.get(key)]

    def phase_amount(self, rule: dict, amount: int) -> int:
        """``phase_amounts`` (``{"5": 30}``): the amount once the phase's number (its name's leading
        digits, as the engine's ``@phase.name.to_i``) is at least a key's."""
        number = icon_number(str(self.board.phase_name or ""))
        for start, later in sorted((int(k), int(v)) for k, v in (rule.get("phase_amounts") or {}).items()):
            if number >= start:
                amount = later
        return amount

    def best_route_bonus(self, rule: dict) -> BestRouteBonus:
        hexes = list(rule.get("hexes") or ())
        if rule.get("assignment"):  # the hexes holding it, whoever placed it (1822PNW's mill)
            hexes = self.assigned_hexes(rule["assignment"])
        amount = self.phase_amount(rule, int(rule.get("amount") or 0))
        amount += sum(int(rule.get("per_phase_colour", {}).get(colour, 0)) for colour in self.board.phase_tiles)
        for a in self.company.abilities:  # the ability's own hexes and amount, where it gives them
            if rule.get("ability") and a.get("type") == rule["ability"]:
                hexes = list(a.get("hexes") or hexes)
                amount = int(a.get("amount") or amount)
        groups = tuple(tuple(self.stop_ids_on(h)) for h in hexes)
        kinds = rule.get("per_stop_kinds")
        counted = None
        if kinds is not None:
            counted = tuple(
                hx.node_id(n.index)
                for hx in self.board.hexes.values()
                for n in hx.tile.nodes
                if n.is_stop and n.kind in kinds
            )
        per_hex = rule.get("per_hex") or {}
        return BestRouteBonus(
            amount=0 if rule.get("assignment") and not hexes else amount,  # no hex holds it yet: never met
            per_stop=int(rule.get("per_stop") or 0),
            require=groups,
            counted=counted,
            multiplied=bool(rule.get("multiplied")),
            per_hex=int(per_hex.get("amount") or 0),
            hexes=tuple(self.assigned_hexes(per_hex["assignment"])) if per_hex else (),
            hexes_except=tuple(per_hex.get("except_trains") or ()),
        )

    def bonuses(self) -> Bonuses:
        bonuses = Bonuses()
        paired: set = set()
        for rule in self.declared.get("group_pairs", ()):
            ends_a, ends_b = self.select(rule["a"]), self.select(rule["b"])
            for a, hx_a in ends_a:
                for b, hx_b in ends_b:
                    if a == b or (rule.get("unless_paired") and frozenset((a, b)) in paired):
                        continue
                    bonuses.pairs.append(PairBonus(a, b, self.pair_amount(rule["amount"], hx_a, hx_b)))
                    paired.add(frozenset((a, b)))
        bonuses.pairs += self.once_per_route()
        bonuses.pairs += self.group_conflicts()
        if self.declared.get("port_per_token"):
            bonuses.pairs += self.port_pairs()
        if self.declared.get("port_half_again"):
            bonuses.pairs += self.half_again_pairs()
        if self.declared.get("freight_ports"):
            bonuses.pairs += steamboat_pairs(self.board, self.company, self.declared["freight_ports"])
        bonuses.hex_bonuses = self.track_hex_bonuses()
        bonuses.train_hex_bonuses = self.train_track_bonuses()
        for h, amount in self.track_tile_penalties().items():
            bonuses.hex_penalties[h] = bonuses.hex_penalties.get(h, 0) + amount
        for rule in self.declared.get("set_pairs", ()):
            held = "holds" not in rule or self.company.assignments.get(rule["holds"])
            held = held and ("owns" not in rule or self.owns(rule["owns"]))
            if rule.get("company") in (None, self.company.id) and held and self.for_company_type(rule):
                a = tuple(stop for stop, _ in self.select(rule["a"]))
                b = tuple(stop for stop, _ in self.select(rule["b"]))
                visited = bool(rule.get("visited"))
                if "amount_of_hex" in rule:
                    for amount, names in self.hex_value_amounts(rule["amount_of_hex"]).items():
                        pattern = "|".join(re.escape(name) for name in sorted(names))
                        bonuses.set_pairs.append(SetPairBonus(a, b, amount, visited, trains=pattern))
                    continue
                amount = int(rule["amount"])
                bonuses.set_pairs.append(
                    SetPairBonus(a, b, amount, visited, largest=bool(rule.get("largest")), trains=rule.get("trains"))
                )
        rule = self.declared.get("label_count_bonus")
        if rule:  # k stops so labelled earn amount x (k - 1): amount each, less amount once a route
            labelled = tuple(
                stop
                for hx in self.board.hexes.values()
                if self.has_label(hx, rule["label"])
                for stop in self.stops_on(hx)
            )
            if labelled:
                bonuses.set_pairs.append(SetPairBonus(labelled, labelled, -int(rule["amount"])))
        if self.leased_only():
            every = tuple(stop for hx in self.board.hexes.values() for stop in self.stops_on(hx))
            if every:
                amount = int(self.declared["leased_trains"]["route_bonus"])
                bonuses.set_pairs.append(SetPairBonus(every, every, amount, visited=True))  # every route: once
        for rule in self.declared.get("untokened_tile_penalties", ()):
            stops = tuple(self.untokened_stops(rule["tiles"]))
            if stops:
                bonuses.set_pairs.append(SetPairBonus(stops, stops, -int(rule["amount"])))
        bonuses.best_route = [
            self.best_route_bonus(r) for r in self.declared.get("best_route_bonuses", ()) if self.holds(r)
        ]
        destination = self.destination_bonus(self.declared.get("destination_bonus"))
        if destination is not None:
            bonuses.best_route.append(destination)
        bonuses.crow = self.crow_bonus(self.declared.get("crow_distance_bonus"))
        return bonuses

    def crow_bonus(self, rule: dict | None) -> CrowBonus | None:
        """``crow_distance_bonus``: the stops that may end a route's crow distance (those on a hex
        whose tile has a city or an off-board: g_18_gb/game.rb#distance_bonus), at their hex's x, y."""
        if not rule:
            return None
        xy = {}
        for hx in self.board.hexes.values():
            if any(n.kind in ("city", "offboard") for n in hx.tile.nodes):
                place = engine_xy(hx.id, self.axes)
                for stop in self.stops_on(hx):
                    xy[stop] = place
        return CrowBonus(int(rule["per_hex"]), str(rule["trains"]), xy)

    def destination_bonus(self, rule: dict | None) -> BestRouteBonus | None:
        """The company's destination bonus (``destination_bonus``), if it has placed its destination token."""
        company = self.company
        if not rule or company.type != rule.get("company_type", company.type):
            return None
        homes = [
            m.group(1)
            for a in company.abilities
            if (m := re.match(r"Home: .*\(([A-Za-z0-9-]+)\)\s*$", str(a.get("description") or "")))
        ]
        home, destination = [], []
        for hx in self.board.hexes.values():
            for city in hx.cities.values():
                for k, owner in enumerate(city.tokens):
                    if owner != company.id:
                        continue
                    stop = hx.node_id(city.node)
                    if k < len(city.kinds) and city.kinds[k] == "destination":
                        destination.append((stop, hx, city))
                    elif hx.id in homes:
                        home.append(stop)
        if len(destination) != 1 or not home:
            return None
        stop, hx, city = destination[0]
        amount = hx.tile.nodes[city.node].value(self.board.phase_tiles)
        return BestRouteBonus(amount=amount, require=(tuple(home), (stop,)), multiplied=True)


class TerminiRules(DeclaredRules):
    """``route_termini`` with ``framed_end_only``: framed stops are route ends, or out of reach where
    they are no terminus (their own class, so that other titles keep the generic walk hooks)."""

    def framed_stop(self, hx) -> bool:
        """``route_termini.framed_end_only``: the hex's tile is framed (a "town" of 1873, passed through by no route)."""
        rule = self.declared.get("route_termini")
        return bool(rule and rule.get("framed_end_only")) and framed(hx.tile.code)

    def end_only(self, hx, node) -> bool:
        return super().end_only(hx, node) or self.framed_stop(hx)

    def forbidden(self, hx, node) -> bool:
        return super().forbidden(hx, node) or (self.framed_stop(hx) and not self.terminus(hx, node))

    def forbidden_reason(self, hx, node) -> str:
        if self.framed_stop(hx) and not self.terminus(hx, node):
            name = hx.location_name or hx.id
            return f"{name} ({hx.id}) is a framed town no route passes through, and no terminus of the company"
        return super().forbidden_reason(hx, node)
