#!/bin/sh
# The work done inside the QEMU guest (busybox sh), started by /init as
# /share/job.sh. Settings come from /share/job.env (written by
# scripts/qemu_test.sh): DEVICE; RUN_TESTS (1: run the conformance suite);
# BENCH_ARGS (flags of `zonekv bench`; empty: no bench).
#
# Leaves in /share: facts.env (sysfs values, timings), zbd_test.json
# (GoogleTest's report), zbd_test.log, bench.json and bench.log. Exits
# non-zero on the first failure.
set -eu
. /share/job.env

now() { cut -d' ' -f1 /proc/uptime; }
fact() { echo "$1=$2" >> /share/facts.env; }

: > /share/facts.env
fact guest_job_start_s "$(now)"
fact guest_kernel "$(uname -r)"

# The namespace appears once the NVMe driver has probed it.
name=${DEVICE##*/}
tries=0
until [ -b "$DEVICE" ]; do
  tries=$((tries + 1))
  if [ "$tries" -gt 100 ]; then
    echo "zonekv-guest: $DEVICE did not appear"
    exit 1
  fi
  sleep 0.1
done
queue=/sys/block/$name/queue
for f in zoned chunk_sectors nr_zones max_open_zones max_active_zones logical_block_size zone_append_max_bytes; do
  fact "sysfs_$f" "$(cat "$queue/$f")"
done
fact scheduler_at_boot "$(cat "$queue/scheduler" | tr ' ' '_')"
echo mq-deadline > "$queue/scheduler"
fact scheduler "$(cat "$queue/scheduler" | tr ' ' '_')"

rc=0
if [ "${RUN_TESTS:-0}" = 1 ]; then
  echo "zonekv-guest: conformance suite on $DEVICE"
  t0=$(now)
  ZONEKV_ZBD_DEVICE=$DEVICE zbd_test --gtest_filter="*/zbd:Zbd*" --gtest_output=json:/share/zbd_test.json \
    > /share/zbd_test.log 2>&1 || rc=$?
  fact zbd_test_rc "$rc"
  fact zbd_test_s "$(echo "$(now) $t0" | awk '{print $1 - $2}')"
  tail -n 40 /share/zbd_test.log
fi

if [ -n "${BENCH_ARGS:-}" ]; then
  echo "zonekv-guest: zonekv bench --device=zbd:$DEVICE $BENCH_ARGS"
  t0=$(now)
  brc=0
  # shellcheck disable=SC2086 # BENCH_ARGS is a list of flags
  zonekv bench --device="zbd:$DEVICE" --progress=off --json=/share/bench.json $BENCH_ARGS \
    > /share/bench.log 2>&1 || brc=$?
  fact bench_rc "$brc"
  fact bench_s "$(echo "$(now) $t0" | awk '{print $1 - $2}')"
  tail -n 30 /share/bench.log
  [ "$brc" -eq 0 ] || rc=1
fi
fact guest_job_end_s "$(now)"
exit "$rc"
