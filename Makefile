# The user's verbs.  Everything generated goes to build/; each target
# installs what it needs (apt-get, as root) and redoes only what changed.
# LINUX=7.3 on any verb works on the 7.3 tree instead of 6.12 (config.mk
# pins both): build/7.3/, series-7.3/, docs/results-7.3.md.
#
#   make bench    build both kernels and the image, boot, measure into a
#                 new run directory build/bench/YYYY.MM.DD-HH.MM.SS[-quick]
#                 (build/bench/latest points to the newest), and
#                 regenerate docs/results.md (BENCH_ARGS=--quick for a
#                 short run; WORKLOADS=FILE runs the workloads of a TOML
#                 file in the form of perf-scripts/workloads.toml;
#                 RESUME=latest|DIR continues that run: only what it lacks
#                 or what failed runs, with the arguments it started with)
#   make bench-cost-load  the selection cost per idle entry and per
#                 interrupt of menu, teo and sched as the interrupts on one
#                 CPU grow (1 to 5 sources, 1,000 to 50,000 interrupts/s):
#                 3 -icount boots (estimate: bench.py --cost-load --dry-run;
#                 the run's report states its wall time), into a run of its own,
#                 build/bench/YYYY.MM.DD-HH.MM.SS-costload, reported into its
#                 report/results.md and docs/cost-load.md (docs/results.md
#                 is left as it is; BENCH_ARGS="--seeds 1,2,3" for more
#                 seeds)
#   make report   docs/results.md from the latest run (RUN=DIR: another;
#                 a cost-load run reports into its own directory)
#   make test     everything testable, ending in "N passed, N failed"
#   make test-controls  the boot-level negative controls of make test's
#                 guest checks: each boot must fail its check
#   make test-robust  debug kernel (lockdep, KASAN, UBSAN, kmemleak) with
#                 rcutorture under CPU/IRQ churn; not in CI (build time)
#   make tree     build/linux: pinned Debian tree + series/ (git am)
#   make series   export build/linux's commits back to series/
#   make kernels  build/kernels/{stock,patched}.bzImage
#   make deb      build/deb/: Debian packages of both kernels (bindeb-pkg)
#   make disk-boot  both packages booted from a Debian disk via UEFI, virtio and NVMe
#   make arm64    the proposal built for arm64, its KUnit suites under AAVMF
#   make replay-workload-check  a recording's interrupts replayed in a guest
#   make bench-recordings  the real recordings (perf-scripts/recordings/) in
#                 the bench; make recordings-table: docs/recordings.md
#   make image    build/initramfs.cpio
#   make smoke    boot each kernel once and judge it
#   make replay   idle-loop/: build the replay tool (its tests:
#                 make -C idle-loop test, part of make test)
#   make shell    KERNEL=stock|patched VCPUS=N ARGS="kernel args": an
#                 interactive busybox console in the guest (leave: exit)
#   make clean    remove build/ outputs (keeps the extracted tree)

