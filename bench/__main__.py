"""`python -m bench` (from the repository root)."""

import sys

from .run import main

sys.exit(main())
