/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim of <linux/time.h> (vdso/time64.h's units). */
#ifndef _SHIM_LINUX_TIME_H
#define _SHIM_LINUX_TIME_H

#define NSEC_PER_USEC	1000L
#define NSEC_PER_MSEC	1000000L
#define NSEC_PER_SEC	1000000000L

#endif
