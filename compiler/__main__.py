"""`python -m compiler` is the `rulecraft` command."""

import sys

from .cli import main

sys.exit(main())
