# The one place the kernel source is pinned.  Every kernel, stock and
# patched, is built from this exact Debian package version.
LINUX_DEB_PACKAGE := linux-source-6.12
LINUX_DEB_VERSION := 6.12.118-1~deb12u1
LINUX_TARBALL := /usr/src/linux-source-6.12.tar.xz
LINUX_UPSTREAM_VERSION := 6.12.118
