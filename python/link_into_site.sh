#!/usr/bin/env bash
# Puts the built Python package on the path: writes trainscope.pth, naming BUILD_DIR/python, into
# the site-packages of the Python the module was built for (Debian's /usr/bin/python3) and of the
# `python3` on PATH when that is another interpreter of the same ABI. As root the system-wide
# site-packages (/usr/local/lib/python3.X/dist-packages), else the user's (~/.local/lib/...).
# The package is then imported from the build tree, as rebuilt: no install step to repeat.
#   python/link_into_site.sh [BUILD_DIR]   (scripts/setup.sh runs it)
set -euo pipefail
build_dir="$(cd "${1:-build}" && pwd)"
package="$build_dir/python/trainscope"
module="$(ls "$package"/_core.*.so 2>/dev/null | head -n 1)"
[ -n "$module" ] || { echo "link_into_site: $package/_core.*.so is not built" >&2; exit 2; }
suffix="${module##*/_core}"  # .cpython-311-x86_64-linux-gnu.so

built_for="$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build_dir/CMakeCache.txt")"
on_path="$(command -v python3 || true)"
done_for=()
for py in "$built_for" "$on_path"; do
  [ -n "$py" ] || continue
  exe="$("$py" -c 'import sys; print(sys.executable)')"
  [[ " ${done_for[*]-} " == *" $exe "* ]] && continue
  done_for+=("$exe")
  if [ "$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')" != "$suffix" ]; then
    echo "setup: $exe cannot load $module (another Python version): not linked"
    continue
  fi
  if [ "$(id -u)" -eq 0 ]; then
    site="$("$py" -c 'import site; print(site.getsitepackages()[0])')"
  else
    site="$("$py" -m site --user-site)"
  fi
  mkdir -p "$site"
  echo "$build_dir/python" >"$site/trainscope.pth"
  echo "setup: 'import trainscope' in $exe ($site/trainscope.pth names $build_dir/python)"
done
