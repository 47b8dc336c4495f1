"""The gRPC service of the route optimiser: stubs, conversions, servicer, server and client.

It only translates between protocol messages and :mod:`optimizer.api`; see ``docs/grpc.md``.
"""
