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
expect 0 "$zonekv" fs fsck --device="$img" --deep
contains out "clean: 0 files"

# fsck --deep on a database with blob files; then damaged metadata.
expect 0 "$zonekv" device create "$dir/db.img" --zones=24 --zone_size=4M --max_open=8 --max_active=8
expect 0 "$zonekv" fs mkfs --device="$dir/db.img"
expect 0 "$zonekv" bench --device="file:$dir/db.img,timing=none" --scheme=baseline --workload=fillrandom \
  --num=3000 --value_size=2000 --enable_blob_files=true --min_blob_size=1000 --write_buffer_size=262144
expect 0 "$zonekv" fs fsck --device="$dir/db.img" --deep
contains out "database /db checked: "
contains out "blob files ([1-9]"
expect 0 "$zonekv" fs fsck --device="$dir/db.img" --deep --json
contains out '"blob_records"'
printf '\x07' | dd of="$dir/db.img" bs=1 seek=20 conv=notrunc status=none  # the header's zone size
expect 1 "$zonekv" fs fsck --device="$dir/db.img"
contains out "damaged metadata: Corruption: image .*header checksum mismatch"
expect 1 "$zonekv" fs fsck --device="$dir/db.img" --json
contains out '"clean": false'
expect 1 "$zonekv" fs ls --device="$dir/db.img"
contains err "header checksum mismatch"

expect 1 "$zonekv" fs ls --device="$dir/missing.img"
expect 0 "$zonekv" device create "$dir/blank.img" --zones=8 --zone_size=1M
expect 1 "$zonekv" fs ls --device="$dir/blank.img"
contains err "zonekv fs mkfs"
exit $fail
