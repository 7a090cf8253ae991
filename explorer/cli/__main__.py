"""`python -m explorer.cli`: the headless subcommands (the UI's live in `screens.cli`)."""

import sys

from explorer.cli.main import main

sys.exit(main())
