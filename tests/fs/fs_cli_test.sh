#!/usr/bin/env bash
# Exit codes and output of `zonekv fs` on an image: 0 ok, 1 failure, 2 usage.
# Usage: fs_cli_test.sh /path/to/zonekv
set -u
zonekv=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
img=$dir/fs.img
fail=0

expect() {  # expect RC CMD...: runs CMD, checks its exit code
  local want=$1
  shift
  "$@" >"$dir/out" 2>"$dir/err"
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL: '$*' exited $got, want $want"
    cat "$dir/out" "$dir/err"
    fail=1
  fi
}
contains() {  # contains FILE TEXT
  if ! grep -q -- "$2" "$dir/$1"; then
    echo "FAIL: $1 lacks '$2':"
    cat "$dir/$1"
    fail=1
  fi
}

expect 0 "$zonekv" device create "$img" --zones=12 --zone_size=1M
expect 0 "$zonekv" fs mkfs --device="$img"
contains out "9 data zones"
expect 1 "$zonekv" fs mkfs --device="$img"
contains err "use --force"
expect 0 "$zonekv" fs mkfs --device="$img" --force
expect 0 "$zonekv" fs df --device="$img"
contains out "Space amplification: 0%"
expect 0 "$zonekv" fs fsck --device="$img"
contains out "clean: 0 files in 9 data zones"
expect 0 "$zonekv" fs zones --device="$img" --json
contains out '"state": "empty"'
expect 0 "$zonekv" fs ls --device="$img"
expect 0 "$zonekv" fs dump --device="$img" --json
contains out '"journal_zone"'
expect 1 "$zonekv" fs cat --device="$img" --file=/db/LOG
contains err "NotFound"
expect 2 "$zonekv" fs ls
contains err "--device is required"
expect 2 "$zonekv" fs ls --device="$img" --bogus
expect 2 "$zonekv" fs frobnicate
expect 0 "$zonekv" fs --help
expect 0 "$zonekv" fs fsck --help
expect 1 "$zonekv" fs ls --device="$dir/missing.img"
expect 0 "$zonekv" device create "$dir/blank.img" --zones=8 --zone_size=1M
expect 1 "$zonekv" fs ls --device="$dir/blank.img"
contains err "zonekv fs mkfs"
exit $fail
