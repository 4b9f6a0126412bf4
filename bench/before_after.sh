#!/usr/bin/env bash
# Run one benchmark command in two commits at the same time (one process each), so both see
# the same machine load; prints where the two outputs went.
#   bench/before_after.sh OLD_REV NEW_REV python bench/omt.py --depths 4 --seeds 1
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 OLD_REV NEW_REV COMMAND..." >&2; exit 2; }
old=$1 new=$2; shift 2
root="$(git rev-parse --show-toplevel)"
work="$(mktemp -d)"
for side in old new; do
    rev=${!side}
    git -C "$root" worktree add --detach "$work/$side" "$rev" > /dev/null
done
(cd "$work/old" && PYTHONPATH="$work/old" "$@" > "$work/old.txt" 2>&1) &
(cd "$work/new" && PYTHONPATH="$work/new" "$@" > "$work/new.txt" 2>&1) &
wait
for side in old new; do git -C "$root" worktree remove --force "$work/$side"; done
echo "before ($old): $work/old.txt"
echo "after  ($new): $work/new.txt"
