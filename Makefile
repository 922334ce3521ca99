# stance - the two commands of the README, and a few more.
#   make run    build with a C compiler, CMake and make only; run the demo
#   make check  install test-only packages if missing, run the lab's browser
#               tests, the thread test under TSan, then build with -Werror and
#               run every test, then again under ASan + UBSan (ctest's summary
#               of all the tests closes the run; LeakSanitizer skips only
#               libassimp's own leaks, tests/lsan.supp), then the C tests
#               built without the VEX copies (-DSTANCE_NO_VEX: the SSE2 passes
#               an AVX machine otherwise never runs), then cross-built for
#               Windows (wine) and ARM64 (qemu-user)
#   make bench  the reference workload at 64 and 256 joints, then the crowd
#               workload (10,000 instances of graphs/builtin.json and robot.json, 2 threads)
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
PREFIX ?= /usr/local

.PHONY: all build run check test test-asan test-tsan test-novex test-windows test-arm64 deps bench callgrind install fuzz clean

all: build

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/stance demo

deps:
	bash scripts/deps.sh

test: deps
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DSTANCE_WERROR=ON
	cmake --build build -j $(JOBS)
	cd build && ctest --output-on-failure -j $(JOBS)

test-asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSTANCE_WERROR=ON -DSTANCE_SANITIZE=ON
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp ctest --output-on-failure -j $(JOBS)

# ThreadSanitizer: 4 threads update their own instances and controllers of
# shared graphs; only that test runs in build-tsan.
test-tsan: deps
	cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTANCE_WERROR=ON -DSTANCE_TSAN=ON
	cmake --build build-tsan -j $(JOBS) --target test_threads
	cd build-tsan && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ctest --output-on-failure -R '^test_threads$$'

# The C tests (tests/test_*.c) in a Release tree built with -DSTANCE_NO_VEX
# (core/base/platform.h): the x86-64 passes then have no VEX copy, so the
# SSE2 code that CPUs without AVX run is tested here too (docs/platforms.md).
NOVEX_TESTS = $(basename $(notdir $(wildcard tests/test_*.c)))
novex_space := $(subst ,, )
test-novex: deps
	cmake -S . -B build-novex -DCMAKE_BUILD_TYPE=Release -DSTANCE_WERROR=ON -DCMAKE_C_FLAGS=-DSTANCE_NO_VEX
	cmake --build build-novex -j $(JOBS) --target stance_cli $(NOVEX_TESTS)
	cd build-novex && ctest --output-on-failure -j $(JOBS) -R '^($(subst $(novex_space),|,$(strip $(NOVEX_TESTS))))$$'

check: lab-test test-tsan test test-asan test-novex test-windows test-arm64

# The runtime's, builder's and lesson library's C tests cross-built and run
# on the other platform (scripts/cross_test.sh installs the toolchain,
# wine / qemu-user; docs/platforms.md says what runs where)
test-windows:
	bash scripts/cross_test.sh windows

test-arm64:
	bash scripts/cross_test.sh arm64

bench: build
	./$(BUILD)/stance bench --joints 64
	./$(BUILD)/stance bench --joints 256
	@# the crowd on 1 thread at 200 and 10,000 characters (docs/performance.md: the cache cliff)
	./$(BUILD)/stance bench --graph graphs/builtin.json --characters 200 --threads 1
	./$(BUILD)/stance bench --graph graphs/builtin.json --characters 10000 --threads 1 --frames 30 --warmup 10
	./$(BUILD)/stance bench --graph graphs/robot.json --characters 200 --threads 1
	./$(BUILD)/stance bench --graph graphs/robot.json --characters 10000 --threads 1 --frames 30 --warmup 10
	./$(BUILD)/stance bench --graph graphs/builtin.json --characters 10000 --threads 2
	./$(BUILD)/stance bench --graph graphs/robot.json --characters 10000 --threads 2

# Instructions per character update (steady state), by callgrind: the
# reference workload and the crowd workload.
callgrind: build
	bash scripts/callgrind.sh $(BUILD)/stance

# its own build tree, without the tests (docs/install.md)
INSTALL_BUILD ?= build-install
install:
	cmake -S . -B $(INSTALL_BUILD) -DCMAKE_BUILD_TYPE=Release -DSTANCE_BUILD_TESTS=OFF
	cmake --build $(INSTALL_BUILD) -j $(JOBS)
	cmake --install $(INSTALL_BUILD) --prefix $(PREFIX)

