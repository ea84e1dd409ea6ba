#!/usr/bin/env bash
# `zonekv crashtest` end to end: a short campaign with every fault passes
# with a fixed seed; a writer that loses synced writes it acknowledged is
# caught (exit 1, naming the seed and the kill); usage errors exit 2.
# Usage: crashtest_cli_test.sh /path/to/zonekv
set -u
zonekv=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
check() {  # check WHAT COND...
  local what=$1
  shift
  if ! "$@"; then
    echo "FAIL: $what"
    fail=1
  fi
}

"$zonekv" crashtest --kills=6 --seed=11 --duration=800ms --faults=powerloss,ioerror --dir="$dir/ok" \
  --json="$dir/ok.json" >"$dir/out" 2>&1
rc=$?
check "a clean campaign exits 0 (got $rc)" [ $rc -eq 0 ]
check "one line per kill" [ "$(grep -c '^kill ' "$dir/out")" -eq 6 ]
check "summary names 6 kills" grep -q '^crashtest: 6 kills, [1-9][0-9]* writes verified' "$dir/out"
check "summary counts rolled-back keys" grep -q 'rolled back to an older write' "$dir/out"
check "the JSON has the summary" grep -q '"writes_verified"' "$dir/ok.json"
check "the directory it made is removed" [ ! -e "$dir/ok" ]
[ $fail -eq 0 ] || cat "$dir/out"

ZONEKV_CRASHTEST_DROP_SYNCED_PUTS=1 "$zonekv" crashtest --kills=3 --seed=12 --duration=1s --dir="$dir/lost" \
  >"$dir/lost.out" 2>&1
rc=$?
check "lost synced writes fail the campaign (got $rc)" [ $rc -eq 1 ]
check "the failure names a key" grep -q 'FAILED: key k[0-9]* holds' "$dir/lost.out"
check "the failure says how to reproduce" grep -q 'reproduce with: zonekv crashtest --seed=12 --kills=[0-9]* --first_kill=[0-9]* ' "$dir/lost.out"
check "the image is kept" sh -c "ls '$dir'/lost/image-*.img >/dev/null"
[ $fail -eq 0 ] || cat "$dir/lost.out"

for bad in --kills=0 --kills=2000000 --duration=abc --duration=2h --faults=bogus --first_kill=50; do
  "$zonekv" crashtest $bad >"$dir/err" 2>&1
  rc=$?
  check "$bad exits 2 (got $rc)" [ $rc -eq 2 ]
  check "$bad is named" grep -q -- "${bad%%=*}" "$dir/err"
done
check "--help lists --faults" sh -c "'$zonekv' crashtest --help | grep -q -- --faults"
exit $fail
