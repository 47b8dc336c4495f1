# frozen_string_literal: true

# The library's two clients side by side on one board (stdin): the answer, a check of the answer's
# routes given as the engine's connections, the games, and a board with a mistake in it.
#
#   ruby -I STUBS -I clients/ruby/lib clients.rb HTTP_URL GRPC_ADDRESS < board.json
require 'json'
require 'route18xx'

board = JSON.parse($stdin.read)
clients = { 'http' => Route18xx::HttpClient.new(ARGV.fetch(0)), 'grpc' => Route18xx::GrpcClient.new(ARGV.fetch(1)) }
out = clients.to_h do |name, client|
  answer = client.optimize(board, deadline_ms: 30_000)
  check = client.check(board, Route18xx::Routes.connections(answer), with_optimum: true, deadline_ms: 30_000)
  streamed = []
  client.optimize_stream(board, deadline_ms: 30_000) { |a, final| streamed << [a['revenue'], final] } if name == 'grpc'
  bad = board.merge('hexes' => board['hexes'].each_with_index.map { |h, i| i == 3 ? h.merge('rotation' => 9) : h })
  error = begin
    client.optimize(bad)
    nil
  rescue Route18xx::Error => e
    { 'code' => e.code, 'message' => e.message }
  end
  [name, { 'answer' => answer, 'check' => check, 'games' => client.games['games'].map { |g| g['title'] },
           'streamed' => streamed, 'error' => error }]
end
puts JSON.generate(out)
