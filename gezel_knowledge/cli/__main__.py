"""``python -m gezel_knowledge.cli``."""

import sys

from gezel_knowledge.cli import main

sys.exit(main())
