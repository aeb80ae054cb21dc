/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shim of <linux/percpu.h>: a per-CPU variable is an array
 * indexed by CPU; "this CPU" is the one the replay is running the
 * governor for (shim_cpu, set by the replay before each call).
 */
#ifndef _SHIM_LINUX_PERCPU_H
#define _SHIM_LINUX_PERCPU_H

#define SHIM_NR_CPUS	4096

extern unsigned int shim_cpu;

/*
 * Every access goes through shim_percpu_note(), which remembers the
 * object: the replay keeps a copy of a governor's per-CPU data to run a
 * selection again with another answer (govshim.h).
 */
void *shim_percpu_note(void *obj, unsigned long size);

#define smp_processor_id()		(shim_cpu)
#define DEFINE_PER_CPU(type, name)	__typeof__(type) name[SHIM_NR_CPUS]
#define per_cpu_ptr(ptr, cpu)						\
	((__typeof__(&(*(ptr))[0]))shim_percpu_note(&(*(ptr))[cpu],	\
						    sizeof((*(ptr))[0])))
#define per_cpu(var, cpu)		(*per_cpu_ptr(&(var), cpu))
#define this_cpu_ptr(ptr)		per_cpu_ptr(ptr, shim_cpu)

#endif
