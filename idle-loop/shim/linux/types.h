/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim: the kernel integer types predict.c and idle_select.c use. */
#ifndef _SHIM_LINUX_TYPES_H
#define _SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>	/* NULL, as the kernel's types.h gets it from linux/stddef.h */
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

/* The kernel gets it from compiler_types.h, glibc from sys/cdefs.h. */
#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif

#endif
