# frozen_string_literal: true

module Route18xx
  # The site runs the engine under Opal, which checks neither method arity (missing arguments are nil,
  # extra ones dropped) nor private visibility. A few games call their own methods in ways MRI refuses;
  # here those methods are made as forgiving as Opal makes them, one by one, each where the engine
  # snapshot's own code needs it (lib/engine/game/...), so that MRI prices what the site prices.
  module OpalLeniency
    module_function

    # [class path, method, why]; EngineLoader.relax_arities does stop_type and check_distance already
    ARITY = [
      # g_1871/game.rb#hex_route_distance calls hex_edge_cost(conn, route.train)
      ['Engine::Game::G1871::Game', :hex_edge_cost, 'called with the train too'],
      # g_18_india/game.rb#revenue_for calls commodity_bonus(route, stops)
      ['Engine::Game::G18India::Game', :commodity_bonus, 'called with the stops too'],
      # g_1862/game.rb#compute_local_stops and #compute_express_stops call optimize_stops(route), which
      # takes (route, _num_pay, _total_stops) and reads only the route: every M/N train's route
      ['Engine::Game::G1862::Game', :optimize_stops, 'called with the route alone'],
    ].freeze

    PUBLIC = [
      # route.rb#check_connected! calls @game.check_connected; g_1828 defines it below `private`
      ['Engine::Game::G1828::Game', :check_connected],
    ].freeze

    def apply
      ARITY.each { |path, name, _why| forgive_arity(constant(path), name) }
      PUBLIC.each do |path, name|
        klass = constant(path)
        klass.send(:public, name) if klass&.private_method_defined?(name, false)
      end
      ::Engine::Train.prepend(RowsBySymbol)
      ::Engine::Phase.prepend(ColoursAsSymbols)
      constant('Engine::Game::G1840::Game')&.prepend(TrackTypesAsStrings)
      constant('Engine::Game::G18India::Game')&.prepend(RedAsString)
    end

    # Under Opal a symbol is a string: g_18_india/game.rb#variable_city_revenue leaves out the stops on red
    # tiles with `stop.tile.color == 'red'`, where the colour is a symbol (`:red`); under MRI no stop is left
    # out, and a "+?" city's own value would set its bonus (the site's recorded runs show it does not:
    # 18India_game_end_bank @324, "E24-F23-E22-D21-D23 Gauge:1 ?+10", 140).
    module RedAsString
      def variable_city_revenue(route, stops)
        non_variable_stops = route.visited_stops.reject { |stop| stop.revenue_to_render.zero? || stop.tile.color.to_s == 'red' }
        return 0 if non_variable_stops.empty?

        max_non_variable_value = non_variable_stops.map { |e| e.revenue_to_render - 20 }.max
        stop_location_names = stops.map { |stop| stop.tile.location_name }.compact
        variable_city_stops = stop_location_names & self.class::VARIABLE_CITY_NAMES

        train_multiplier = route.train.multiplier || 1

        variable_city_stops.count * [max_non_variable_value, 0].max * train_multiplier
      end
    end

    # Under Opal a symbol is a string: g_1840/game.rb#check_track_type keeps a minor's route to broad
    # track with `(track_types - ['broad']).empty?`, where the paths' track types are symbols (`:broad`);
    # under MRI that difference is never empty, and every minor's route would be refused.
    module TrackTypesAsStrings
      def check_track_type(route)
        track_types = route.chains.flat_map { |item| item[:paths] }.flat_map(&:track).uniq.map(&:to_s)
        corporation = route.corporation
        if corporation.type == :city && !(track_types - ['narrow']).empty?
          raise ::Engine::GameError, 'Route may only contain narrow tracks'
        end
        return if corporation.type != :minor || (track_types - ['broad']).empty?

        raise ::Engine::GameError, 'Route may only contain broad tracks'
      end
    end

    # g_18_carolinas/game.rb PHASES lists colours as strings (`tiles: %w[yellow green]`); stops' revenue
    # tables are keyed by symbols (part/revenue_center.rb#route_base_revenue), which Opal does not tell apart.
    module ColoursAsSymbols
      def tiles
        colours = super
        return colours if !colours.is_a?(Array) || colours.equal?(@route18xx_tiles)

        @tiles = @route18xx_tiles = colours.map { |c| c.is_a?(String) ? c.to_sym : c }
      end
    end

    # Under Opal a symbol is a string: g_18_cz/game.rb#revenue_for reads a train's row as
    # `distance[0][:pay]`, though the rows are written `{ 'pay' => 3 }` (g_18_cz/entities.rb).
    module RowsBySymbol
      def distance
        rows = super
        return rows if !rows.is_a?(Array) || rows.equal?(@route18xx_rows)

        @distance = @route18xx_rows = rows.map { |row| OpalLeniency.symbols_as_strings(row) }
      end
    end

    def symbols_as_strings(row)
      return row if !row.is_a?(Hash) || row.default_proc

      row = row.dup
      row.default_proc = proc { |h, key| h[key.to_s] if key.is_a?(Symbol) && h.key?(key.to_s) }
      row
    end

    def constant(path)
      Object.const_get(path)
    rescue NameError
      nil # an engine without that game: nothing to forgive
    end

    # Calls to klass#name get their positional arguments cut or padded with nil to what it takes.
    def forgive_arity(klass, name)
      return unless klass && (klass.method_defined?(name, false) || klass.private_method_defined?(name, false))

      params = klass.instance_method(name).parameters
      return if params.any? { |kind, _| kind == :rest }

      required = params.count { |kind, _| kind == :req }
      most = required + params.count { |kind, _| kind == :opt }
      shim = Module.new do
        define_method(name) do |*args, &block|
          args = args.first(most)
          args += [nil] * (required - args.size) if args.size < required
          super(*args, &block)
        end
      end
      klass.prepend(shim)
    end
  end
end
