"""``python -m llm_wire``: the command line."""

from llm_wire.cli import main

raise SystemExit(main())
