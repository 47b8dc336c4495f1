# frozen_string_literal: true

require 'json'
require 'net/http'
require 'uri'
require_relative 'answer'

module Route18xx
  # route18xx over HTTP/JSON (`route18xx serve`, docs/http.md), with Ruby's standard library only:
  # for hosts without the grpc gem. The board goes as the document itself (`{"board": ...}`).
  class HttpClient
    def initialize(base_url = 'http://127.0.0.1:8080', open_timeout: 5)
      @uri = URI(base_url.end_with?('/') ? base_url : "#{base_url}/")
      @open_timeout = open_timeout
    end

    # The best routes for the board's company; +deadline_ms+ bounds the whole answer (the service's
    # own default otherwise). Returns the answer as `route18xx solve --json` prints it.
    def optimize(board, deadline_ms: nil, node_budget: nil)
      body = { 'board' => board }
      body['nodeBudget'] = node_budget.to_s if node_budget
      Answer.from_proto_json(post('v1/optimize', body, deadline_ms)['solution'])
    end

    # A player's routes checked (each {"train", "hexes" | "connections" | "stops"}).
    def check(board, routes, with_optimum: false, deadline_ms: nil)
      body = { 'board' => board, 'routes' => Answer.route_inputs(routes), 'withOptimum' => with_optimum }
      Answer.check_from_proto_json(post('v1/check', body, deadline_ms))
    end

    def games
      Answer.snake(request(Net::HTTP::Get.new(@uri + 'v1/games'), nil))
    end

    private

    def post(path, body, deadline_ms)
      req = Net::HTTP::Post.new(@uri + path, 'Content-Type' => 'application/json')
      req['X-Deadline-Ms'] = deadline_ms.to_s if deadline_ms
      req.body = JSON.generate(body)
      request(req, deadline_ms)
    end

    def request(req, deadline_ms)
      http = Net::HTTP.new(@uri.host, @uri.port)
      http.use_ssl = @uri.scheme == 'https'
      http.open_timeout = @open_timeout
      http.read_timeout = deadline_ms ? (deadline_ms / 1000.0) + 5 : 120
      res = http.request(req)
      data = JSON.parse(res.body)
      raise Error.new(status_name(data['code']), data['message']) unless res.is_a?(Net::HTTPSuccess)

      data
    rescue JSON::ParserError
      raise Error.new('UNKNOWN', "HTTP #{res.code}: #{res.body.to_s[0, 200]}")
    end

    STATUS_NAMES = %w[OK CANCELLED UNKNOWN INVALID_ARGUMENT DEADLINE_EXCEEDED NOT_FOUND ALREADY_EXISTS
                      PERMISSION_DENIED RESOURCE_EXHAUSTED FAILED_PRECONDITION ABORTED OUT_OF_RANGE
                      UNIMPLEMENTED INTERNAL UNAVAILABLE DATA_LOSS UNAUTHENTICATED].freeze

    def status_name(code)
      code.is_a?(Integer) ? STATUS_NAMES.fetch(code, code.to_s) : code.to_s
    end
  end
end
