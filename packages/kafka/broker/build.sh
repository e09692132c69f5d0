#!/usr/bin/env bash
# Builds the test broker (mock-broker.c linked statically against librdkafka 2.15.1) when it is missing.
#
#   build.sh [build]      build if needed; print the binary's absolute path (the only line on stdout)
#   build.sh path         print the path if already built, else exit 3 without building
#   build.sh run [ARGS]   build if needed, then exec the broker in the foreground (first line: BOOTSTRAP ...)
#
# librdkafka's source comes from the npm package @confluentinc/kafka-javascript@1.10.1 (deps/librdkafka), the
# version whose mock cluster lets us set the controller id. Everything is cached under
#   ${OJSKIT_KAFKA_MOCK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ojskit/kafka-mock-2.15.1}
# as lib/ (librdkafka.a and headers) and bin/mock-broker-<hash of mock-broker.c>. Each piece is built in a
# temporary directory and renamed into place, so concurrent runs never see a half-built cache; a lock makes a
# second concurrent run wait for the first instead of building twice. Build logs go to stderr.
set -euo pipefail

LIBRDKAFKA_VERSION=2.15.1
NPM_SOURCE=@confluentinc/kafka-javascript@1.10.1
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${OJSKIT_KAFKA_MOCK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ojskit/kafka-mock-$LIBRDKAFKA_VERSION}"
source_hash="$(sha256sum "$here/mock-broker.c" | cut -c1-12)"
binary="$cache/bin/mock-broker-$source_hash"

log() { printf 'kafka broker build: %s\n' "$*" >&2; }
die() { printf 'kafka broker build: FAILED: %s\n' "$*" >&2; exit 1; }

build_library() {
  [[ -f "$cache/lib/librdkafka.a" ]] && return 0
  for tool in cc make tar npm; do command -v "$tool" >/dev/null || die "$tool is not installed (needed to build librdkafka)"; done
  local work started=$SECONDS
  work="$(mktemp -d "$cache/tmp.lib.XXXXXX")"
  log "building librdkafka $LIBRDKAFKA_VERSION static library in $work (about a minute on 2 cores)"
  (cd "$work" && npm pack --silent "$NPM_SOURCE" >/dev/null) || die "npm pack $NPM_SOURCE"
  tar -xzf "$work"/*.tgz -C "$work" package/deps/librdkafka || die "extracting deps/librdkafka"
  local src="$work/package/deps/librdkafka"
  [[ -f "$src/src/rdkafka_mock.h" ]] || die "$NPM_SOURCE has no deps/librdkafka/src/rdkafka_mock.h"
  (cd "$src" && ./configure --disable-ssl --disable-gssapi --disable-sasl --disable-zstd --disable-lz4-ext \
      --disable-curl --disable-zlib >"$work/configure.log" 2>&1) || { tail -30 "$work/configure.log" >&2; die "librdkafka configure (log: $work/configure.log)"; }
  make -C "$src/src" -j"$(nproc 2>/dev/null || echo 2)" librdkafka.a >"$work/make.log" 2>&1 \
    || { tail -30 "$work/make.log" >&2; die "librdkafka make (log: $work/make.log)"; }
  local staged="$work/lib"
  mkdir -p "$staged"
  cp "$src/src/librdkafka.a" "$src/src/rdkafka.h" "$src/src/rdkafka_mock.h" "$staged/"
  # The libraries librdkafka.a itself needs at link time, as configure found them.
  sed -n 's/^LIBS+\{0,1\}=[[:space:]]*//p' "$src/Makefile.config" | tr '\n' ' ' >"$staged/libs.txt"
  rm -rf "$cache/lib"
  mv -T "$staged" "$cache/lib"
  rm -rf "$work"
  log "librdkafka built in $((SECONDS - started))s"
}

build_binary() {
  [[ -x "$binary" ]] && return 0
  local out started=$SECONDS
  out="$(mktemp "$cache/bin/.mock-broker.XXXXXX")"
  # shellcheck disable=SC2046 # libs.txt holds several linker flags
  cc -O2 -Wall -Wextra -Wno-unused-parameter -o "$out" "$here/mock-broker.c" -isystem "$cache/lib" \
    "$cache/lib/librdkafka.a" $(cat "$cache/lib/libs.txt") -lpthread -lm \
    || { rm -f "$out"; die "linking mock-broker"; }
  mv -f "$out" "$binary"
  log "linked $binary in $((SECONDS - started))s"
}

ensure_built() {
  [[ -x "$binary" ]] && return 0
  mkdir -p "$cache/bin"
  if command -v flock >/dev/null; then
    exec 9>"$cache/.lock"
    flock 9
  fi
  build_library
  build_binary
}

case "${1:-build}" in
  build) ensure_built; printf '%s\n' "$binary" ;;
  path) [[ -x "$binary" ]] || exit 3; printf '%s\n' "$binary" ;;
  # The build lock (fd 9) must not outlive the build in the broker process.
  run) shift; ensure_built; exec 9>&-; exec "$binary" "$@" ;;
  *) die "unknown mode '$1' (build, path or run)" ;;
esac
