// SPDX-License-Identifier: GPL-2.0
/*
 * states.c: the idle states the replay chooses from and their energy.
 * The built-in tables, their parser and the energy formula are the
 * emulated-idle driver's own, compiled from the tree
 * (drivers/cpuidle/cpuidle-emu-model.c): --table takes what
 * cpuidle_emu.table= takes (skx, arm, or active=MW,NAME:EXIT_US:RES_US:
 * MW:ENTRY_UJ,...), POLL in front as cpuidle_poll_state_init() puts it.
 * --states reads a recorded machine's table instead (no power model).
 * The rest of the replay uses the cpuidle driver (drv, dev) and the
 * functions declared in states.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/minmax.h>
#include <linux/time.h>
#include <linux/jiffies.h>
#include "cpuidle-emu.h"
#include "util.h"
#include "states.h"

/* drivers/cpuidle/cpuidle.c: cpuidle_poll_time()'s bounds. */
#define POLL_MIN_NS	10000

/* the driver's model; active_mw 0 for a --states table (no power model) */
static struct emu_idle_table model;
static const char *table_name;
struct cpuidle_driver drv;
struct cpuidle_device dev;
u64 poll_limit_ns;

/* drivers/cpuidle/cpuidle.c: cpuidle_poll_time(), no state disabled. */
void states_setup_poll_limit(void)
{
	int i;

	poll_limit_ns = TICK_NSEC / 16;
	for (i = 1; i < drv.state_count; i++) {
		if (dev.states_usage[i].disable ||
		    drv.states[i].target_residency_ns < POLL_MIN_NS)
			continue;
		poll_limit_ns = min(drv.states[i].target_residency_ns, poll_limit_ns);
		break;
	}
}

/* The table @spec (skx, arm, or a custom one): 0, or -1 when it is bad. */
int states_setup(const char *spec)
{
	unsigned int i;

	if (emu_idle_parse_table(spec, &model))
		return -1;
	/* a custom table's commas would break the CSV's table column */
	table_name = strchr(spec, ',') ? "custom" : spec;
	memset(&drv, 0, sizeof(drv));
	memset(&dev, 0, sizeof(dev));
	/* cpuidle_poll_state_init(): state 0 polls, at active power. */
	snprintf(drv.states[0].name, CPUIDLE_NAME_LEN, "POLL");
	drv.states[0].flags = CPUIDLE_FLAG_POLLING;
	/* as the driver fills its cpuidle_driver (emu_idle_fill_driver()) */
	for (i = 0; i < model.count; i++) {
		const struct emu_idle_state *e = &model.states[i];
		struct cpuidle_state *s = &drv.states[i + 1];

		snprintf(s->name, CPUIDLE_NAME_LEN, "%s", e->name);
		s->exit_latency_ns = (u64)e->exit_latency_us * NSEC_PER_USEC;
		s->target_residency_ns = (u64)e->target_residency_us * NSEC_PER_USEC;
	}
	drv.state_count = model.count + 1;
	states_setup_poll_limit();
	return 0;
}

/*
 * --states FILE (perf-scripts/record.sh writes it from sysfs):
 *   hz N                  the kernel's HZ: TICK_NSEC (optional)
 *   governor NAME         driver NAME     (informative)
 *   state NAME EXIT_LATENCY_US TARGET_RESIDENCY_US DISABLE
 * one state line per state, shallowest first; a state named POLL polls
 * (cpuidle_poll_state_init()).  Any other line, a bad number, more than
 * CPUIDLE_STATE_MAX states or a target residency below the previous
 * one's stops with FILE:LINE: reason.
 */
static void states_fail(const char *path, unsigned long ln, const char *why)
{
	fprintf(stderr, "replay: %s:%lu: bad state table: %s\n", path, ln, why);
	exit(1);
}

