"""`python -m compiler` is the `rulecraft` command."""

import sys

from .cli.main import main

sys.exit(main())
