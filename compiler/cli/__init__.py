"""The `rulecraft` command, `rulecraft watch` and what they share."""
