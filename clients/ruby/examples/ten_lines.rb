require 'route18xx'                                          # clients/ruby/lib on the load path
Route18xx::EngineLoader.load(ENV.fetch('ROUTE18XX_ENGINE'))  # the engine under MRI (on the site it is loaded)
data = JSON.parse(File.read(ARGV[0]))                        # a game's export, as the Tools tab gives it
game = Engine::Game.load(data, at_action: Integer(ARGV[1]) - 1, strict: false) # just before a run_routes
board = Route18xx::Board.from_game(game)                     # the operating company's board: our document
client = Route18xx::HttpClient.new(ENV.fetch('ROUTE18XX_URL', 'http://127.0.0.1:8080')) # or GrpcClient
answer = client.optimize(board, deadline_ms: 2000)           # the best routes, proven
action = Route18xx::Routes.action(game, answer)              # an Engine::Action::RunRoutes
puts "#{action.entity.id}: #{answer['revenue']} (optimal: #{answer['optimal']}); engine: #{game.routes_revenue(action.routes)}"
game.process_action(action); raise game.exception if game.exception # run them, as the site does
