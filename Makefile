# stance - the two commands of the README, and a few more.
#   make run    build with a C compiler, CMake and make only; run the demo
#   make check  install test-only packages if missing, build with -Werror,
#               run every test, then again under ASan + UBSan
#   make bench  the reference workload at 64 and 256 joints
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
PREFIX ?= /usr/local

.PHONY: all build run check test test-asan deps bench callgrind install fuzz clean

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
		ctest --output-on-failure -j $(JOBS)

check: test test-asan

bench: build
	./$(BUILD)/stance bench --joints 64
	./$(BUILD)/stance bench --joints 256

# Instructions per character update (steady state), by callgrind.
callgrind: build
	bash scripts/callgrind.sh $(BUILD)/stance

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

fuzz:
	bash fuzz/run.sh

clean:
	rm -rf build build-asan
