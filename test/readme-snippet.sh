#!/usr/bin/env bash
# The README's C snippet is real code: every line of it (comments and
# spacing aside) appears in examples/embed/decode_loop.c, which CI builds
# and runs on the cpu and Vulkan devices.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
normalise() { sed -e 's|/\*.*\*/||' -e 's/[[:space:]]\+/ /g' -e 's/^ //' -e 's/ $//'; }
SRC="$(normalise < "$ROOT/examples/embed/decode_loop.c")"
status=0
while IFS= read -r line; do
  [ -z "$line" ] && continue
  if ! grep -qxF -- "$line" <<< "$SRC"; then
    echo "README line not in examples/embed/decode_loop.c: $line" >&2
    status=1
  fi
done < <(sed -n '/^```c$/,/^```$/p' "$ROOT/README.md" | sed '1d;$d' | normalise)
exit "$status"
