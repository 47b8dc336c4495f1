# frozen_string_literal: true

module Route18xx
  # Our answer's routes in the engine's terms: each route's `hexes` chains are the engine's
  # `connections` (a chain of hex ids per leg), so a route is {train id, connections}, which
  # Engine::Action::RunRoutes reads as the site's own client sends it.
  module Routes
    module_function

    # [{"train" => id, "connections" => [[hex, ...], ...], "nodes" => [...]}, ...]: RunRoutes' `routes`
    # as a Hash; `nodes` (the stops' signatures "HEX-i", where the answer gives them) tells the engine
    # which of two nodes a chain leaving one edge of a hex starts at (Route#find_pairwise_chain).
    # Fresh arrays: the engine empties a local train's ["local", HEX] chain in place as it reads it.
    def connections(answer)
      answer.fetch('routes').map do |r|
        route = { 'train' => r.fetch('train'), 'connections' => r.fetch('hexes').map { |chain| chain.map(&:to_s) } }
        route['nodes'] = r['nodes'].map(&:to_s) if r['nodes']
        route
      end
    end

    # Engine::Route objects for the game's current phase; each route's `revenue` has the engine price
    # it (raising Engine::GameError if it finds the route illegal).
    def engine_routes(game, answer)
      ::Engine::Action::RunRoutes.h_to_args({ 'routes' => connections(answer) }, game)[:routes]
    end

    # The action that runs the answer's routes: game.process_action(Routes.action(game, answer)).
    def action(game, answer, entity = game.current_entity)
      ::Engine::Action::RunRoutes.new(entity, routes: engine_routes(game, answer))
    end
  end
end
