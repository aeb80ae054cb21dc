# The user's verbs.  Everything generated goes to build/; each target
# installs what it needs (apt-get, as root) and redoes only what changed.
#
#   make bench    build both kernels and the image, boot, measure, and
#                 regenerate docs/results.md (BENCH_ARGS=--quick for a
#                 short run)
#   make test     everything testable, ending in "N passed, N failed"
#   make test-robust  debug kernel (lockdep, KASAN, UBSAN, kmemleak) with
#                 rcutorture under CPU/IRQ churn; not in CI (build time)
#   make tree     build/linux: pinned Debian tree + series/ (git am)
#   make series   export build/linux's commits back to series/
#   make kernels  build/kernels/{stock,patched}.bzImage
#   make image    build/initramfs.cpio
#   make smoke    boot each kernel once and judge it
#   make replay   idle-loop/: replay tool and its tests
#   make clean    remove build/ outputs (keeps the extracted tree)

SHELL := /bin/sh
BUILD := build
BENCH_ARGS ?=

.PHONY: all deps tree series kernels image smoke test test-robust bench report replay clean

all: kernels image

deps:
	@scripts/deps.sh

tree: deps
	@scripts/tree.sh

series:
	@scripts/export-series.sh

kernels: tree
	@scripts/build-kernel.sh stock
	@scripts/build-kernel.sh patched

image: tree bench-tools
	@guest-image/mkinitramfs.sh $(BUILD)/initramfs.cpio

smoke: kernels image
	@guest-image/run-qemu.sh -k $(BUILD)/kernels/stock.bzImage -i $(BUILD)/initramfs.cpio \
		-o $(BUILD)/runs/smoke-stock -c 2 -d cpuidle_emu -g menu -a cpuidle.governor=menu
	@guest-image/run-qemu.sh -k $(BUILD)/kernels/patched.bzImage -i $(BUILD)/initramfs.cpio \
		-o $(BUILD)/runs/smoke-patched -c 2 -d cpuidle_emu

test:
	@scripts/test.sh

test-robust:
	@scripts/test-robust.sh

bench: kernels bench-tools image
	@python3 perf-scripts/bench.py $(BENCH_ARGS)

report:
	@python3 perf-scripts/report.py

replay: tree
	@$(MAKE) -C idle-loop

include perf-scripts/bench.mk

clean:
	rm -rf $(BUILD)/kernels $(BUILD)/runs $(BUILD)/test $(BUILD)/initramfs.cpio* \
		$(BUILD)/linux/.out-* $(BUILD)/linux-stock/.out-*
