#!/usr/bin/env bash
# Runs the offline eval on the bundled dataset and on every reference set beside the checkout
# (../shared/evalsets), then prints one line of figures per set, scored by the sets' own
# score.py. Usage: bash scripts/eval_sweep.sh [OUT_DIR] [JOBS]
# Results and logs stay in OUT_DIR (default: a fresh temporary folder) for case-by-case diffs;
# SCORE_ONLY=1 re-scores the results already in OUT_DIR without running the evals again.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d)}
jobs=${2:-2}
sets=../shared/evalsets
score="python3 $sets/score.py"
mkdir -p "$out"

run() {  # name, cases folder
  [ "${SCORE_ONLY:-0}" = 1 ] && return
  echo "-- $1" >&2
  # eval exits 1 when a gate fails; the figures are what this script is for.
  code-guard eval --offline --jobs "$jobs" --dataset "$2" --output "$out/$1.json" \
    >"$out/$1.log" 2>&1 || true
}

pick() {  # scorer JSON on stdin -> the named fields
  python3 -c '
import json, sys
data = json.load(sys.stdin)
flat = {**data, **data.get("micro", {})}
print("  ".join(f"{k}={flat[k]:.3f}" if isinstance(flat.get(k), float) else f"{k}={flat.get(k)}"
                for k in sys.argv[1:]))' "$@"
}

run bundled dataset
for part in cve fixed clean; do run "rw-$part" "$sets/realworld-dev/$part/cases"; done
for part in cve fixed; do run "rw2-$part" "$sets/realworld2-dev/$part/cases"; done
for part in cve fixed; do run "rw3-$part" "$sets/realworld3-dev/$part/cases"; done
run owasp "$sets/owasp-dev/cases"
run semgrep "$sets/semgrep-dev/cases"
run ruff "$sets/ruff-dev/cases"

echo "results in $out"
printf 'bundled       '; $score dataset "$out/bundled.json" --line
printf 'rw cve        '; $score "$sets/realworld-dev/cve/cases" "$out/rw-cve.json" --line
for part in fixed clean; do
  printf 'rw %-10s ' "$part"
  $score "$sets/realworld-dev/$part/cases" "$out/rw-$part.json" --json \
    | pick clean_false_alarm_rate
done
printf 'rw2 cve       '
$score "$sets/realworld2-dev/cve/cases" "$out/rw2-cve.json" --json | pick cases_caught
printf 'rw2 fixed     '
$score "$sets/realworld2-dev/fixed/cases" "$out/rw2-fixed.json" --json \
  | pick clean_false_alarm_rate
printf 'rw3 cve       '
$score "$sets/realworld3-dev/cve/cases" "$out/rw3-cve.json" --json | pick cases_caught
printf 'rw3 fixed     '
$score "$sets/realworld3-dev/fixed/cases" "$out/rw3-fixed.json" --json \
  | pick clean_false_alarm_rate
printf 'owasp         '
$score "$sets/owasp-dev/cases" "$out/owasp.json" --manifest "$sets/owasp-dev/manifest.jsonl" --line
printf 'semgrep-dev   '; $score "$sets/semgrep-dev/cases" "$out/semgrep.json" --line
printf 'ruff-dev      '; $score "$sets/ruff-dev/cases" "$out/ruff.json" --line
