#!/usr/bin/env bash
# Makes (once) and prints the path of a Debian trixie root holding Wine 10, in which the Windows
# executable is tested (scripts/wine-exe.sh, npm run test:wine). Debian bookworm's Wine 8 cannot
# start Node 24 (V8 aborts in SegmentedTable::InitializeTable); trixie's Wine 10 can. Only
# Debian's packages are fetched (about a minute). The root is cached outside the clone
# (CLINIC_WINE_ROOT, default /var/cache/clinic/wine-trixie), so later runs on the same machine
# take no time. Needs root (debootstrap, chroot, mount).
#   scripts/wine-root.sh            make the root if needed; print its path
#   scripts/wine-root.sh --mount [DIR...]
#                                   also bind-mount /proc, /dev and /tmp (and each DIR not under
#                                   /tmp, such as the clone being tested) into it at the same
#                                   paths, and start Wine's server there (its prefix made once)
#   scripts/wine-root.sh --unmount  stop Wine's server and undo the mounts
set -euo pipefail
ROOT="${CLINIC_WINE_ROOT:-/var/cache/clinic/wine-trixie}"
MOUNTS=(proc dev dev/pts tmp)
WINE_ENV=(env WINEPREFIX=/root/.wine WINEDEBUG=-all HOME=/root XDG_RUNTIME_DIR=/tmp/wine-runtime-root)

mount_root() {
  # The fault tests mount a tmpfs under /tmp while the program runs: /tmp is made a shared mount
  # (a bind onto itself), so that a mount made under it appears inside the root too.
  if ! mountpoint -q "$ROOT/tmp"; then
    mountpoint -q /tmp || mount --bind /tmp /tmp
    mount --make-shared /tmp
  fi
  for dir in "${MOUNTS[@]}"; do
    mkdir -p "$ROOT/$dir"
    mountpoint -q "$ROOT/$dir" || mount --bind "/$dir" "$ROOT/$dir"
  done
  for dir in "${EXTRA_DIRS[@]}"; do
    # Already visible through the mount of /tmp when it lies under it.
    case "$dir" in /tmp | /tmp/*) continue ;; esac
    # Bound afresh every time: a bind left by an earlier run shows the directory it was made of,
    # which may be a clone since deleted and made again at the same path. Wine would then run
    # in a directory without a name, and fontconfig, unable to resolve its working directory,
    # prints "out of memory" on every program's stderr.
    if mountpoint -q "$ROOT$dir"; then umount -l "$ROOT$dir"; fi
    mkdir -p "$ROOT$dir"
    mount --bind "$dir" "$ROOT$dir"
  done
  mkdir -p -m 0700 /tmp/wine-runtime-root
  # The prefix (C:, the registry) is made once; Windows 10 is what Node 24 expects to run on.
  if [ ! -f "$ROOT/root/.wine/.clinic-win10" ]; then
    chroot "$ROOT" "${WINE_ENV[@]}" /usr/lib/wine/wine64 wineboot --init >/dev/null 2>&1 || true
    chroot "$ROOT" "${WINE_ENV[@]}" /usr/lib/wine/wine64 reg add 'HKCU\Software\Wine' /v Version /d win10 /f >/dev/null 2>&1
    touch "$ROOT/root/.wine/.clinic-win10"
  fi
  # A persistent server, so that each program start does not start (and stop) one.
  chroot "$ROOT" "${WINE_ENV[@]}" /usr/lib/wine/wineserver -p >/dev/null 2>&1 || true
}

unmount_root() {
  chroot "$ROOT" "${WINE_ENV[@]}" /usr/lib/wine/wineserver -k >/dev/null 2>&1 || true
  # Every mount inside the root, the deepest first: the fixed ones and each DIR given to --mount.
  findmnt -rn -o TARGET | grep "^$ROOT/" | sort -r | while read -r target; do
    umount -l "$target" || true
  done
  return 0
}

EXTRA_DIRS=("${@:2}")
if [ "${1:-}" = "--unmount" ]; then unmount_root; exit 0; fi
if [ -f "$ROOT/.clinic-ready" ]; then
  [ "${1:-}" = "--mount" ] && mount_root
  echo "$ROOT"
  exit 0
fi
if ! command -v debootstrap >/dev/null 2>&1; then
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >&2
fi
rm -rf "$ROOT"
mkdir -p "$(dirname "$ROOT")"
debootstrap --variant=minbase trixie "$ROOT" http://deb.debian.org/debian >&2
chroot "$ROOT" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends wine64 >&2
touch "$ROOT/.clinic-ready"
[ "${1:-}" = "--mount" ] && mount_root
echo "$ROOT"
