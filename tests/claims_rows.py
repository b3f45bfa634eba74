"""A claims table as compass.experiments.verdicts writes it, made from paper/claims.yaml's
ids with made-up readings (tests of the headline table and the HTML page)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import yaml

from compass.experiments.verdict.claims import CLAIM_COLUMNS, VERDICTS

ROOT = Path(__file__).resolve().parents[1]


def claims_table(extra_column: bool = False) -> pd.DataFrame:
    """Every claim of paper/claims.yaml and claims_openb.yaml with a made-up reading: leads
    with an interval whose bounds need thousands separators, long texts, every data origin."""
    claims = [c for name in ("claims.yaml", "claims_openb.yaml")
              for c in yaml.safe_load((ROOT / "paper" / name).read_text())["claims"]]
    rows = []
    for i, c in enumerate(claims):
        verdict = VERDICTS[i % len(VERDICTS)]
        data = ("REAL openb" if c["id"].startswith("openb-") else
                "SYNTHETIC gfs-synth (calibrated to this number: agreement by construction)"
                if c.get("calibrated") else "SYNTHETIC gfs-synth")
        lead = "lead" in c["id"]
        rows.append({**{k: "" for k in CLAIM_COLUMNS}, "id": c["id"], "section": c["section"],
                     "statement": c["statement"], "paper": str(c.get("paper", "")),
                     "ours": -121.9 if lead else "", "ci_low": -228784.0 if lead else None,
                     "ci_high": 11.5 if lead else None, "n": 15 if lead else None,
                     "unit": "s" if lead else "", "verdict": verdict,
                     "detail": "reaches 5,368 s below the band; " * 12
                     if verdict == "differs" else "",
                     "ours_text": ("-121.9 [-228,784, 11.5] (strongest baseline, re-chosen in "
                                   "each resample (fft in the point estimate), n = 15; "
                                   "stalled samples: day 93 seed 2 (1.2 d)) " * 4),
                     "data": data, "variant": "default"})
    frame = pd.DataFrame(rows)
    if extra_column:
        frame["ajct_lead_without_fft"] = 1.0  # a column another change may add
    return frame
