#!/usr/bin/env bash
# Stock RocksDB tools (Debian's rocksdb-tools) on zonekv:// through
# `zonekv run`: db_bench writes, ldb and sst_dump read back, fsck is clean.
# Usage: stock_tools_test.sh ZONEKV_BINARY WORK_DIR CASE
#   CASE: plain | blob | direct (db_bench options), or bad-uri.
# Every db_bench run uses a fixed seed; the same run on RocksDB's own file
# system (under WORK_DIR) is the reference that ldb's output must equal, key
# by key and value by value.
set -euo pipefail
zonekv=$1
work=$2
case_name=$3
img=$work/zns.img
ref=$work/ref-db
rm -rf "$work"
mkdir -p "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }

if [ "$case_name" = bad-uri ]; then
  "$zonekv" device create "$img" --zones=16 --zone_size=8M --max_open=14 --max_active=14 >/dev/null
  "$zonekv" fs mkfs --device="$img" >/dev/null
  for uri in "zonekv://$img?zc:nonsense" "zonekv://$img?scheme:nonsense" "zonekv://$img?zc" \
             "zonekv://$work/missing.img" "zonekv://ram:zones:4" "zonekv://"; do
    set +e
    out=$("$zonekv" run ldb --fs_uri="$uri" --db=/db scan 2>&1)
    rc=$?
    set -e
    [ $rc -ne 0 ] || fail "ldb accepted --fs_uri=$uri"
    [ $rc -lt 128 ] || fail "ldb crashed (rc $rc) on --fs_uri=$uri: $out"
    # The wrapper refuses a malformed URI; the plugin, one it cannot open.
    echo "$out" | grep -qE "^zonekv run: InvalidArgument: --fs_uri=|Invalid argument: zonekv: " ||
      fail "no clean error for --fs_uri=$uri: $out"
  done
  set +e
  out=$("$zonekv" run cat 2>&1)
  rc=$?
  set -e
  [ $rc -eq 2 ] || fail "zonekv run cat: rc $rc: $out"
  echo "bad-uri: every malformed URI is a clean Invalid argument"
  exit 0
fi

opts=(--num=20000 --value_size=1024 --key_size=16 --seed=7 --write_buffer_size=1048576
      --target_file_size_base=1048576 --max_bytes_for_level_base=4194304 --compression_type=none
      --threads=1 --disable_auto_compactions=false --histogram=false --progress_reports=false)
case $case_name in
  plain) ;;
  blob) opts+=(--enable_blob_files=true --min_blob_size=256 --blob_file_size=2097152
               --enable_blob_garbage_collection=true) ;;
  direct) opts+=(--use_direct_reads=true --use_direct_io_for_flush_and_compaction=true) ;;
  *) fail "unknown case $case_name" ;;
esac

"$zonekv" device create "$img" --zones=64 --zone_size=8M --max_open=14 --max_active=14 >/dev/null
"$zonekv" fs mkfs --device="$img" >/dev/null
uri="zonekv://$img"

run_db_bench() {  # $1: fs_uri or empty (reference), $2: db path
  local fs=()
  [ -n "$1" ] && fs=(--fs_uri="$1")
  "$zonekv" run db_bench "${fs[@]}" --db="$2" "${opts[@]}" \
      --benchmarks=fillrandom,overwrite,readrandom >"$work/db_bench.out" 2>&1 ||
    { cat "$work/db_bench.out"; fail "db_bench on ${1:-posix}"; }
  grep -E "^(fillrandom|overwrite|readrandom) +:" "$work/db_bench.out"
}

run_db_bench "$uri" /db
"$zonekv" fs fsck --device="$img" || fail "fsck after db_bench"
run_db_bench "" "$ref"

# ldb scan: every key and value db_bench wrote, compared with the reference.
"$zonekv" run ldb --fs_uri="$uri" --db=/db scan --hex >"$work/zonekv.scan" || fail "ldb scan on zonekv"
"$zonekv" run ldb --db="$ref" scan --hex >"$work/ref.scan" || fail "ldb scan on the reference"
keys=$(wc -l <"$work/ref.scan")
[ "$keys" -gt 10000 ] || fail "the reference holds only $keys keys"
cmp -s "$work/zonekv.scan" "$work/ref.scan" || fail "ldb scan differs from the reference ($(wc -l <"$work/zonekv.scan") vs $keys keys)"
# ldb get of a key from the middle; ldb dump of the whole DB.
key=$(sed -n "$((keys / 2))p" "$work/ref.scan" | cut -d' ' -f1)
want=$(sed -n "$((keys / 2))p" "$work/ref.scan" | cut -d' ' -f3)
got=$("$zonekv" run ldb --fs_uri="$uri" --db=/db get --hex "$key")
[ "$got" = "$want" ] || fail "ldb get $key: $got"
"$zonekv" run ldb --fs_uri="$uri" --db=/db dump --hex >"$work/zonekv.dump" || fail "ldb dump"
dumped=$(grep -c " ==> " "$work/zonekv.dump")
[ "$dumped" -eq "$keys" ] || fail "ldb dump printed $dumped keys, want $keys"

# sst_dump --command=check on every SST zonekv holds.
ssts=$("$zonekv" fs ls --device="$img" | grep -o '/db/[0-9]*\.sst' || true)
[ -n "$ssts" ] || fail "no SST files on zonekv"
n=0
for f in $ssts; do
  "$zonekv" run sst_dump --fs_uri="$uri" --file="$f" --command=check >"$work/sst_dump.out" 2>&1 ||
    { cat "$work/sst_dump.out"; fail "sst_dump check $f"; }
  grep -q "is corrupted\|Corruption" "$work/sst_dump.out" && { cat "$work/sst_dump.out"; fail "sst_dump: $f"; }
  n=$((n + 1))
done
"$zonekv" fs fsck --device="$img" || fail "fsck after the readers"
echo "$case_name: $keys keys equal to the reference through ldb scan, get and dump; sst_dump check of $n SSTs; fsck clean"
