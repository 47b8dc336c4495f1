# frozen_string_literal: true

# route18xx for the 18xx.games engine: the board document from an Engine::Game, the optimum from a
# route18xx service (HTTP/JSON or gRPC), and the answer back as the engine's RunRoutes.
require_relative 'route18xx/answer'
require_relative 'route18xx/board'
require_relative 'route18xx/routes'
require_relative 'route18xx/http_client'
require_relative 'route18xx/engine_loader'

module Route18xx
  autoload :GrpcClient, File.expand_path('route18xx/grpc_client', __dir__)
end
