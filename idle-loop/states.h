/* SPDX-License-Identifier: GPL-2.0 */
/*
 * states.h: the emulated driver's states (states.c): the cpuidle table
 * every row chooses from, and its energy model.
 */
#ifndef _IDLE_LOOP_STATES_H
#define _IDLE_LOOP_STATES_H

#include <stdbool.h>

#include <linux/types.h>
#include <linux/cpuidle.h>

extern struct cpuidle_driver drv;
extern struct cpuidle_device dev;
extern u64 poll_limit_ns;		/* cpuidle_poll_time() */

int states_setup(const char *spec);
void states_read(const char *path);
void states_setup_poll_limit(void);
const char *states_name(void);
bool states_have_power(void);
double state_energy_pj(int index, u64 halted_ns);
u64 state_halted_ns(int entered, u64 period_ns);
int states_min_energy(u64 halted_ns, u64 latency_req_ns);

#endif
