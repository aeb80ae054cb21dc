/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shim of <linux/cpuidle.h>: only the fields that
 * kernel/sched/idle_select.c and the governors (menu.c, teo.c) use, with
 * the kernel's names and types.
 */
#ifndef _SHIM_LINUX_CPUIDLE_H
#define _SHIM_LINUX_CPUIDLE_H

#include <errno.h>
#include <linux/types.h>
#include <linux/percpu.h>

#define CPUIDLE_STATE_MAX	10
#define CPUIDLE_NAME_LEN	16
#define CPUIDLE_FLAG_POLLING	(1U << 0)

struct cpuidle_state {
	char		name[CPUIDLE_NAME_LEN];
	u64		exit_latency_ns;
	u64		target_residency_ns;
	unsigned int	flags;
};

struct cpuidle_state_usage {
	u64		disable;
};

struct cpuidle_driver {
	struct cpuidle_state	states[CPUIDLE_STATE_MAX];
	int			state_count;
};

struct cpuidle_device {
	unsigned int			cpu;
	bool				poll_time_limit;
	int				last_state_idx;
	s64				last_residency_ns;
	struct cpuidle_state_usage	states_usage[CPUIDLE_STATE_MAX];
};

struct cpuidle_governor {
	char			name[CPUIDLE_NAME_LEN];
	unsigned int		rating;
	int  (*enable)		(struct cpuidle_driver *drv,
				 struct cpuidle_device *dev);
	int  (*select)		(struct cpuidle_driver *drv,
				 struct cpuidle_device *dev,
				 bool *stop_tick);
	void (*reflect)		(struct cpuidle_device *dev, int index);
};

/* govshim.c: the replay's answers to what the governors ask the core. */
int cpuidle_register_governor(struct cpuidle_governor *gov);
s64 cpuidle_governor_latency_req(unsigned int cpu);

#endif
