#!/usr/bin/env bash
# Runs zonekv on a real zoned block device: a QEMU guest (software emulation,
# TCG) booting Debian's kernel with an emulated NVMe ZNS namespace of 32 zones
# of 64 MiB with 4 KiB blocks. Namespace configurations:
#   cap64   zone capacity = zone size, max open = max active = 14
#   cap48   zone capacity 48 MiB, max open = max active = 14
#   open4   zone capacity 48 MiB, max open 4 < max active 8 (auto-close
#           reachable); conformance only
# For each it boots, on a fresh namespace, a guest that runs the conformance
# suites (zbd_test) on /dev/nvme0n1 through the zbd: backend and, for cap64
# and cap48, a guest that runs `zonekv bench --device=zbd:/dev/nvme0n1`
# (RocksDB + BlobDB); then the same bench runs on the host against the
# emulator with the same geometry, for comparison.
#
# Usage: scripts/qemu_test.sh [--configs=cap64,cap48,open4] [--no-bench]
#                             [--bench="FLAGS"] [--timeout=SECONDS] [--out=DIR]
#   ZONEKV_BUILD_DIR   build directory (default: build-qemu)
#
# Writes DIR/<config>/{conformance,bench}/ (console.log, qemu-trace.log,
# share/ with the guest's logs and JSON), DIR/<config>/emulator_bench.json and
# DIR/summary.json (default DIR: $ZONEKV_BUILD_DIR/qemu-results). Exits
# non-zero, saying why, if a guest fails to boot, a test or the bench fails,
# or a guest runs past --timeout (default 1800 s per guest); QEMU is always
# killed on exit.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${ZONEKV_BUILD_DIR:-$root/build-qemu}
configs=cap64,cap48,open4
timeout_s=1800
out=""
bench_args="--workload=fillrandom,overwrite --num=30000 --value_size=16384 --scheme=baseline --enable_blob_files=true --enable_blob_garbage_collection=true"
for arg in "$@"; do
  case "$arg" in
    --configs=*) configs=${arg#*=} ;;
    --no-bench) bench_args="" ;;
    --bench=*) bench_args=${arg#*=} ;;
    --timeout=*) timeout_s=${arg#*=} ;;
    --out=*) out=${arg#*=} ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "qemu_test: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done
out=${out:-$build/qemu-results}

die() { echo "qemu_test: FAILED: $*" >&2; exit 1; }

# --- Host packages: QEMU, Debian's kernel, a static busybox, cpio. ---
need=()
for p in qemu-system-x86 linux-image-amd64 busybox-static cpio kmod python3; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "qemu_test: installing ${need[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
kernel=$(ls -1 /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
[ -n "$kernel" ] || die "no kernel in /boot (linux-image-amd64 installs one)"
kver=${kernel#/boot/vmlinuz-}
[ -r "$kernel" ] || die "$kernel is not readable"

# --- The programs that run in the guest. ---
"$root/scripts/setup.sh"
cmake -S "$root" -B "$build" -G Ninja >/dev/null
targets=(zbd_test)
[ -z "$bench_args" ] || targets+=(zonekv)
cmake --build "$build" --target "${targets[@]}" -j "$(nproc)"
progs=("$build/tests/zbd/zbd_test")
[ -z "$bench_args" ] || progs+=("$build/src/tools/zonekv")

mkdir -p "$out"
initrd="$out/initramfs.cpio"
"$root/qemu/build_initramfs.sh" "$initrd" "$kver" "${progs[@]}"

qemu_pid=""
cleanup() {
  if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
    kill -KILL "$qemu_pid" 2>/dev/null || true
    wait "$qemu_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'die "interrupted"' INT TERM

# run_guest DIR ZONE_CAP MAX_OPEN MAX_ACTIVE RUN_TESTS BENCH_ARGS: boots one
# guest on a fresh namespace, waits for it to power off and checks that its
# job passed.
run_guest() {
  local dir=$1 zcap=$2 max_open=$3 max_active=$4 run_tests=$5 args=$6
  rm -rf "$dir"
  mkdir -p "$dir/share"
  cp "$root/qemu/guest_job.sh" "$dir/share/job.sh"
  {
    echo "DEVICE=/dev/nvme0n1"
    echo "RUN_TESTS=$run_tests"
    echo "BENCH_ARGS='$args'"
  } > "$dir/share/job.env"
  # 32 zones of 64 MiB in a sparse image.
  truncate -s 2G "$dir/zns.img"
  local cfg=${dir#"$out"/}
  echo "qemu_test: $cfg: booting (zone_size=64M zone_capacity=$zcap max_open=$max_open" \
    "max_active=$max_active, log: $dir/console.log)" >&2
  local start end
  start=$(date +%s.%N)
  qemu-system-x86_64 \
    -accel tcg,thread=multi -cpu max -smp 2 -m 2G \
    -display none -serial stdio -monitor none -no-reboot \
    -kernel "$kernel" -initrd "$initrd" -append "console=ttyS0 panic=-1 quiet" \
    -virtfs "local,path=$dir/share,mount_tag=share,security_model=none,id=share" \
    -drive "file=$dir/zns.img,id=zns,format=raw,if=none" \
    -device nvme,serial=zns0,id=nvme0 \
    -device "nvme-ns,drive=zns,bus=nvme0,nsid=1,zoned=on,zoned.zone_size=64M,zoned.zone_capacity=$zcap,zoned.max_open=$max_open,zoned.max_active=$max_active,logical_block_size=4096,physical_block_size=4096" \
    -trace "events=$root/qemu/trace-events" -D "$dir/qemu-trace.log" \
    < /dev/null > "$dir/console.log" 2>&1 &
  qemu_pid=$!
  local waited=0
  while kill -0 "$qemu_pid" 2>/dev/null; do
    if [ "$waited" -ge "$timeout_s" ]; then
      cleanup
      qemu_pid=""
      tail -n 20 "$dir/console.log" >&2
      die "$cfg: the guest ran longer than ${timeout_s}s and was killed"
    fi
    sleep 1
    waited=$((waited + 1))
  done
  local qemu_rc=0
  wait "$qemu_pid" || qemu_rc=$?
  qemu_pid=""
  end=$(date +%s.%N)
  rm -f "$dir/zns.img"
  echo "wall_s=$(echo "$start $end" | awk '{printf "%.1f", $2 - $1}')" > "$dir/host.env"
  echo "qemu_rc=$qemu_rc" >> "$dir/host.env"
  [ "$qemu_rc" -eq 0 ] || { tail -n 20 "$dir/console.log" >&2; die "$cfg: QEMU exited with $qemu_rc"; }
  [ -f "$dir/share/guest.rc" ] || { tail -n 30 "$dir/console.log" >&2; die "$cfg: the guest did not finish its job (see $dir/console.log)"; }
  local rc
  rc=$(cat "$dir/share/guest.rc")
  [ "$rc" = 0 ] || { tail -n 40 "$dir/share/guest.log" >&2; die "$cfg: the guest job failed with $rc (see $dir/share/guest.log)"; }
  echo "qemu_test: $cfg: passed in $(cut -d= -f2 < "$dir/host.env" | head -n 1) s" >&2
}

IFS=, read -r -a config_list <<< "$configs"
for cfg in "${config_list[@]}"; do
  case "$cfg" in
    cap64) zcap=64M max_open=14 max_active=14 bench=$bench_args ;;
    cap48) zcap=48M max_open=14 max_active=14 bench=$bench_args ;;
    open4) zcap=48M max_open=4 max_active=8 bench="" ;;
    *) die "unknown configuration '$cfg' (cap64, cap48, open4)" ;;
  esac
  run_guest "$out/$cfg/conformance" "$zcap" "$max_open" "$max_active" 1 ""
  if [ -n "$bench" ]; then
    run_guest "$out/$cfg/bench" "$zcap" "$max_open" "$max_active" 0 "$bench"
    echo "qemu_test: $cfg: the same bench on the host's emulator" >&2
    # shellcheck disable=SC2086 # bench_args is a list of flags
    "$build/src/tools/zonekv" bench --progress=off --json="$out/$cfg/emulator_bench.json" \
      --device="ram:zones=32,zone_size=64M,zone_cap=$zcap,max_open=$max_open,max_active=$max_active" $bench \
      > "$out/$cfg/emulator_bench.log" 2>&1 || die "$cfg: the emulator bench failed (see $out/$cfg/emulator_bench.log)"
  fi
done

python3 "$root/qemu/summarize.py" "$out" "${config_list[@]}" > "$out/summary.json"
cat "$out/summary.json"
echo "qemu_test: all configurations passed; results in $out" >&2
