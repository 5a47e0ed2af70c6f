#!/usr/bin/env bash
# `npm test` and `npm run test:e2e`: the jest projects named in $1 (comma-separated) in one run, then
# the project `e2e-alone` in a second run, one file at a time (its tests carry wall-clock bounds).
# Both runs always happen, so that a failure in the first cannot hide the second, and the script
# exits non-zero if either failed. Any further arguments (`--ci`, a path pattern) go to both runs.
set -uo pipefail
cd "$(dirname "$0")/.."

IFS=, read -r -a projects <<<"${1:?usage: scripts/test.sh project[,project...] [jest arguments]}"
shift
export NODE_OPTIONS="${NODE_OPTIONS:+$NODE_OPTIONS }--experimental-vm-modules"
jest=node_modules/.bin/jest

failed=()
# --passWithNoTests: a path pattern may select files of one run only.
"$jest" "$@" --passWithNoTests --selectProjects "${projects[@]}" || failed+=("${projects[*]}")
"$jest" "$@" --passWithNoTests --runInBand --selectProjects e2e-alone || failed+=(e2e-alone)

if [ "${#failed[@]}" -gt 0 ]; then
  printf 'scripts/test.sh: failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
