"""Check: source model -> checked model (names, types, errata), and every diagnostic of meaning."""
