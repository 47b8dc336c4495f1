"""The runtime: what carries calls, whatever they say; nothing here reads a board or a message.

- :mod:`.limits`: the one ``Limits`` (what a call may cost, gRPC and HTTP alike), the call's deadline;
  :mod:`.config`: how a process listens (no grpc: the supervisor imports it before forking).
- :mod:`.admission`: slots, queue and the watchdog that demotes long work; :mod:`.pool`: the
  threads that run it; :mod:`.httpbudget`: the HTTP side's threads and bytes in flight.
- :mod:`.listeners`: gRPC (with :mod:`.interceptor` and :mod:`.health`) and HTTP (uvicorn, with
  :mod:`.httpconn` bounding connections; :mod:`.httpcontext` stands in for a gRPC context).
- :mod:`.process`: one process's signals, drain and exit; :mod:`.workers`: pre-forked workers and
  their supervisor.
"""
