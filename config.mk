# The one place the kernel sources are pinned.  Every kernel, stock and
# patched, is built from one exact Debian package version per tree:
#   6.12  Debian 12's kernel line (linux-source-6.12, bookworm): the tree
#         of make deb and make disk-boot
#   7.3   today's kernel (linux-source-7.3, trixie-backports): its menu
#         and teo are the governors upstream ships now
# LINUX=7.3 on any verb chooses the 7.3 tree; scripts/lib.sh reads the
# LINUX_7.3_* names then, the unprefixed ones for 6.12.
LINUX_DEB_PACKAGE := linux-source-6.12
LINUX_DEB_VERSION := 6.12.118-1~deb12u1
LINUX_TARBALL := /usr/src/linux-source-6.12.tar.xz
LINUX_UPSTREAM_VERSION := 6.12.118

# Debian's own kernel config of that version, the base of make deb's
# packages: the package, and the file inside it (amd64, flavour "amd64").
LINUX_DEB_CONFIG_PACKAGE := linux-config-6.12
LINUX_DEB_CONFIG := usr/src/linux-config-6.12/config.amd64_none_amd64.xz

# Not installed: downloaded with apt from its suite (a sources file of its
# own, apt state under build/7.3/src) and unpacked there; TARBALL is the
# path inside the package.
LINUX_7.3_DEB_PACKAGE := linux-source-7.3
LINUX_7.3_DEB_VERSION := 7.3.4-1~bpo13+1
LINUX_7.3_DEB_SUITE := trixie-backports
LINUX_7.3_TARBALL := usr/src/linux-source-7.3.tar.xz
LINUX_7.3_UPSTREAM_VERSION := 7.3.4
