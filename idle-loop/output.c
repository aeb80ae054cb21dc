// SPDX-License-Identifier: GPL-2.0
/*
 * output.c: what the replay prints (README.md, "What it writes"): the
 * exact replay's summary, then per row (rule, governor, kernel) the
 * error quantiles, too-deep and too-shallow rates (against the fit) and
 * energy (against the oracle), as text with the per-CPU rows and the
 * confusion tables (chosen against fit), or as CSV.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "states.h"
#include "output.h"

static double pct(u64 a, u64 b)
{
	return b ? 100.0 * a / b : 0;
}

/* hrtimers whose expiry or cancel the trace lost (timers.c) */
static void warn_hrt_lost(const struct replay *rp, const struct trace *tr)
{
	if (rp->hrt_lost)
		fprintf(stderr, "replay: warning: %" PRIu64 " hrtimers of %s with no expiry or "
			"cancel after their start, taken as expired at their due time\n",
			rp->hrt_lost, tr->name);
}

void print_exact(FILE *f, const struct exact *xs, const struct trace *tr)
{
	fprintf(f, "exact replay%s: records %" PRIu64 ", warm %" PRIu64
		", predictions matched %" PRIu64 "/%" PRIu64 " (%.2f%%)"
		", states matched %" PRIu64 "/%" PRIu64 " (%.2f%%)"
		", intercepted %" PRIu64 "\n",
		xs->from_boot ? " (from boot)" : "", xs->records, xs->warm,
		xs->pred_match, xs->warm, pct(xs->pred_match, xs->warm),
		xs->state_match, xs->states, pct(xs->state_match, xs->states),
		xs->intercepted);
	if (xs->first_line)
		fprintf(f, "first mismatch: %s:%" PRIu64 ": %s\n", tr->name,
			xs->first_line, xs->first_why);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double quantile(double *v, size_t n, double q)
{
	size_t k;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	k = (size_t)(q * (n - 1) + 0.5);
	return v[k];
}

struct summary {
	double err_med_us, abs_p90_us, deep_pct, shallow_pct, e_mj, oe_mj;
	u64 deep, shallow;
};

static void summarize(struct rule_stats *s, struct summary *m)
{
	size_t i;
	int a, b;

	memset(m, 0, sizeof(*m));
	m->err_med_us = quantile(s->err, s->nerr, 0.5) / 1000;
	for (i = 0; i < s->nerr; i++)
		s->err[i] = s->err[i] < 0 ? -s->err[i] : s->err[i];
	m->abs_p90_us = quantile(s->err, s->nerr, 0.9) / 1000;
	for (a = 0; a < drv.state_count; a++)
		for (b = 0; b < drv.state_count; b++) {
			if (a > b)
				m->deep += s->confusion[a][b];
			if (a < b)
				m->shallow += s->confusion[a][b];
		}
	if (s->periods) {
		m->deep_pct = 100.0 * m->deep / s->periods;
		m->shallow_pct = 100.0 * m->shallow / s->periods;
	}
	m->e_mj = s->energy / 1e9;
	m->oe_mj = s->oracle_energy / 1e9;
}

static void print_govmatch(const struct replay *rp, const struct trace *tr)
{
	int r;

	for (r = ROW_GOV; r < ROW_KERNEL; r++) {
		const struct rule_stats *s = &rp->stats[r];

		if (!row_exists(tr, r) || !rp->rule_on[r] || !s->kernel_seen)
			continue;
		printf("governor %s: %" PRIu64 " of %" PRIu64 " states as the traced kernel's (%.2f%%), "
		       "the first %" PRIu64 " entries of each CPU not compared\n",
		       row_name(r), s->kernel_match, s->kernel_seen,
		       100.0 * s->kernel_match / s->kernel_seen, rp->gov_warmup);
	}
}

static void print_per_cpu(const struct replay *rp, const struct trace *tr)
{
	u32 cpu;
	int r;

	printf("\nper CPU: %-9s %5s %8s %8s %8s %7s %9s\n", "row", "cpu", "periods",
	       "deep_%", "shallow_%", "ratio", "kernel_%");
	for (r = 0; r < NR_ROWS; r++) {
		if (!row_exists(tr, r) || !rp->rule_on[r])
			continue;
		for (cpu = 0; cpu < MAX_CPUS; cpu++) {
			const struct row_cpu *p = replay_row_cpu(rp, cpu, r);

			if (!p || !p->periods)
				continue;
			printf("per CPU: %-9s %5u %8" PRIu64 " %8.2f %8.2f ", row_name(r), cpu,
			       p->periods, 100.0 * p->deep / p->periods,
			       100.0 * p->shallow / p->periods);
			if (states_have_power())
				printf("%7.3f ", p->oracle_energy > 0 ?
				       p->energy / p->oracle_energy : 0);
			else
				printf("%7s ", "-");
			if (p->seen)
				printf("%9.2f\n", 100.0 * p->match / p->seen);
			else
				printf("%9s\n", "-");
		}
	}
}

void print_text(struct replay *rp, const struct trace *tr)
{
	struct summary m;
	int r, a, b;
	int km = tr->have_select || !tr->native;

	printf("trace %s: table %s, %zu events, timer input from %s%s\n",
	       tr->name, states_name(), tr->nev,
	       tr->have_select ? "sched_idle_select" :
	       tr->have_native_timer ? "the trace" :
	       tr->have_hrt ? "hrtimer events" : "idle ends with no interrupt (approximation)",
	       rp->tick_ns ? ", kept tick modelled" : "");
	if (rp->unmatched_enter || rp->unmatched_exit)
		printf("unmatched idle entries %" PRIu64 ", exits %" PRIu64 " (skipped)\n",
		       rp->unmatched_enter, rp->unmatched_exit);
	if (rp->hrt_lost)
		printf("hrtimers with no expiry or cancel after their start: %" PRIu64
		       ", each taken as expired at its due time\n", rp->hrt_lost);
	warn_hrt_lost(rp, tr);
	print_govmatch(rp, tr);
	if (!states_have_power())
		printf("energy_mJ, oracle_mJ, ratio: - (the table %s has no power model,"
		       " and a machine's sysfs gives none): rows are compared by deep_%%"
		       " and shallow_%% against the fit, the deepest state whose target"
		       " residency the idle period reached\n", states_name());
	printf("\n%-9s %8s %7s %10s %10s %8s %8s %11s %11s %7s%s\n", "rule", "periods",
	       "nopred", "err_med_us", "err_p90_us", "deep_%", "shallow_%",
	       "energy_mJ", "oracle_mJ", "ratio", km ? "  kernel_match_%" : "");
	for (r = 0; r < NR_ROWS; r++) {
		struct rule_stats *s = &rp->stats[r];

		if (!row_exists(tr, r) || !rp->rule_on[r])
			continue;
		summarize(s, &m);
		if (r < ROW_GOV)
			printf("%-9s %8" PRIu64 " %7" PRIu64 " %10.1f %10.1f", row_name(r),
			       s->periods, s->nopred, m.err_med_us, m.abs_p90_us);
		else	/* a governor's predicted duration is not exposed */
			printf("%-9s %8" PRIu64 " %7s %10s %10s", row_name(r), s->periods,
			       "-", "-", "-");
		printf(" %8.2f %8.2f", m.deep_pct, m.shallow_pct);
		if (states_have_power())
			printf(" %11.3f %11.3f %7.3f", m.e_mj, m.oe_mj,
			       m.oe_mj > 0 ? m.e_mj / m.oe_mj : 0);
		else	/* a --states table has no power model */
			printf(" %11s %11s %7s", "-", "-", "-");
		if (km && s->kernel_seen)
			printf("  %14.2f", 100.0 * s->kernel_match / s->kernel_seen);
		else if (km)
			printf("  %14s", "-");
		printf("\n");
	}
	print_per_cpu(rp, tr);
	for (r = 0; r < NR_ROWS; r++) {
		if (!row_exists(tr, r) || !rp->rule_on[r])
			continue;
		printf("\n%s: chosen (rows) vs fit (columns)\n%-8s", row_name(r), "");
		for (b = 0; b < drv.state_count; b++)
			printf(" %9s", drv.states[b].name);
		printf("\n");
		for (a = 0; a < drv.state_count; a++) {
			printf("%-8s", drv.states[a].name);
			for (b = 0; b < drv.state_count; b++)
				printf(" %9" PRIu64, rp->stats[r].confusion[a][b]);
			printf("\n");
		}
	}
}

void print_csv(struct replay *rp, const struct trace *tr)
{
	struct summary m;
	int r, a, b;

	warn_hrt_lost(rp, tr);
	printf("trace,table,rule,periods,nopred,err_med_us,err_abs_p90_us,too_deep_pct,"
	       "too_shallow_pct,energy_mj,oracle_energy_mj,energy_ratio,kernel_match_pct");
	for (a = 0; a < drv.state_count; a++)
		for (b = 0; b < drv.state_count; b++)
			printf(",conf_%s_%s", drv.states[a].name, drv.states[b].name);
	printf("\n");
	for (r = 0; r < NR_ROWS; r++) {
		struct rule_stats *s = &rp->stats[r];

		if (!row_exists(tr, r) || !rp->rule_on[r])
			continue;
		summarize(s, &m);
		printf("%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%.3f,%.3f,%.4f,%.4f,%.6f,%.6f,%.5f,",
		       tr->name, states_name(), row_name(r), s->periods,
		       s->nopred, m.err_med_us, m.abs_p90_us, m.deep_pct, m.shallow_pct,
		       m.e_mj, m.oe_mj, m.oe_mj > 0 ? m.e_mj / m.oe_mj : 0);
		if (s->kernel_seen)
			printf("%.3f", 100.0 * s->kernel_match / s->kernel_seen);
		for (a = 0; a < drv.state_count; a++)
			for (b = 0; b < drv.state_count; b++)
				printf(",%" PRIu64, s->confusion[a][b]);
		printf("\n");
	}
}
