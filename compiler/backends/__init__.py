"""Backends: the checked model -> a Python module, JSON, YAML, HTML and PDF; a whole build."""
