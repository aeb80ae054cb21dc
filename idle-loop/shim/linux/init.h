/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shim of <linux/init.h>: an initcall runs as a constructor,
 * before main(), so a governor registers itself as it does at boot.
 */
#ifndef _SHIM_LINUX_INIT_H
#define _SHIM_LINUX_INIT_H

#define __init

#define postcore_initcall(fn)						\
	static void __attribute__((constructor)) __shim_initcall_##fn(void) \
	{								\
		(void)fn();						\
	}

#endif
