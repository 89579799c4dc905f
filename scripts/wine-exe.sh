#!/usr/bin/env bash
# Runs a Windows program under Wine as if it were a Linux one, for the tests of dist/clinic.exe
# (npm run test:wine): `scripts/wine-exe.sh PROGRAM.exe ARGS...`. Wine 10 runs from the Debian
# trixie root of scripts/wine-root.sh (`scripts/wine-root.sh --mount` first), with this machine's
# /tmp and the clone at the same paths, so Linux paths given as arguments name the same files
# (Z:\tmp\... inside). The launcher's own process becomes the program (exec), so its pid, exit
# code and signals are the program's: kill -9 of it ends the Windows program.
#
# Under Wine, Node cannot write to a Linux pipe as stdout or stderr (EBADF; a Wine limitation,
# not Windows behaviour), so the program writes to files, which `tail --pid` copies to this
# launcher's stdout and stderr as they grow and until the program has ended. Standard input is
# /dev/null, or with CLINIC_WINE_STDIN=1 (a test that gives input, `login --pin-stdin`) the
# launcher's own, read to its end into a file first: the program reads that file.
set -euo pipefail
ROOT="${CLINIC_WINE_ROOT:-/var/cache/clinic/wine-trixie}"
exe="$1"
shift
logs="${CLINIC_WINE_LOGS:-${TMPDIR:-/tmp}}"
out="$(mktemp "$logs/wine-stdout.XXXXXX")"
err="$(mktemp "$logs/wine-stderr.XXXXXX")"
input=/dev/null
if [ "${CLINIC_WINE_STDIN:-}" = 1 ]; then
  input="$(mktemp "$logs/wine-stdin.XXXXXX")"
  cat >"$input"
  # Opened, then removed: what a test typed (a PIN) is left in no file.
  exec 3<"$input"
  rm -f "$input"
  input=/dev/fd/3
fi
tail -c +1 -s 0.02 --pid=$$ -f "$out" &
tail -c +1 -s 0.02 --pid=$$ -f "$err" >&2 &
# NODE_EXTRA_CA_CERTS names a Linux file that Windows' Node cannot load (it warns on stderr).
exec env -u NODE_EXTRA_CA_CERTS chroot "$ROOT" /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$PWD" \
  env WINEPREFIX=/root/.wine WINEDEBUG=-all HOME=/root XDG_RUNTIME_DIR=/tmp/wine-runtime-root \
  /usr/lib/wine/wine64 "$exe" "$@" >"$out" 2>"$err" <"$input"
