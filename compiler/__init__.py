"""Rulecraft: a rules-as-data compiler.

Pipeline: syntax (text -> source model) -> check (checked model, diagnostics)
-> odds (exact distributions) -> codegen (standalone Python resolvers) ->
render (HTML, PDF, JSON, YAML). `compiler.api` ties the stages together.
"""

__version__ = "0.1.0"
