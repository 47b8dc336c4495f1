# frozen_string_literal: true

module Route18xx
  # A mistake the service named (INVALID_ARGUMENT over gRPC, HTTP 400), or a service that could not
  # answer: +code+ is the gRPC status name ("INVALID_ARGUMENT", "DEADLINE_EXCEEDED", ...).
  class Error < StandardError
    attr_reader :code

    def initialize(code, message)
      @code = code
      super("#{code}: #{message}")
    end
  end

  # Answers in one shape whichever client fetched them: the shape of `route18xx solve --json`
  # (snake_case keys, integers, each route's track as arrays of hex ids), read from the proto3 JSON
  # mapping that both the HTTP gateway and a gRPC message's encode_json write.
  module Answer
    module_function

    INTEGERS = %w[revenue bound nodes stops segments].freeze

    def from_proto_json(solution)
      out = snake(solution || {})
      out['id'] ||= ''
      out['revenue'] = out.fetch('revenue', 0).to_i
      out['bound'] = out.fetch('bound', 0).to_i
      out['optimal'] = out.fetch('optimal', false)
      out['rules'] ||= ''
      out['revenue_rules'] = Array(out['revenue_rules'])
      out['unsupported'] = Array(out['unsupported']) # what of the title's rules is not modelled
      out['routes'] = Array(out['routes']).map { |r| route(r) }
      stats = out['stats'] || {}
      %w[nodes stops segments].each { |k| stats[k] = stats.fetch(k, 0).to_i }
      out['stats'] = stats
      out
    end

    def route(route)
      {
        'train' => route['train'].to_s,
        'name' => route['name'].to_s,
        'revenue' => route.fetch('revenue', 0).to_i,
        'stops' => Array(route['stops']),
        'paid' => Array(route['paid']),
        'hexes' => Array(route['hexes']).map { |chain| Array(chain['hexes']) },
      }
    end

    # CheckRoutesResponse: legal, revenue, each route's verdict, the optimum if asked.
    def check_from_proto_json(response)
      out = snake(response || {})
      out['legal'] = out.fetch('legal', false)
      out['revenue'] = out.fetch('revenue', 0).to_i
      out['routes'] = Array(out['routes']).map do |r|
        route(r).merge('legal' => r.fetch('legal', false), 'errors' => Array(r['errors'])).tap { |x| x.delete('name') }
      end
      out['optimum'] = from_proto_json(out['optimum']) if out['optimum']
      out
    end

    def snake(value)
      case value
      when Hash then value.to_h { |k, v| [k.to_s.gsub(/([A-Z])/) { "_#{Regexp.last_match(1).downcase}" }, snake(v)] }
      when Array then value.map { |v| snake(v) }
      else value
      end
    end

    # Routes to check as CheckRoutes' `routes_json` takes them: each {train, hexes: chains} (the
    # engine's `connections` are such chains) or {train, stops}.
    def plain_routes(routes)
      routes.map do |r|
        r = r.transform_keys(&:to_s)
        chains = r['hexes'] || r['connections']
        chains ? { 'train' => r['train'].to_s, 'hexes' => chains } : { 'train' => r['train'].to_s, 'stops' => Array(r['stops']) }
      end
    end

    # The same as a request's RouteInput list in proto3 JSON (the HTTP body of /v1/check).
    def route_inputs(routes)
      plain_routes(routes).map do |r|
        r['hexes'] ? r.merge('hexes' => r['hexes'].map { |chain| { 'hexes' => chain } }) : r
      end
    end
  end
end
