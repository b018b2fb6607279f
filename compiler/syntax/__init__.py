"""Syntax: rules text -> parse tree -> source model, with the curated syntax mistakes and the formatter."""
