"""Test-suite settings: Hypothesis profiles.

``dev`` (the default) draws fresh examples every run, so local runs keep exploring;
``ci`` is derandomised, so a CI run is reproducible and a failure there is the same
failure on every rerun. ``.ci/run`` selects ``ci`` with HYPOTHESIS_PROFILE=ci.
"""

import os

from hypothesis import settings

settings.register_profile("dev", print_blob=True)
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
