"""
Shared test setup: hypothesis profiles.

``HYPOTHESIS_PROFILE`` picks one (``.ci/run`` exports ``ci``); without it the quicker ``dev`` profile runs.
"""

from __future__ import annotations

import os

from hypothesis import settings

#: CI runs every property at least 2,000 times.
settings.register_profile("ci", max_examples=2000, deadline=None)
#: Local runs stay quick.
settings.register_profile("dev", max_examples=200, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