SHELL := /bin/sh
# The tree every verb works on: 6.12 (Debian 12's kernel line) or 7.3
# (today's, from trixie-backports); config.mk pins both.  Its outputs go
# to build/ or build/7.3/; the image and the host tools are shared.
LINUX ?= 6.12
export LINUX
ifeq ($(LINUX),6.12)
BUILD := build
else ifeq ($(LINUX),7.3)
BUILD := build/7.3
else
$(error LINUX=$(LINUX): the trees are 6.12 and 7.3)
endif
BENCH_ARGS ?=
WORKLOADS ?=
RESUME ?=
RUN ?=
KERNEL ?= patched
VCPUS ?= 2
ARGS ?=
GUEST_SRCS := guest-image/mkinitramfs.sh guest-image/init guest-image/passwd \
	perf-scripts/record.sh $(wildcard guest-image/guest/*.sh guest-image/tools/*.[ch] shared/*.h)

.PHONY: all deps tree series kernels image smoke test test-controls test-robust bench bench-cost-load report replay shell clean

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

image: tree build/initramfs.cpio

build/initramfs.cpio: $(GUEST_SRCS)
	@guest-image/mkinitramfs.sh $@

smoke: kernels image
	@guest-image/run-qemu.sh -k $(BUILD)/kernels/stock.bzImage -i build/initramfs.cpio \
		-o $(BUILD)/runs/smoke-stock -c 2 -d cpuidle_emu -g menu -a cpuidle.governor=menu
	@guest-image/run-qemu.sh -k $(BUILD)/kernels/patched.bzImage -i build/initramfs.cpio \
		-o $(BUILD)/runs/smoke-patched -c 2 -d cpuidle_emu

test:
	@scripts/test.sh

test-controls: kernels image
	@scripts/test-controls.sh

test-robust:
	@scripts/test-robust.sh

bench: kernels bench-tools image
	@python3 perf-scripts/bench.py $(if $(RESUME),--resume $(RESUME),$(if $(WORKLOADS),--workload-file $(WORKLOADS))) $(BENCH_ARGS)

bench-cost-load: kernels bench-tools image
	@python3 perf-scripts/bench.py --cost-load $(BENCH_ARGS)
	@python3 perf-scripts/report.py --run latest --out docs/cost-load$(if $(filter 7.3,$(LINUX)),-7.3).md

# a guest's recorded interrupts replayed by the generator and compared
# arrival by arrival (scripts/tests/replay-workload.sh: two -icount boots)
.PHONY: replay-workload-check
replay-workload-check: kernels image
	@scripts/tests/replay-workload.sh

# the corpus of real recordings (perf-scripts/recordings/) in the bench:
# menu, teo and sched on 2 vCPUs, 5 seeds, into $(BUILD)/bench-recordings
# (BENCH_ARGS adds to or overrides these), reported into
# docs/results-recordings.md (6.12; LINUX=7.3: results-recordings-7.3.md);
# and their open-loop replay, per source, into docs/recordings.md
REC_EMPTY :=
REC_COMMA := ,
RECORDED := $(subst $(REC_EMPTY) $(REC_EMPTY),$(REC_COMMA),$(strip \
	$(patsubst perf-scripts/recordings/%/workload.toml,rec_%,$(wildcard perf-scripts/recordings/*/workload.toml))))
.PHONY: bench-recordings recordings-table
bench-recordings: kernels bench-tools image
	@python3 perf-scripts/bench.py --workloads $(RECORDED) --configs menu,teo,sched --vcpus 2 \
		--repeats 5 --no-cost --out $(BUILD)/bench-recordings $(BENCH_ARGS)
	@python3 perf-scripts/report.py --run $(BUILD)/bench-recordings \
		--out docs/results-recordings$(if $(filter 7.3,$(LINUX)),-7.3).md

recordings-table:
	@$(MAKE) -s -C idle-loop
	@python3 idle-loop/corpus_table.py

# Debian packages of both kernels into build/deb/ (scripts/build-deb.sh),
# and both booted from a Debian disk: OVMF -> GRUB (its default kept on
# Debian's own kernel) -> each package's kernel once
.PHONY: deb disk-boot
deb: tree
	@scripts/build-deb.sh stock
	@scripts/build-deb.sh patched

# (its preflight first: a cause that would stop it after the two kernel
# builds, such as not being root, is said before them)
disk-boot:
	@scripts/disk-boot.sh --preflight
	@$(MAKE) --no-print-directory deb
	@scripts/disk-boot.sh --kernel patched --bus virtio
	@scripts/disk-boot.sh --kernel patched --bus nvme
	@scripts/disk-boot.sh --kernel stock --bus virtio
	@scripts/disk-boot.sh --kernel stock --bus nvme

# the proposal alone on arm64: W=1 cross build, its KUnit suites booted in
# qemu-system-aarch64 -M virt under AAVMF (TCG), judged, with controls
.PHONY: arm64
arm64: tree
	@scripts/arm64.sh

report:
	@python3 perf-scripts/report.py $(if $(RUN),--run $(RUN)) $(if $(WORKLOADS),--workload-file $(WORKLOADS))

# the HPET is left to the interrupt generator (hpet_irqgen), as in the bench
shell: image
	@guest-image/run-qemu.sh -S -k $(BUILD)/kernels/$(KERNEL).bzImage -i build/initramfs.cpio \
		-o $(BUILD)/runs/shell -c $(VCPUS) -d cpuidle_emu -r console \
		-x "-global hpet.timers=8" -a "hpet=disable $(ARGS)"

replay: tree
	@$(MAKE) -C idle-loop

include perf-scripts/bench.mk

clean:
	rm -rf $(BUILD)/kernels $(BUILD)/runs $(BUILD)/test $(BUILD)/test-controls $(BUILD)/initramfs.cpio* \
		$(BUILD)/linux/.out-* $(BUILD)/linux-stock/.out-* \
		$(BUILD)/deb $(BUILD)/disk-boot $(BUILD)/disk-boot-stock $(BUILD)/arm64
