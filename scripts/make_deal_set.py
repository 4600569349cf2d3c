"""Draw a held-out deal set of the gauntlet once and write it as package data.

    python scripts/make_deal_set.py            # gauntlet-v1: the recorded seed and sizes

Writes ``evaluate/storage/gauntlet_data/<version>-<game>-<players>.json.gz`` for every game family and
table size of the version (:mod:`folkcards.evaluate.storage.deal_sets`). Run once per version: a shipped
version is never redrawn (a new set is a new version).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from folkcards.evaluate.storage import deal_sets

OUT = Path(__file__).resolve().parent.parent / "evaluate" / "storage" / "gauntlet_data"
# table sizes per game family drawn for gauntlet-v1 (a fixed-size game: its one size)
SIZES = {"paston": (3,), "tri_palki": (3, 4, 6)}


def main() -> None:
    version = deal_sets.CURRENT
    for family, sizes in SIZES.items():
        for n in sizes:
            content = deal_sets.generate(version, family, n, deal_sets.COUNT, deal_sets.SEED)
            text = json.dumps(content, separators=(",", ":"), sort_keys=True).encode()
            path = OUT / deal_sets.file_name(version, family, n)
            path.write_bytes(gzip.compress(text, mtime=0))
            print(f"wrote {path} ({len(content['deals'])} deals)")


if __name__ == "__main__":
    main()
