# frozen_string_literal: true

module Route18xx
  # The board document route18xx reads (docs: optimizer/schema/board.schema.json), built from an
  # Engine::Game and the entity about to run its trains. Every input field of the document, read from
  # the engine's own objects the way the public corpus states were dumped (../shared/corpus/README.md),
  # so that a board built here at a state's action is that state, input field for input field.
  module Board
    module_function

    # The document as a Hash (JSON.generate it, or hand it to a client). +entity+ defaults to the
    # entity whose turn it is; +id+ is echoed in the answer.
    def from_game(game, entity = game.current_entity, id: nil)
      raise ArgumentError, 'no operating entity: give one (the game has no current entity)' unless entity

      doc = {
        'game' => game.class.title,
        'layout' => game.layout.to_s,
        'phase' => { 'name' => game.phase.name.to_s, 'tiles' => game.phase.tiles.map(&:to_s) },
        'corporation' => corporation(game, entity),
        'trains' => game.route_trains(entity).map { |t| train(game, t) },
        'hexes' => game.hexes.map { |h| hex(h) },
      }
      id ? { 'id' => id.to_s }.merge(doc) : doc
    end

    def corporation(game, entity)
      owner = entity.owner
      out = {
        'id' => entity.id.to_s,
        'name' => entity.name.to_s,
        'type' => (entity.respond_to?(:type) && entity.type ? entity.type.to_s : (minor?(entity) ? 'minor' : 'major')),
        'minor' => minor?(entity),
        'owner' => owner.respond_to?(:id) ? owner.id.to_s : nil,
        'companies' => Array(entity.respond_to?(:companies) ? entity.companies : []).map { |c| c.id.to_s },
        'president_companies' => president_companies(owner),
        'abilities' => Array(entity.respond_to?(:all_abilities) ? entity.all_abilities : []).map { |a| ability(a) },
      }
      ferry = ferry_marker(game, entity)
      out['ferry_marker'] = ferry unless ferry.nil?
      assignments = entity.respond_to?(:assignments) ? entity.assignments : {}
      out['assignments'] = plain(assignments) unless assignments.empty?
      out
    end

    def minor?(entity)
      entity.respond_to?(:minor?) ? !!entity.minor? : false
    end

    # Privates the entity's director holds (a player's, not the bank's or another company's).
    def president_companies(owner)
      return [] unless owner.respond_to?(:player?) && owner.player? && owner.respond_to?(:companies)

      owner.companies.map { |c| c.id.to_s }
    end

    def ability(ability)
      out = { 'type' => ability.type.to_s }
      out['description'] = ability.description.to_s if ability.description && !ability.description.to_s.empty?
      out['owner'] = ability.owner.id.to_s if ability.owner.respond_to?(:id)
      hexes = ability.respond_to?(:hexes) ? Array(ability.hexes) : []
      out['hexes'] = hexes.map { |h| h.respond_to?(:id) ? h.id.to_s : h.to_s } unless hexes.empty?
      amount = ability.respond_to?(:amount) ? ability.amount : nil
      out['amount'] = amount if amount.is_a?(Numeric)
      out
    end

    # 1894 (g_1894/game.rb): a company's ferry marker is an ability it holds, described "Ferry marker".
    def ferry_marker(game, entity)
      return nil unless game.class.title == '1894'

      Array(entity.all_abilities).any? { |a| a.description.to_s == 'Ferry marker' }
    end

    def train(game, train)
      out = {
        'id' => train.id.to_s,
        'name' => train.name.to_s,
        'distance' => plain(train.distance),
        'price' => train.price,
      }
      out['multiplier'] = train.multiplier if train.multiplier
      out['requires_token'] = false if train.requires_token == false
      out['local'] = true if train.local?
      out['pullman'] = true if pullman_attached?(game, train)
      owner = train.owner # the holder, not the lessee: an 1880 foreign investor's train is the depot's
      out['owner'] = owner.is_a?(::Engine::Depot) ? 'depot' : owner&.id.to_s
      out
    end

    # The company's Pullman is attached to this train this round (1858India: the Route step's
    # round state +pullmans+, set by its choose action; G1858India#pullman_bonus pays it).
    def pullman_attached?(game, train)
      round = game.round
      return false unless round.respond_to?(:pullmans)

      pullmans = round.pullmans
      pullmans.is_a?(Hash) && pullmans[train.owner].equal?(train)
    end

    def hex(hex)
      tile = hex.tile
      out = {
        'id' => hex.id.to_s,
        'tile' => tile.name.to_s,
        'color' => tile.color.to_s,
        'rotation' => tile.rotation,
        'code' => tile.code.to_s,
      }
      name = tile.location_name || hex.location_name
      out['location_name'] = name.to_s if name && !name.to_s.empty?
      out['neighbors'] = hex.neighbors.to_h { |edge, other| [edge.to_s, other.id.to_s] }
      borders = tile.borders.sort_by(&:edge).map { |b| border(b) }
      out['borders'] = borders unless borders.empty?
      # A city the tile's parts do not hold is not in its code either (1868 Wyoming's white boom hex
      # turned city in place, g_1868_wy/game.rb#boomtown_to_boomcity!: no track reaches it): left out.
      out['cities'] = tile.cities.select { |c| tile.parts.any? { |p| p.equal?(c) } }.map { |c| city(tile, c) }
      reservations = Array(tile.reservations).map { |r| entity_id(r) }
      out['tile_reservations'] = reservations unless reservations.empty?
      out['assignments'] = plain(hex.assignments) unless hex.assignments.empty?
      tokens = hex.tokens.map { |t| hex_token(t) }
      out['hex_tokens'] = tokens unless tokens.empty?
      out
    end

    # A token on the hex itself, not in a city (Engine::Hex#tokens: 1868 Wyoming's development tokens,
    # g_1868_wy/game.rb#place_development_token): its owner, its type, and the player owning that owner.
    def hex_token(token)
      owner = token.corporation
      out = { 'owner' => owner.id.to_s, 'type' => token.type.to_s }
      player = owner.respond_to?(:player) ? owner.player : nil
      out['player'] = player.id.to_s if player.respond_to?(:id)
      out
    end

    def border(border)
      out = { 'edge' => border.edge }
      out['type'] = border.type.to_s if border.type
      out['cost'] = border.cost if border.cost
      out
    end

    def city(tile, city)
      nodes = tile.parts.select { |p| p.is_a?(::Engine::Part::Node) || p.is_a?(::Engine::Part::Junction) }
      tokens = city.tokens
      out = {
        'index' => nodes.index(city),
        'slots' => city.slots,
        'tokens' => tokens.map { |t| t&.corporation&.id&.to_s },
        'reservations' => Array.new(city.slots) { |i| entity_id(city.reservations[i]) },
      }
      extra_reservations = Array(city.reservations[city.slots..]).compact
      out['extra_reservations'] = extra_reservations.map { |r| entity_id(r) } unless extra_reservations.empty?
      extra = city.extra_tokens.compact
      out['extra_tokens'] = extra.map { |t| t.corporation&.id&.to_s } unless extra.empty?
      if tokens.any? { |t| t && t.type && t.type.to_s != 'normal' }
        out['token_types'] = tokens.map { |t| t && t.type.to_s }
      end
      out
    end

    def entity_id(entity)
      return nil if entity.nil?

      entity.respond_to?(:id) ? entity.id.to_s : entity.to_s
    end

    # Symbols to strings, recursively: what JSON would make of the engine's values anyway.
    def plain(value)
      case value
      when Hash then value.to_h { |k, v| [k.to_s, plain(v)] }
      when Array then value.map { |v| plain(v) }
      when Symbol then value.to_s
      else value
      end
    end
  end
end
