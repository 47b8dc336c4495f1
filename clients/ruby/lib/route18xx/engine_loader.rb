# frozen_string_literal: true

require 'set'
require 'json'
require_relative 'opal_leniency'

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
      OpalLeniency.apply # what the site's Opal forgives and MRI does not
      LOGGER.level = ::Logger::FATAL # the engine logs every action to stdout at DEBUG
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
    # increasing action order continue the same replay instead of starting over, wherever continuing
    # processes exactly the actions a fresh replay would (Base#process_to_action skips by id, and
    # where an undo left ids out of order, as in 1880's fixture 1, it would skip some: start over).
    class Replays
      def initialize
        @fixture = nil
        @game = nil
      end

      def before(fixture, action_id)
        target = action_id - 1
        unless @fixture == fixture && continues_to?(target)
          data = JSON.parse(File.read(fixture))
          @ids = data['actions'].map { |a| a['id'] }
          @game = ::Engine::Game.load(data, at_action: 0, strict: false)
          @fixture = fixture
          @done = 0
        end
        @game.process_to_action(target)
        @done = stop_at(target)
        raise ::Engine::GameError, "replay failed: #{@game.exception}" if @game.exception

        @game
      end

      private

      # The position of the first action a replay to `target` leaves out (it stops at the first id above it).
      def stop_at(target)
        @ids.index { |id| id > target } || @ids.size
      end

      def continues_to?(target)
        upto = stop_at(target)
        return false if upto < @done

        last = @done.zero? ? 0 : @ids[@done - 1]
        @ids[@done...upto].all? { |id| id > last }
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
