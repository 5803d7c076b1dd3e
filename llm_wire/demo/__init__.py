"""Sections of ``llm-wire demo``: each module has a ``run()`` that prints what it shows."""
