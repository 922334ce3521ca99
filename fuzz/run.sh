#!/usr/bin/env bash
# fuzz/run.sh - builds a fuzzer (clang, libFuzzer, ASan, UBSan) and runs it
# for FUZZ_SECONDS (default 60). FUZZ_TARGET picks it: "asset" (the .stance
# loader, default), "compiled" (compiled graphs, fuzz/fuzz_compiled.c: its
# mutator aims at the clips' key streams and the GRPH section),
# "graphfile" (JSON graph files, needs libjansson-dev),
# "api" (the public runtime API driven by tests/api_driver.c over the shipped
# graphs and the built-in one; needs libjansson-dev and libassimp-dev for the
# robot graphs, and libtinygltf-dev: their .glb goes to src/io/gltf*.cpp),
# "campaign" (fuzz/campaign.c: every byte of RobotExpressive imported as
# `stance import` does by default and of graphs/robot_footlock.json
# compiled, flipped, truncated and extended; it runs to its end, in
# FUZZ_JOBS shards at once, default nproc, and ignores FUZZ_SECONDS) or
# "all" (each in turn). The corpus lives in FUZZ_DIR/corpus-TARGET (default
# build-fuzz), seeded the first time; crashes are written to FUZZ_DIR/ and
# fail the run.
set -eu
cd "$(dirname "$0")/.."
dir=${FUZZ_DIR:-build-fuzz}
seconds=${FUZZ_SECONDS:-60}
target=${FUZZ_TARGET:-asset}
command -v clang >/dev/null || { echo "fuzz: needs clang and libclang-rt-14-dev (apt-get install clang libclang-rt-14-dev)" >&2; exit 1; }
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Iinclude -Isrc"
# the libraries' sources: the runtime (libstance), the builder (libstance_build:
# graph compilation, compression, the writers that exercise.c's round trips and
# the old graph form's rebuild use) and the lesson library (libstance_lesson:
# the built-in character and the experiments, which the graph files' "builtin"
# asset and the API driver use)
lib_src="src/core/*/*.c src/build/*.c"
lesson_src="src/builtin/*.c src/lesson/*.c"
run_one() {
    local t=$1
    mkdir -p "$dir/corpus-$t"
    case $t in
    asset)
        clang $flags fuzz/fuzz_asset.c fuzz/exercise.c $lib_src -lm -o "$dir/fuzz_asset"
        if [ -z "$(ls -A "$dir/corpus-$t")" ]; then
            bash fuzz/make_corpus.sh "$dir/corpus-$t" >/dev/null || echo "run.sh: no seed corpus; starting from nothing"
        fi ;;
    compiled)
        clang $flags fuzz/fuzz_compiled.c fuzz/exercise.c $lib_src -lm -o "$dir/fuzz_compiled"
        if [ -z "$(ls -A "$dir/corpus-$t")" ]; then
            bash fuzz/make_corpus.sh --compiled "$dir/corpus-$t" >/dev/null || { echo "run.sh: no compiled graph to seed from" >&2; exit 1; }
        fi ;;
    campaign)
        clang ${flags/fuzzer,/} -O2 fuzz/campaign.c fuzz/exercise.c $lib_src -lm -o "$dir/campaign"
        local cli=${STANCE_CLI:-build/stance} data=${STANCE_DATA:-../shared/data}
        [ -x "$cli" ] || { echo "run.sh: the campaign needs the CLI: make build" >&2; exit 1; }
        [ -f "$data/robot_expressive/RobotExpressive.glb" ] || { echo "run.sh: the campaign needs $data/robot_expressive" >&2; exit 1; }
        "$cli" import "$data/robot_expressive/RobotExpressive.glb" -o "$dir/campaign_robot.stance" 2>/dev/null
        "$cli" compile graphs/robot_footlock.json -o "$dir/campaign_robot_footlock.stance" >/dev/null
        local jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)} pids=() fail=0
        for file in "$dir/campaign_robot.stance" "$dir/campaign_robot_footlock.stance"; do
            for ((k = 0; k < jobs; k++)); do
                "$dir/campaign" "$file" --shard "$k/$jobs" >"$dir/campaign.$(basename "$file" .stance).$k.log" 2>&1 &
                pids+=($!)
            done
            for p in "${pids[@]}"; do wait "$p" || fail=1; done
            pids=()
            cat "$dir"/campaign."$(basename "$file" .stance)".*.log
        done
        [ $fail = 0 ] || { echo "campaign: a fault (the logs above; crashes abort with the reason)" >&2; exit 1; }
        return 0 ;;
    graphfile)
        clang $flags -DSTANCE_HAVE_JANSSON=1 fuzz/fuzz_graphfile.c src/io/graphfile*.c src/io/import*.c src/io/gltf_bake.c src/io/files.c \
            src/io/bvh_scan.c src/io/collada_clips.c src/io/lesson_setup.c \
            $lib_src $lesson_src -ljansson -lm -o "$dir/fuzz_graphfile"
        [ -n "$(ls -A "$dir/corpus-$t")" ] || cp graphs/*.json docs/graph-format.md "$dir/corpus-$t/" ;;
    api)
        # the robot graphs' .glb imports through tinygltf (C++): built apart, linked with C++'s sanitizer runtime
        local gltf=""
        if pkg-config --exists tinygltf && command -v clang++ >/dev/null; then
            for f in src/io/gltf*.cpp; do
                clang++ -std=c++17 ${flags/fuzzer,/fuzzer-no-link,} -DSTANCE_HAVE_TINYGLTF=1 -c "$f" -o "$dir/$(basename "$f" .cpp).o"
                gltf="$gltf $dir/$(basename "$f" .cpp).o"
            done
            gltf="-DSTANCE_HAVE_TINYGLTF=1 -fsanitize-link-c++-runtime$gltf $(pkg-config --libs tinygltf) -lstdc++"
        else
            echo "run.sh: no tinygltf: the api fuzzer runs without the robot graphs" >&2
        fi
        clang $flags -Itests -DSTANCE_HAVE_JANSSON=1 -DSTANCE_HAVE_ASSIMP=1 fuzz/fuzz_api.c tests/api_driver.c \
            src/io/graphfile*.c src/io/import*.c src/io/gltf_bake.c src/io/files.c src/io/bvh_scan.c src/io/collada_clips.c src/io/lesson_setup.c \
            $lib_src $lesson_src $gltf \
            -ljansson -lassimp -lm -o "$dir/fuzz_api"
        [ -n "$(ls -A "$dir/corpus-$t")" ] || cp fuzz/corpus/api/* "$dir/corpus-$t/" ;;
    *) echo "fuzz: unknown FUZZ_TARGET '$t' (asset, compiled, graphfile, api, campaign, all)" >&2; exit 2 ;;
    esac
    # 1 MiB: RobotExpressive's files (about 450 KB) are seeds whole
    "$dir/fuzz_$t" -max_total_time="$seconds" -max_len=1048576 -rss_limit_mb=2048 -timeout=60 \
        -print_final_stats=1 -artifact_prefix="$dir/" "$dir/corpus-$t"
}
if [ "$target" = all ]; then for t in asset compiled graphfile api campaign; do run_one $t; done; else run_one "$target"; fi
