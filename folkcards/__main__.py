"""``python -m folkcards ...`` is the ``folkcards`` command."""

import sys

from folkcards.cli import main

if __name__ == "__main__":
    sys.exit(main())
