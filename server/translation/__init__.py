"""The translation: gRPC and HTTP/JSON requests to :mod:`optimizer.api` calls, answers and errors back.

- :mod:`.service`: the RouteOptimizer servicer (requests in, api calls, answers out), bounded by the
  runtime's limits and admission; :mod:`.convert`: protocol messages <-> the api's dicts and boards;
  :mod:`.checks`: a request checked against the limits before any work; :mod:`.errors`: an error
  to its gRPC status, naming the field.
- :mod:`.http`: the HTTP/JSON gateway (each RPC at its HTTP rule's path, :mod:`.httprules`), the
  JSON mapping (:mod:`.jsonform`) and statuses over HTTP (:mod:`.httpstatus`); the players' page
  (:mod:`.web`) and game review (:mod:`.review`).

Its work runs on :mod:`server.runtime`'s pool, admission and limits; it binds no socket and starts no
process.
"""
