/* SPDX-License-Identifier: GPL-2.0 */
/* Shim of <linux/build_bug.h>: static_assert() as C11 has it. */
#ifndef _SHIM_LINUX_BUILD_BUG_H
#define _SHIM_LINUX_BUILD_BUG_H
#define static_assert(expr, ...) _Static_assert(expr, #expr)
#endif
