#!/usr/bin/env bash
# scripts/lab_jansson.sh OUT_DIR - Debian's jansson for the lab's WebAssembly
# build (the graph editor reads graph files with the CLI's reader, which needs
# jansson; Debian ships no wasm build of it). Fetches the Debian source package
# (`apt-get source`, the version of the installed libjansson-dev when there is
# one, so page and CLI parse alike) into OUT_DIR/src, and compiles its src/*.c
# with emcc into OUT_DIR/libjansson.a, headers in OUT_DIR/include.
#
# apt-get runs on a private state directory (OUT_DIR/apt) with deb-src lines
# made from the Debian mirrors already in /etc/apt/sources.list*, so the
# machine's apt configuration is not changed. Needs network access to the
# mirror and dpkg-dev (dpkg-source), installed through scripts/deps.sh.
# Nothing of jansson goes into the repository.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: lab_jansson.sh OUT_DIR}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
[ -s "$out/libjansson.a" ] && [ -s "$out/include/jansson.h" ] && exit 0
command -v dpkg-source >/dev/null || bash "$here/scripts/deps.sh" dpkg-dev

src="$(ls -d "$out"/src/jansson-*/ 2>/dev/null | head -1 || true)"
if [ -z "$src" ]; then
  apt="$out/apt"
  mkdir -p "$apt/lists/partial" "$apt/parts" "$apt/cache/archives/partial" "$out/src"
  # deb-src for each Debian mirror and suite already configured (deb822 and one-line forms)
  : > "$apt/parts/src.list"
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    case "$f" in
      *.sources)
        awk 'BEGIN{RS=""; FS="\n"} {u=""; s=""; c=""; k="";
               for (i = 1; i <= NF; i++) { split($i, kv, ": ");
                 if (kv[1] == "URIs") u = kv[2]; else if (kv[1] == "Suites") s = kv[2];
                 else if (kv[1] == "Components") c = kv[2]; else if (kv[1] == "Signed-By") k = kv[2] }
               if (u ~ /debian/) { n = split(s, ss, " ");
                 for (j = 1; j <= n; j++) print "deb-src" (k != "" ? " [signed-by=" k "]" : "") " " u " " ss[j] " " c } }' "$f" ;;
      *) grep -E '^deb[[:space:]]' "$f" | grep debian | sed 's/^deb[[:space:]]/deb-src /' || true ;;
    esac
  done >> "$apt/parts/src.list"
  if [ ! -s "$apt/parts/src.list" ]; then
    echo "lab_jansson.sh: no Debian mirror in /etc/apt/sources.list* to fetch jansson's source from" >&2
    exit 1
  fi
  opts=(-o "Dir::Etc::SourceList=$apt/parts/src.list" -o "Dir::Etc::SourceParts=$apt/none"
        -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o "Debug::NoLocking=1")
  apt-get "${opts[@]}" update >/dev/null
  want=""
  v="$(dpkg-query -W -f='${Version}' libjansson-dev 2>/dev/null || true)"
  [ -n "$v" ] && want="=$v"
  (cd "$out/src" && { apt-get "${opts[@]}" source "jansson$want" || apt-get "${opts[@]}" source jansson; })
  src="$(ls -d "$out"/src/jansson-*/ | head -1)"
fi
src="${src%/}"

# The two configuration headers jansson's build would generate, for Emscripten
# (wasm32: long is 32 bits, so json_int_t is long long; stdint, unistd,
# /dev/urandom, atomic builtins and localeconv are all there).
mkdir -p "$out/include" "$out/obj"
sed -e 's/@json_inline@/inline/' -e 's/@json_have_long_long@/1/' -e 's/@json_have_localeconv@/1/' \
    -e 's/@json_have_atomic_builtins@/1/' -e 's/@json_have_sync_builtins@/1/' \
    "$src/src/jansson_config.h.in" > "$out/include/jansson_config.h"
if grep -qE '^#define .*@[a-z_]+@' "$out/include/jansson_config.h"; then
  echo "lab_jansson.sh: $src/src/jansson_config.h.in has a setting this script does not fill" >&2
  exit 1
fi
cat > "$out/include/jansson_private_config.h" <<'EOF'
#define HAVE_ENDIAN_H 1
#define HAVE_FCNTL_H 1
#define HAVE_SCHED_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_PARAM_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_STDINT_H 1
#define HAVE_CLOSE 1
#define HAVE_GETPID 1
#define HAVE_GETTIMEOFDAY 1
#define HAVE_OPEN 1
#define HAVE_READ 1
#define HAVE_SCHED_YIELD 1
#define HAVE_SYNC_BUILTINS 1
#define HAVE_ATOMIC_BUILTINS 1
#define HAVE_LOCALE_H 1
#define HAVE_SETLOCALE 1
#define HAVE_INT32_T 1
#define HAVE_UINT32_T 1
#define HAVE_UINT16_T 1
#define HAVE_UINT8_T 1
#define HAVE_SSIZE_T 1
#define USE_URANDOM 1
#define INITIAL_HASHTABLE_ORDER 3
EOF
cp "$src/src/jansson.h" "$out/include/jansson.h"
objs=()
for c in "$src"/src/*.c; do
  o="$out/obj/$(basename "${c%.c}").o"
  NODE_PATH=/usr/share/nodejs emcc -std=c99 -O2 -DHAVE_CONFIG_H -I"$out/include" -I"$src/src" -c "$c" -o "$o"
  objs+=("$o")
done
rm -f "$out/libjansson.a"
NODE_PATH=/usr/share/nodejs emar rcs "$out/libjansson.a" "${objs[@]}"
echo "lab_jansson.sh: $(basename "$src") (Debian source) -> $out/libjansson.a"
