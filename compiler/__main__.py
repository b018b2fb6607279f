"""`python -m compiler` is the `rulecraft` command."""

import sys

from compiler.cli.main import main

sys.exit(main())
