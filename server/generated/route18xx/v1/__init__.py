"""Stubs generated from ``proto/`` by ``python -m server.generate``; do not edit by hand."""
