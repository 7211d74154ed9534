#!/usr/bin/env bash
# Fuzz the review's boundaries (tests/change/test_fuzz*.py) harder than the default test run:
# 2,000 examples with a fixed seed, then again with a rotating one (printed, to replay a
# failure with `--hypothesis-seed=N`).
set -euo pipefail
cd "$(dirname "$0")/../.."
export CODE_GUARD_FUZZ_EXAMPLES=${CODE_GUARD_FUZZ_EXAMPLES:-2000}
seed=$(date +%s)
for s in 0 "$seed"; do
  echo "fuzz: $CODE_GUARD_FUZZ_EXAMPLES examples, --hypothesis-seed=$s"
  python -m pytest tests/change/test_fuzz_boundaries.py tests/change/test_fuzz.py tests/github/test_gh_fuzz.py \
    -p no:cacheprovider --hypothesis-seed="$s"
done
