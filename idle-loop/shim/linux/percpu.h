/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shim of <linux/percpu.h>: a per-CPU variable is an array
 * indexed by CPU; "this CPU" is the one the replay is running the
 * governor for (shim_cpu, set by govshim.c before each call).
 */
#ifndef _SHIM_LINUX_PERCPU_H
#define _SHIM_LINUX_PERCPU_H

#define SHIM_NR_CPUS	4096

extern unsigned int shim_cpu;

#define smp_processor_id()		(shim_cpu)
#define DEFINE_PER_CPU(type, name)	__typeof__(type) name[SHIM_NR_CPUS]
#define per_cpu(var, cpu)		((var)[cpu])
#define per_cpu_ptr(ptr, cpu)		(&(*(ptr))[cpu])
#define this_cpu_ptr(ptr)		per_cpu_ptr(ptr, shim_cpu)

#endif
