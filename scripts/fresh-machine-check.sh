#!/usr/bin/env bash
# The fresh-machine check: what a new user gets. Makes a brand-new Debian 12 root
# (debootstrap --variant=minbase bookworm, with /proc, /sys and /dev mounted, nothing else
# installed), copies the working tree in (tracked files and untracked ones git does not ignore),
# and runs the README's two commands there exactly as written:
#   ./scripts/setup.sh && ./scripts/demo.sh
#   ./scripts/setup.sh && ./scripts/test.sh
# It fails when either command fails, when the viewer was not built, when the main job did not
# tell its story, or when a test expected of the configuration did not run.
#
#   sudo scripts/fresh-machine-check.sh [--keep] [DIR]
#
# DIR (default: a new directory under /var/tmp) receives the root; --keep leaves it for a look
# afterwards (its logs are in DIR/fresh-check/). Needs root, network access to a Debian mirror
# and about 4 GB of disk; takes 10-20 minutes on 2 cores (apt, a full build, two test passes).
# The root reaches the mirror the way this machine does: its apt sources and apt configuration
# are copied in, nothing else of this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
src="$PWD"

keep=0
if [ "${1:-}" = "--keep" ]; then keep=1; shift; fi
[ "$(id -u)" -eq 0 ] || { echo "fresh-machine-check: run as root (debootstrap, chroot, mounts)" >&2; exit 2; }
root="${1:-$(mktemp -d /var/tmp/trainscope-fresh.XXXXXX)}"
mkdir -p "$root"
logs="$root/fresh-check"

if ! command -v debootstrap >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
  if ((keep == 0)); then rm -rf "$root"; else echo "fresh-machine-check: the root is kept in $root"; fi
}
trap cleanup EXIT

started=$(date +%s)
elapsed() { echo "$(($(date +%s) - started)) s"; }

mirror="$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)"
mirror="${mirror:-http://deb.debian.org/debian}"
echo "fresh-machine-check: debootstrap --variant=minbase bookworm $root ($mirror)"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
  { tail -20 "$root.debootstrap.log" >&2; exit 1; }
mv "$root.debootstrap.log" "$root/debootstrap.log"
mkdir -p "$logs"

# The host's way to the mirror (sources, proxy or snapshot settings) and its name resolution.
cp -a /etc/apt/sources.list.d/. "$root/etc/apt/sources.list.d/" 2>/dev/null || true
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$root/etc/apt/sources.list"
for f in /etc/apt/apt.conf.d/*; do
  case "$(basename "$f")" in docker-* | *autoremove* | 20packagekit | 50appstream) ;; *) cp "$f" "$root/etc/apt/apt.conf.d/" ;; esac
done
find "$root/etc/apt/sources.list.d" -name '*.disabled*' -delete
cp /etc/resolv.conf "$root/etc/resolv.conf"

for m in proc sys dev dev/pts; do
  mkdir -p "$root/$m"
  case "$m" in
    proc) mount -t proc proc "$root/proc" ;;
    sys) mount -t sysfs sys "$root/sys" ;;
    *) mount --bind "/$m" "$root/$m" ;;
  esac
  mounted+=("$root/$m")
done

echo "fresh-machine-check: copying the working tree into $root/home/user/trainscope"
mkdir -p "$root/home/user/trainscope"
git -C "$src" ls-files -z --cached --others --exclude-standard |
  (cd "$src" && xargs -0 -r stat --printf '%n\0' 2>/dev/null) |
  tar -C "$src" --null -T - -cf - | tar -C "$root/home/user/trainscope" -xf -

run_in_root() {  # run_in_root LOG COMMAND: the README command in the new root, as a login shell
  local log="$1" cmd="$2"
  echo "fresh-machine-check: [$(elapsed)] $cmd"
  if chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "cd /home/user/trainscope && $cmd" >"$log" 2>&1; then
    return 0
  fi
  echo "fresh-machine-check: FAILED: $cmd (last lines of $log):" >&2
  tail -30 "$log" >&2
  return 1
}

status=0
run_in_root "$logs/command1.log" "./scripts/setup.sh && ./scripts/demo.sh" || status=1
run_in_root "$logs/command2.log" "./scripts/setup.sh && ./scripts/test.sh" || status=1
# After the set-up, Debian's python3 imports trainscope from anywhere (docs/python.md).
run_in_root "$logs/python.log" "cd /tmp && python3 -c \"import trainscope; t = trainscope.open('/home/user/trainscope/traces/input_bound.db'); print(t.report()['verdict'])\"" || status=1

echo
echo "fresh-machine-check: summary ($(elapsed))"
check() {  # check DESCRIPTION COMMAND...
  local what="$1"; shift
  if "$@"; then echo "  ok    $what"; else echo "  FAIL  $what"; status=1; fi
}
build="$root/home/user/trainscope/build"
check "trainscope built" test -x "$build/cli/trainscope"
check "trainscope-gui (the viewer) built" test -x "$build/gui/app/trainscope-gui"
check "the main job: the naive run is input-bound" grep -q "input-bound:" "$logs/command1.log"
check "the main job: the slow stage is named" grep -q "bottleneck stage: " "$logs/command1.log"
check "the main job: the diff and the saving" grep -q "^B does A's work in" "$logs/command1.log"
check "every expected test ran, with OpenCL devices" grep -q "ran and passed (with the OpenCL devices" "$logs/command2.log"
check "every expected test ran, with no OpenCL device" grep -q "ran and passed (with no OpenCL device)" "$logs/command2.log"
check "the GUI tests ran" grep -q "test_gui_timeline .*Passed" "$logs/command2.log"
check "the Python tests ran" grep -q "test_python_api .*Passed" "$logs/command2.log"
check "python3 -c 'import trainscope ...' after the set-up" grep -qx "high" "$logs/python.log"
grep -h "^test: " "$logs/command2.log" | sed 's/^/  /'
grep -E "^B (is|does) " "$logs/command1.log" | tail -n 2 | sed 's/^/  /'
if ((status == 0)); then echo "fresh-machine-check: PASSED"; else echo "fresh-machine-check: FAILED"; fi
if ((keep == 0)); then
  rm -rf "$root.logs" && cp -r "$logs" "$root.logs" && echo "fresh-machine-check: logs in $root.logs"
fi
exit "$status"
