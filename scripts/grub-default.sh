#!/bin/sh
# grub-default.sh: install test kernels on a Debian machine without moving
# GRUB's default.  update-grub makes the newest kernel by version order the
# default, and any 6.12.118 release sorts above Debian 12's 6.1.0-*; with
# GRUB_DEFAULT=saved the default is the saved entry instead, which
# installing a kernel does not change.  Runs as root on the machine
# (scripts/disk-boot.sh runs it inside its Debian disk); stands alone.
#   grub-default.sh keep [RELEASE]
#       GRUB_DEFAULT=saved (in /etc/default/grub.d/keep-default.cfg),
#       update-grub, and the saved default set to RELEASE's entry
#       (default: the running kernel).  Once, before dpkg -i.
#   grub-default.sh once RELEASE
#       boot RELEASE's entry at the next boot only (grub-reboot); the boot
#       after it is the saved default again
set -eu
die() { echo "grub-default.sh: $*" >&2; exit 1; }
cfg=/boot/grub/grub.cfg
dropin=/etc/default/grub.d/keep-default.cfg

# entry RELEASE: the path GRUB knows RELEASE's entry by ("SUBMENU>ENTRY"
# with Debian's submenu of advanced options, "ENTRY" without one)
entry() {
	re=$(printf '%s' "$1" | sed 's/[.]/\\./g')
	id=$(sed -n "s/.*\$menuentry_id_option '\(gnulinux-$re-advanced-[^']*\)'.*/\1/p" "$cfg" | head -n 1)
	[ -n "$id" ] ||
		die "no GRUB entry for kernel $1 in $cfg (kernels there: $(sed -n "s/.*\$menuentry_id_option 'gnulinux-\(.*\)-advanced-[^']*'.*/\1/p" "$cfg" | tr '\n' ' '))"
	sub=$(sed -n "s/^submenu .*\$menuentry_id_option '\(gnulinux-advanced-[^']*\)'.*/\1/p" "$cfg" | head -n 1)
	if [ -n "$sub" ]; then echo "$sub>$id"; else echo "$id"; fi
}

[ "$(id -u)" -eq 0 ] || die "needs root (it writes $dropin and GRUB's environment block)"
command -v update-grub >/dev/null && command -v grub-set-default >/dev/null ||
	die "no update-grub or grub-set-default: GRUB from Debian's grub2-common is needed"
case "${1:-}" in
keep)
	rel=${2:-$(uname -r)}
	[ -f "/boot/vmlinuz-$rel" ] || die "no /boot/vmlinuz-$rel"
	mkdir -p "${dropin%/*}"
	printf '%s\n' "# scripts/grub-default.sh: the default is the saved entry, not the newest kernel" \
		GRUB_DEFAULT=saved >"$dropin"
	log=$(mktemp)
	update-grub >"$log" 2>&1 || { tail -n 5 "$log" >&2; rm -f "$log"; die "update-grub failed"; }
	rm -f "$log"
	e=$(entry "$rel")
	grub-set-default "$e"
	echo "grub-default.sh: the default is $rel, kept when kernels are installed ($e)"
	;;
once)
	[ -n "${2:-}" ] || die "usage: grub-default.sh once RELEASE"
	[ -f "$dropin" ] || die "the default is not a saved entry: run 'grub-default.sh keep' first"
	e=$(entry "$2")
	grub-reboot "$e"
	echo "grub-default.sh: the next boot only is $2 ($e)"
	;;
*) die "usage: grub-default.sh keep [RELEASE] | once RELEASE" ;;
esac
