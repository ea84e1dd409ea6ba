#!/bin/sh
# /init of the zonekv QEMU guest (busybox sh, PID 1).
#
# Mounts the kernel file systems, loads the modules listed in
# /lib/modules/load-order, mounts the 9p share (tag `share`) on /share, runs
# /share/job.sh with its output on the console and in /share/guest.log, writes
# the job's exit code to /share/guest.rc and powers the machine off. QEMU runs
# with -no-reboot, so power-off (or a kernel panic: panic=-1) ends QEMU. If
# anything before the job fails, no guest.rc is written and the host reports
# the failure.
/bin/busybox --install -s /bin
export PATH=/bin

poweroff_now() {
  sync
  echo o > /proc/sysrq-trigger
  sleep 60
}

fail() {
  echo "zonekv-guest: FAILED: $*"
  poweroff_now
}

mount -t proc proc /proc || fail "mount /proc"
mount -t sysfs sysfs /sys || fail "mount /sys"
mount -t devtmpfs devtmpfs /dev || fail "mount /dev"
mount -t tmpfs tmpfs /tmp || fail "mount /tmp"
echo "zonekv-guest: booted in $(cut -d' ' -f1 /proc/uptime) s (guest clock)"

for m in $(cat /lib/modules/load-order); do
  insmod "/lib/modules/$m" || fail "insmod $m"
done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 share /share || fail "mount the 9p share"
[ -f /share/job.sh ] || fail "/share/job.sh is missing"

echo "zonekv-guest: running job.sh at $(cut -d' ' -f1 /proc/uptime) s"
{
  sh /share/job.sh
  echo $? > /share/guest.rc
} 2>&1 | tee /share/guest.log
echo "zonekv-guest: job exited with $(cat /share/guest.rc) at $(cut -d' ' -f1 /proc/uptime) s"
umount /share
poweroff_now
