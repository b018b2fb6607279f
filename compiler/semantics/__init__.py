"""Semantics: what expressions and dice mean; exact odds; the runtime every generated module holds."""
