"""``python -m gezel_knowledge``."""

import sys

from gezel_knowledge.cli import main

sys.exit(main())
