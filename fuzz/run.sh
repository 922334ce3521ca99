#!/usr/bin/env bash
# fuzz/run.sh - builds the .stance loader fuzzer (clang, libFuzzer, ASan,
# UBSan) and runs it for FUZZ_SECONDS (default 60). The corpus lives in
# FUZZ_DIR/corpus (default build-fuzz/corpus), seeded by make_corpus.sh the
# first time; crashes are written to FUZZ_DIR/ and fail the run.
set -eu
cd "$(dirname "$0")/.."
dir=${FUZZ_DIR:-build-fuzz}
seconds=${FUZZ_SECONDS:-60}
mkdir -p "$dir/corpus"
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -Iinclude -Isrc fuzz/fuzz_asset.c src/core/*.c -lm -o "$dir/fuzz_asset"
if [ -z "$(ls -A "$dir/corpus")" ]; then
    bash fuzz/make_corpus.sh "$dir/corpus" >/dev/null || echo "run.sh: no seed corpus; starting from nothing"
fi
exec "$dir/fuzz_asset" -max_total_time="$seconds" -max_len=262144 -rss_limit_mb=2048 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$dir/" "$dir/corpus"
