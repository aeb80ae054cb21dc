/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim of <linux/limits.h>. */
#ifndef _SHIM_LINUX_LIMITS_H
#define _SHIM_LINUX_LIMITS_H

#include <stdint.h>

#define U8_MAX		UINT8_MAX
#define U32_MAX		UINT32_MAX
#define S64_MAX		INT64_MAX
#define U64_MAX		UINT64_MAX

#endif
