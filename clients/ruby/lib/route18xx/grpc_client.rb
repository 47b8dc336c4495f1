# frozen_string_literal: true

require 'json'
require_relative 'answer'

module Route18xx
  # route18xx over gRPC, with stubs generated from the .proto by the host's own compiler (so that they
  # match its google-protobuf gem): put the directory they were generated into on the load path, e.g.
  #
  #   grpc_tools_ruby_protoc -I proto --ruby_out=clients/ruby/lib --grpc_out=clients/ruby/lib \
  #     route18xx/v1/route_optimizer.proto
  #
  # The board goes as `state_json` (the document read by the same code as a structured Board).
  class GrpcClient
    def initialize(address = '127.0.0.1:50051', credentials: :this_channel_is_insecure)
      require 'grpc'
      begin
        require 'route18xx/v1/route_optimizer_services_pb'
      rescue LoadError
        raise LoadError, 'no gRPC stubs: generate route18xx/v1/route_optimizer_services_pb.rb from proto/ ' \
                         '(see Route18xx::GrpcClient) into a directory on the load path'
      end
      @stub = V1::RouteOptimizer::Stub.new(address, credentials)
    end

    def optimize(board, deadline_ms: nil, node_budget: nil)
      req = V1::OptimizeRequest.new(state_json: JSON.generate(board))
      req.node_budget = node_budget if node_budget
      Answer.from_proto_json(json(call(:optimize, req, deadline_ms).solution))
    end

    # Each better answer as the search finds it, then the last (final: true), yielded as [answer, final].
    def optimize_stream(board, deadline_ms: nil)
      req = V1::OptimizeStreamRequest.new(state_json: JSON.generate(board))
      call(:optimize_stream, req, deadline_ms).each do |msg|
        yield Answer.from_proto_json(json(msg.solution)), msg.final
      end
    rescue GRPC::BadStatus => e
      raise Error.new(code_name(e.code), e.details)
    end

    def check(board, routes, with_optimum: false, deadline_ms: nil)
      req = V1::CheckRoutesRequest.new(state_json: JSON.generate(board), with_optimum: with_optimum,
                                       routes_json: JSON.generate(Answer.plain_routes(routes)))
      Answer.check_from_proto_json(json(call(:check_routes, req, deadline_ms)))
    end

    def games
      Answer.snake(json(call(:list_games, V1::ListGamesRequest.new, nil)))
    end

    private

    def call(method, req, deadline_ms)
      opts = deadline_ms ? { deadline: Time.now + (deadline_ms / 1000.0) } : {}
      @stub.public_send(method, req, **opts)
    rescue GRPC::BadStatus => e
      raise Error.new(code_name(e.code), e.details)
    end

    def json(message)
      JSON.parse(message.class.encode_json(message))
    end

    def code_name(code)
      GRPC::Core::StatusCodes.constants.find { |c| GRPC::Core::StatusCodes.const_get(c) == code }.to_s
    end
  end
end
