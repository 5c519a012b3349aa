"""`gpu-advisor match-titles`: match listing titles read from stdin, one JSON line each."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict


def match_titles() -> None:
    """Read one title per line on stdin; write one JSON object per title to stdout."""
    from shared.matching.titles import match_title  # here: the CLI starts without the matcher

    for line in sys.stdin:
        title = line.rstrip("\r\n")
        if not title.strip():
            continue
        sys.stdout.write(json.dumps(asdict(match_title(title)), ensure_ascii=False) + "\n")
