# Entry points. `make demo` and `make test` work on a fresh Debian 12 machine (they install first).
PRESET ?= release
BUILD  := build/$(PRESET)
JOBS   ?= $(shell nproc)

.PHONY: all deps configure build demo test test-only fuzz-build bench format lint clean

all: build

deps:
	@bash scripts/bootstrap.sh

configure: deps
	@test -f $(BUILD)/build.ninja || cmake --preset $(PRESET) $(if $(filter release,$(PRESET)),-DKSCHED_FUZZ_DIR=$(CURDIR)/build/fuzz)

build: configure
	cmake --build $(BUILD) -j $(JOBS)
	@mkdir -p bin
	@ln -sf ../$(BUILD)/bin/ksched bin/ksched
	@ln -sf ../$(BUILD)/bin/kube-scheduler bin/kube-scheduler

fuzz-build: deps
	@test -f build/fuzz/build.ninja || cmake --preset fuzz
	cmake --build build/fuzz -j $(JOBS)

demo: build
	./bin/ksched up --demo --exit-when-done

test: build fuzz-build
	cd $(BUILD) && ctest -j 2 --output-on-failure --timeout 600

test-only:
	cd $(BUILD) && ctest -j 2 --output-on-failure --timeout 600

bench: build
	./bin/ksched bench --standard --out bench/results/latest.json

format:
	@git ls-files '*.cpp' '*.h' | xargs clang-format -i

# clang-tidy over the C++ files changed against main (or HEAD~1 on main).
lint: configure
	@base=$$(git merge-base HEAD origin/main 2>/dev/null || git rev-parse HEAD~1); \
	files=$$(git diff --name-only $$base -- '*.cpp' | xargs -r ls 2>/dev/null); \
	if [ -n "$$files" ]; then clang-tidy -p $(BUILD) --quiet $$files; else echo "lint: no changed C++ files"; fi

clean:
	rm -rf build bin
