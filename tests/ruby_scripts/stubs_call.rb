# frozen_string_literal: true

# Calls every RPC of a route18xx server with stubs generated from proto/ alone (nothing of the
# project's Ruby library): the test puts the generated directory on the load path.
#
#   ruby -I STUBS stubs_call.rb HOST:PORT < states.jsonl > results.jsonl
#
# Per board (a corpus state, one a line): Optimize (state_json), OptimizeStream, CheckRoutes of
# Optimize's own routes, each reduced to what the test compares. Then ListGames and a bad board.
require 'json'
require 'grpc'
require 'route18xx/v1/route_optimizer_services_pb'

V1 = Route18xx::V1
stub = V1::RouteOptimizer::Stub.new(ARGV.fetch(0), :this_channel_is_insecure)
deadline = -> { Time.now + 60 }
$stdout.sync = true

$stdin.each_line do |line|
  state = JSON.parse(line)
  text = JSON.generate(state)
  solution = stub.optimize(V1::OptimizeRequest.new(state_json: text), deadline: deadline.call).solution
  streamed = stub.optimize_stream(V1::OptimizeStreamRequest.new(state_json: text), deadline: deadline.call).to_a
  routes = solution.routes.map do |r|
    V1::RouteInput.new(train: r.train, hexes: r.hexes.map { |c| V1::HexChain.new(hexes: c.hexes.to_a) })
  end
  check = stub.check_routes(V1::CheckRoutesRequest.new(state_json: text, routes: routes), deadline: deadline.call)
  puts JSON.generate(
    'id' => state['id'], 'revenue' => solution.revenue, 'optimal' => solution.optimal,
    'routes' => solution.routes.map { |r| { 'train' => r.train, 'revenue' => r.revenue, 'stops' => r.stops.to_a } },
    'stream_final' => streamed.map(&:final), 'stream_revenue' => streamed.last&.solution&.revenue,
    'check_legal' => check.legal, 'check_revenue' => check.revenue
  )
end

games = stub.list_games(V1::ListGamesRequest.new, deadline: deadline.call)
bad = begin
  stub.optimize(V1::OptimizeRequest.new(board: V1::Board.new(game: '1830', layout: 'pointy')), deadline: deadline.call)
  { 'code' => 'OK' }
rescue GRPC::BadStatus => e
  { 'code' => e.code, 'details' => e.details }
end
puts JSON.generate('games' => games.games.map(&:title), 'train_kinds' => games.train_kinds.to_a, 'bad' => bad)
