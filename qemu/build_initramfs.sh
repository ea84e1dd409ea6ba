#!/usr/bin/env bash
# Builds the QEMU guest's root file system as an uncompressed initramfs (cpio
# newc) from what is installed on this Debian host: busybox-static, the kernel
# modules the guest needs (NVMe, virtio, 9p) for kernel version KVER, the given
# programs and every shared library they load (found with ldd), and
# qemu/guest_init.sh as /init.
#
# Usage: qemu/build_initramfs.sh OUT.cpio KVER PROGRAM...
# Programs land in the guest's /bin under their own names.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 OUT.cpio KVER PROGRAM..." >&2
  exit 2
fi
out=$1
kver=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)

busybox=/bin/busybox
if [ ! -x "$busybox" ]; then
  echo "build_initramfs: $busybox is missing; install busybox-static" >&2
  exit 1
fi
if ldd "$busybox" >/dev/null 2>&1; then
  echo "build_initramfs: $busybox is dynamically linked; install busybox-static" >&2
  exit 1
fi
if [ ! -f "/lib/modules/$kver/modules.dep" ]; then
  echo "build_initramfs: no modules for kernel $kver in /lib/modules; install linux-image-amd64" >&2
  exit 1
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,tmp,share,lib/modules,etc}
cp "$busybox" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
cp "$here/guest_init.sh" "$stage/init"
chmod 755 "$stage/init"

# Kernel modules in load order; dependencies first, each once. Built-in
# modules ("builtin X") need nothing.
: > "$stage/lib/modules/load-order"
for m in nvme virtio_pci 9pnet_virtio 9p; do
  modprobe -S "$kver" --show-depends "$m" | while read -r kind path _; do
    [ "$kind" = insmod ] || continue
    name=$(basename "$path")
    if ! grep -qx "$name" "$stage/lib/modules/load-order"; then
      cp "$path" "$stage/lib/modules/$name"
      echo "$name" >> "$stage/lib/modules/load-order"
    fi
  done
done

# Programs and the shared libraries they need, at the same paths as here.
copy_with_parents() {
  local src=$1
  mkdir -p "$stage$(dirname "$src")"
  cp -L "$src" "$stage$src"
}
for prog in "$@"; do
  if [ ! -x "$prog" ]; then
    echo "build_initramfs: $prog is not an executable file" >&2
    exit 1
  fi
  cp "$prog" "$stage/bin/$(basename "$prog")"
  ldd "$prog" | while read -r line; do
    case "$line" in
      *"not found"*) echo "build_initramfs: $prog: $line" >&2; exit 1 ;;
      *"=> /"*) lib=$(echo "$line" | sed -e 's/.*=> \([^ ]*\) .*/\1/') ;;
      /*) lib=$(echo "$line" | awk '{print $1}') ;;
      *) continue ;;
    esac
    [ -e "$stage$lib" ] || copy_with_parents "$lib"
  done
done
(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
echo "build_initramfs: $out ($(du -h "$out" | cut -f1)), modules: $(tr '\n' ' ' < "$stage/lib/modules/load-order")" >&2
