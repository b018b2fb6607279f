"""Rulecraft's benchmark suite (issue 8): `make bench` writes bench/REPORT.md. See bench/README.md."""
