/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shim of <linux/errno.h>: the system's UAPI header (the C
 * library's <errno.h> includes it by this name too).
 */
#ifndef _SHIM_LINUX_ERRNO_H
#define _SHIM_LINUX_ERRNO_H

#include_next <linux/errno.h>

#endif
