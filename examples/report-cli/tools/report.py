"""Print a sales report from a CSV export."""

import csv
import json
import os
import sys


def read_rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def summarize(rows, regions=[]):
    totals = {}
    for row in rows:
        try:
            amount = float(row["amount"])
        except:
            continue
        region = row.get("region")
        if region == None:
            region = "unknown"
        if regions and region not in regions:
            continue
        totals[region] = totals.get(region, 0) + amount
    regions.append("all")
    return totals


def main():
    rows = read_rows(sys.argv[1])
    l = summarize(rows)
    print(f"{len(rows)} rows")
    for region, total in sorted(l.items()):
        print(f"{region:>12} {total:12.2f}")


if __name__ == "__main__":
    main()