void states_read(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], *tok[8], *save;
	unsigned long ln = 0;
	int n, i, nstates = 0;
	u64 v[3], hz = 0;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	memset(&drv, 0, sizeof(drv));
	memset(&dev, 0, sizeof(dev));
	memset(&model, 0, sizeof(model));
	while (fgets(line, sizeof(line), f)) {
		ln++;
		if (!strchr(line, '\n') && !feof(f))
			states_fail(path, ln, "line too long");
		n = 0;
		for (tok[n] = strtok_r(line, " \t\r\n", &save); tok[n] && n < 7;
		     tok[++n] = strtok_r(NULL, " \t\r\n", &save))
			;
		if (!n || tok[0][0] == '#')
			continue;
		if (!strcmp(tok[0], "hz")) {
			if (n != 2 || parse_u64(tok[1], strlen(tok[1]), &hz) || !hz || hz > 100000)
				states_fail(path, ln, "expected: hz N (1..100000)");
		} else if (!strcmp(tok[0], "governor") || !strcmp(tok[0], "driver")) {
			if (n != 2)
				states_fail(path, ln, "expected: governor|driver NAME");
		} else if (!strcmp(tok[0], "state")) {
			struct cpuidle_state *st = &drv.states[nstates];

			if (n != 5)
				states_fail(path, ln, "expected: state NAME EXIT_LATENCY_US TARGET_RESIDENCY_US DISABLE");
			if (nstates == CPUIDLE_STATE_MAX)
				states_fail(path, ln, "more than 10 states");
			if (strlen(tok[1]) >= CPUIDLE_NAME_LEN)
				states_fail(path, ln, "state name longer than 15 characters");
			for (i = 0; i < 3; i++)
				if (parse_u64(tok[i + 2], strlen(tok[i + 2]), &v[i]) ||
				    v[i] > 10000000)
					states_fail(path, ln, "latency and residency must be whole us up to 10 s, disable a number");
			snprintf(st->name, CPUIDLE_NAME_LEN, "%s", tok[1]);
			if (!strcmp(tok[1], "POLL"))
				st->flags = CPUIDLE_FLAG_POLLING;
			st->exit_latency_ns = v[0] * 1000;
			st->target_residency_ns = v[1] * 1000;
			if (nstates && st->target_residency_ns < drv.states[nstates - 1].target_residency_ns)
				states_fail(path, ln, "target residency below the previous state's");
			dev.states_usage[nstates].disable = v[2] != 0;
			nstates++;
		} else {
			states_fail(path, ln, "unknown line (expected hz, governor, driver or state)");
		}
	}
	if (ferror(f))
		states_fail(path, ln, "read error");
	fclose(f);
	if (!nstates)
		states_fail(path, ln, "no state line");
	drv.state_count = nstates;
	table_name = path;
	if (hz)
		shim_tick_nsec = (NSEC_PER_SEC + hz / 2) / hz;
	states_setup_poll_limit();
}

/* The table's name: skx, arm, custom, or the --states file. */
const char *states_name(void)
{
	return table_name;
}

/* Whether the table has a power model (a --states table has none). */
bool states_have_power(void)
{
	return model.active_mw != 0;
}

/*
 * What the driver charges for an idle period halted for @halted_ns in
 * state @index (then its exit latency spun at active power), in pJ: 0
 * without a model.
 */
double state_energy_pj(int index, u64 halted_ns)
{
	const struct cpuidle_state *s = &drv.states[index];

	if (!states_have_power())
		return 0;
	if (s->flags & CPUIDLE_FLAG_POLLING)
		return emu_idle_active_energy_pj(model.active_mw, halted_ns);
	return emu_idle_entry_energy_pj(&model.states[index - 1], model.active_mw,
					halted_ns, s->exit_latency_ns);
}

/*
 * The halted time of a traced idle period of @period_ns in state
 * @entered.  The driver spins the exit latency out before the exit is
 * traced, so the period is the halt and then that spin; polling, or no
 * traced state (@entered < 0, the native format), it is all the period.
 * The wakeup ends the halt whatever the state, so every state is charged
 * for this same time.
 */
u64 state_halted_ns(int entered, u64 period_ns)
{
	const struct cpuidle_state *s;

	if (entered < 0)
		return period_ns;
	s = &drv.states[entered];
	if (s->flags & CPUIDLE_FLAG_POLLING)
		return period_ns;
	return period_ns > s->exit_latency_ns ? period_ns - s->exit_latency_ns : 0;
}

/*
 * The oracle: the state of least energy (state_energy_pj()) for an idle
 * period halted for @halted_ns, among the states the kernel could choose
 * (enabled, exit latency within @latency_req_ns), the shallowest of
 * equals; -1 when none is.  Not the deepest state whose target residency
 * fits: the residencies are not where the energies cross (skx: C6 costs
 * less than C1E from 484 us halted, C1E less than C1 from 40 us).
 */
int states_min_energy(u64 halted_ns, u64 latency_req_ns)
{
	double e, best_e = 0;
	int i, best = -1;

	for (i = 0; i < drv.state_count; i++) {
		if (dev.states_usage[i].disable ||
		    drv.states[i].exit_latency_ns > latency_req_ns)
			continue;
		e = state_energy_pj(i, halted_ns);
		if (best < 0 || e < best_e) {
			best = i;
			best_e = e;
		}
	}
	return best;
}