# FUZZ_TARGET=asset|compiled|graphfile|api|campaign|all, FUZZ_SECONDS (default 60;
# the campaign runs to its end, FUZZ_JOBS shards at once); clang's libFuzzer
# runtime is in libclang-rt-14-dev. The CLI (make build) makes the seeds.
fuzz:
	bash scripts/deps.sh clang libclang-rt-14-dev libjansson-dev libassimp-dev libtinygltf-dev
	@$(MAKE) --no-print-directory build
	bash fuzz/run.sh

clean:
	rm -rf build build-asan build-tsan build-novex build-windows build-arm64 build-install

# ---- the animation lab (lab/): the runtime + lab/*.c in WebAssembly
# make lab        build build-lab/ (index.html, index.js, index.wasm, lab.js)
# make lab-serve  serve build-lab/ on 127.0.0.1
# make lab-test   browser tests (Debian chromium + npm playwright-core); they
#                 depend on no timing: no frame-rate or wall-time bar
# make lab-bench  the page's and the crowd view's frame rates, LAB_RUNS fresh
#                 browsers (default 3): medians, the CPU, the load average
LAB_OUT ?= build-lab
LAB_PORT ?= 8765
# the runtime's, the builder's and the lesson library's sources as CMake lists them (written by cmake into
# $(BUILD)/lab_sources.txt), and the lab's own
LAB_SOURCES = $(shell cat $(BUILD)/lab_sources.txt 2>/dev/null) $(wildcard lab/*.c) $(LAB_GRAPHFILE)
# the graph editor (lab/lab_editor.c) reads graph JSON and scenario scripts with the CLI's readers, on Debian's jansson
# (its source package fetched and compiled with emcc into $(LAB_JANSSON) by scripts/lab_jansson.sh);
# a graph file's retargeted clips ("retarget" in "clips") are baked by src/io/retarget*.c
LAB_GRAPHFILE = $(wildcard src/io/graphfile*.c) $(wildcard src/io/retarget*.c) src/io/scenario_script.c src/io/files.c src/io/builtin_asset.c
# LAB_SIMD: WebAssembly SIMD128 (simd.h's wasm form; Chromium, Firefox and Safari 16.4+ run it);
# LAB_SIMD= builds the scalar form. Both give the same poses bit for bit (docs/determinism.md).
LAB_SIMD ?= -msimd128
LAB_EMFLAGS = -std=c11 -O2 -fno-math-errno -ffp-contract=off $(LAB_SIMD) -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Iinclude -Isrc \
	-I$(LAB_JANSSON)/include -DSTANCE_HAVE_JANSSON=1 \
	-sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=web -sEXPORTED_RUNTIME_METHODS=UTF8ToString,HEAPU8,HEAP32,HEAPF32,FS \
	-sMINIFY_HTML=0 --shell-file lab/index.html

.PHONY: lab lab-files lab-serve lab-test lab-deps lab-bench

lab-deps:
	bash scripts/lab_deps.sh

# In-page import (lab/lab_import.*): `stance import`'s own code, tools/cmd_import.c and the glTF importer
# (src/io/gltf*.cpp over Debian's header-only tinygltf and nlohmann json; images are never decoded, so
# no stb), with C++ exceptions (the importer unwinds by them). The include dir exposes only those headers.
LAB_IO_C = src/io/import.c src/io/import_units.c src/io/import_scale.c src/io/gltf_bake.c src/io/asset_textures.c tools/cmd_import.c
LAB_IO_CXX = $(wildcard src/io/gltf*.cpp) $(wildcard lab/*.cpp)
LAB_INC = $(LAB_OUT)/gltf-include
LAB_CXXFLAGS = -std=c++17 -O2 -fexceptions -ffp-contract=off $(LAB_SIMD) -Wall -Wextra -Werror -Iinclude -Isrc -isystem $(LAB_INC) \
	-DSTANCE_HAVE_TINYGLTF -DTINYGLTF_NO_STB_IMAGE -DTINYGLTF_NO_STB_IMAGE_WRITE
LAB_IO_OBJ = $(patsubst %.cpp,$(LAB_OUT)/obj/%.o,$(LAB_IO_CXX))
$(LAB_INC)/tiny_gltf.h:
	@mkdir -p $(LAB_INC)
	@test -f /usr/include/tiny_gltf.h && test -f /usr/include/nlohmann/json.hpp || \
	  { echo "make lab: needs /usr/include/tiny_gltf.h and nlohmann/json.hpp (Debian: libtinygltf-dev nlohmann-json3-dev)"; exit 1; }
	ln -sf /usr/include/nlohmann $(LAB_INC)/nlohmann
	ln -sf /usr/include/tiny_gltf.h $@
$(LAB_OUT)/obj/%.o: %.cpp $(LAB_INC)/tiny_gltf.h $(wildcard src/io/*.h src/io/*.hpp lab/*.h include/stance/*.h)
	@mkdir -p $(dir $@)
	NODE_PATH=/usr/share/nodejs em++ $(LAB_CXXFLAGS) -c $< -o $@

LAB_JANSSON = $(LAB_OUT)/jansson
$(LAB_JANSSON)/libjansson.a: scripts/lab_jansson.sh
	bash scripts/lab_jansson.sh $(LAB_JANSSON)

$(LAB_OUT)/index.html: $(LAB_SOURCES) $(LAB_IO_C) $(LAB_IO_OBJ) $(LAB_JANSSON)/libjansson.a lab/index.html $(wildcard include/stance/*.h include/stance_lesson/*.h src/core/*/*.h src/build/*.h src/builtin/*.h src/io/*.h lab/*.h)
	@mkdir -p $(LAB_OUT)
	@test -s $(BUILD)/lab_sources.txt || { echo "make lab: $(BUILD)/lab_sources.txt is missing (cmake writes it)"; exit 1; }
	NODE_PATH=/usr/share/nodejs emcc $(LAB_EMFLAGS) -DSTANCE_HAVE_TINYGLTF -Itools $(LAB_SOURCES) $(LAB_IO_C) $(LAB_IO_OBJ) $(LAB_JANSSON)/libjansson.a -fexceptions -o $@

LAB_JS = $(patsubst lab/%,$(LAB_OUT)/%,$(wildcard lab/*.js))
$(LAB_OUT)/%.js: lab/%.js
	@mkdir -p $(LAB_OUT)
	cp $< $@

# the one-click example: RobotExpressive with graphs/robot.json compiled in,
# when ../shared/data is there (needs the CLI: make build)
LAB_DATA ?= ../shared/data
LAB_EXAMPLES = $(if $(wildcard $(LAB_DATA)/robot_expressive/RobotExpressive.glb),$(LAB_OUT)/robot.stance)
$(LAB_OUT)/robot.stance: graphs/robot.json $(LAB_DATA)/robot_expressive/RobotExpressive.glb $(BUILD)/stance
	@mkdir -p $(LAB_OUT)
	./$(BUILD)/stance compile graphs/robot.json -o $@

# the test packages first (deps: the CLI that compiles robot.stance needs the
# importers), then cmake (build), so the second make reads the source list it wrote
lab: deps lab-deps build
	@$(MAKE) --no-print-directory lab-files

lab-files: $(LAB_OUT)/index.html $(LAB_JS) $(LAB_EXAMPLES)

lab-serve: lab
	@echo "stance lab: http://127.0.0.1:$(LAB_PORT)/  (Ctrl-C stops)"
	@echo "  the same by hand: python3 -m http.server $(LAB_PORT) --bind 127.0.0.1 --directory $(LAB_OUT)"
	python3 -m http.server $(LAB_PORT) --bind 127.0.0.1 --directory $(LAB_OUT)

# The browser tests compare the page's figures with the CLI's and check what is
# drawn; where animation must have run they pause the page and advance it a
# fixed number of 1/60 s steps, or wait on its simulated clock, so a loaded
# machine makes them slower, never wrong. A browser that gives the page no
# WebGL2 context is replaced once, then the run says so.
lab-test: lab build
	@set -e; for t in tests/lab/*.test.mjs; do echo "== $$t"; \
	  STANCE_CLI=$${STANCE_CLI:-$(BUILD)/stance} LAB_DIR=$(LAB_OUT) node $$t; done

# Frame rates (issue 14 set the crowd a goal of 55 fps): they depend on the machine and
# on what else runs, so they are measured here, not tested. Each of LAB_RUNS runs
# is a fresh browser: the page over 5 s, then the crowd over 5 s with the browser's
# CPU time per frame; the medians close the output.
LAB_RUNS ?= 3
lab-bench: lab
	RUNS=$(LAB_RUNS) LAB_DIR=$(LAB_OUT) node scripts/lab_bench.mjs
