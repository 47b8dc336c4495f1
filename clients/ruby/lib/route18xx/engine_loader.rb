# frozen_string_literal: true

require 'set'
require 'json'

module Route18xx
  # Loads the 18xx.games engine from a checkout under MRI (Debian's Ruby), supplying what the
  # site's Opal build or the require_all gem would: see the engine snapshot's README.
  module EngineLoader
    module_function

    def load(dir)
      lib = File.join(File.expand_path(dir), 'lib')
      raise ArgumentError, "no engine at #{dir} (lib/engine.rb missing)" unless File.file?(File.join(lib, 'engine.rb'))
      return if defined?(::Engine::GAME_TITLES)

      $LOAD_PATH.unshift(lib) unless $LOAD_PATH.include?(lib)
      define_require_all
      quietly_stub_backticks { require 'engine' }
      LOGGER.level = ::Logger::FATAL # the engine logs every action to stdout at DEBUG
      relax_arities
    end

    # Methods called with more or fewer arguments than the definition takes: Opal (the site) pads the
    # missing ones with nil and drops the extra ones, MRI raises ArgumentError, which would end a
    # replay or a pricing where the site goes on. G1880#stop_type(stop) is called as
    # stop_type(stop, train) by Game::Base#check_distance, and its `super` calls Base's with one.
    ARITY_RELAXED = %i[stop_type check_distance].freeze

    def relax_arities
      games = ::Engine::Game.constants.filter_map do |name|
        mod = ::Engine::Game.const_get(name)
        klass = mod.is_a?(Module) && mod.const_defined?(:Game, false) ? mod.const_get(:Game, false) : nil
        klass if klass.is_a?(Class) && klass < ::Engine::Game::Base
      end
      ARITY_RELAXED.each do |method|
        games.each { |klass| relax_arity(klass, method) }
        relax_arity(::Engine::Game::Base, method)
      end
    end

    # The class's own definition of +method+ called Opal's way: extra arguments dropped, missing ones nil.
    def relax_arity(klass, method)
      own = klass.instance_method(method)
      return unless own.owner == klass
      return if own.parameters.any? { |kind, _| %i[rest keyrest].include?(kind) }

      size = own.parameters.count { |kind, _| %i[req opt].include?(kind) }
      required = own.parameters.count { |kind, _| kind == :req }
      klass.send(:define_method, method) do |*args, &blk|
        args = args.first(size)
        args += [nil] * (required - args.size) if args.size < required
        own.bind_call(self, *args, &blk)
      end
    end

    def define_require_all
      $LOADED_FEATURES << 'require_all.rb' unless $LOADED_FEATURES.include?('require_all.rb')
      Object.send(:define_method, :require_rel) do |*paths|
        base = File.dirname(caller_locations(1, 1).first.absolute_path)
        files = paths.flat_map do |p|
          full = File.expand_path(p, base)
          File.directory?(full) ? Dir.glob(File.join(full, '**', '*.rb')).sort : ["#{full.delete_suffix('.rb')}.rb"]
        end
        Route18xx::EngineLoader.require_until_settled(files)
      end
      Object.send(:private, :require_rel)
    end

    # Requires files in any order that works: a file failing with NameError waits for the others.
    def require_until_settled(files)
      pending = files
      loop do
        failed = []
        last = nil
        pending.each do |f|
          require f
        rescue NameError => e
          failed << f
          last = e
        end
        return if failed.empty?
        raise last if failed.size == pending.size

        pending = failed
      end
    end

    # Recorded games replayed to just before an action, one game kept: requests for one fixture in
    # increasing order continue the same replay instead of starting over. "Before" is by position in
    # the record, not by id: after an undo ids are not increasing (1880/1.json records 775 before 772,
    # and the engine's process_to_action(id) stops at the first larger id), and an id may even be
    # recorded twice (1880/1.json: a run_routes and a pass are both 663).
    class Replays
      attr_reader :game

      def initialize
        @fixture = nil
        @game = nil
      end

      # The game just before the recorded action with this id (of type +prefer+ where the id is
      # recorded more than once).
      def before(fixture, action_id, prefer: 'run_routes')
        before_position(fixture, position(fixture, action_id, prefer: prefer))
      end

      # The game just before the action at this position of the record (0-based).
      def before_position(fixture, stop)
        data = recorded(fixture)
        if @game.nil? || @fixture != fixture || @done > stop
          @game = ::Engine::Game.load(data, at_action: 0, strict: false)
          @done = 0
        end
        @fixture = fixture
        process_until(stop)
        raise ::Engine::GameError, "replay failed: #{@game.exception}" if @game.exception

        @game
      end

      # Where the action with this id is: the last that counts (not undone), of type +prefer+ if
      # one such is.
      def position(fixture, action_id, prefer: nil)
        actions = recorded(fixture)['actions']
        found = actions.each_index.select { |i| @filtered[i] && actions[i]['id'] == action_id }
        raise ::Engine::GameError, "no action #{action_id} in #{fixture} (or it was undone)" if found.empty?

        found.select { |i| actions[i]['type'] == prefer }.last || found.last
      end

      # The positions of the actions of a type that count (not undone), in record order.
      def positions(fixture, type)
        actions = recorded(fixture)['actions']
        actions.each_index.select { |i| @filtered[i] && actions[i]['type'] == type }
      end

      def action_at(fixture, index)
        recorded(fixture)['actions'][index]
      end

      private

      def recorded(fixture)
        return @data if @data_fixture == fixture

        @data = JSON.parse(File.read(fixture))
        @filtered, = ::Engine::Game::Base.filtered_actions(@data['actions'])
        @data_fixture = fixture
        @data
      end

      # The game's own process_to_action loop, bounded by position instead of id.
      def process_until(stop)
        game = @game
        while @done < stop && !game.exception
          action = @data['actions'][@done]
          if @filtered[@done]
            game.process_action(action)
            raw = game.instance_variable_get(:@raw_actions)
            raw.last['id'] = action['id'] unless raw.empty? # keep the recorded ids, as the engine does
            game.instance_variable_set(:@last_processed_action, action['id'])
          else
            game.instance_variable_get(:@raw_actions) << action
          end
          @done += 1
        end
      end
    end

    # auto_router.rb holds a %x{} JavaScript block in its class body; MRI would run it as a shell command.
    def quietly_stub_backticks
      Kernel.send(:alias_method, :__route18xx_backtick, :`)
      Kernel.send(:define_method, :`) { |_cmd| '' }
      yield
    ensure
      Kernel.send(:alias_method, :`, :__route18xx_backtick)
    end
  end
end
