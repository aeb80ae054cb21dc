// SPDX-License-Identifier: GPL-2.0
/*
 * replay: run the kernel's interrupt predictor (kernel/irq/predict.c) and
 * idle state choice (kernel/sched/idle_select.c), compiled unchanged from
 * the tree, over a recorded interrupt and idle trace, once per prediction
 * rule, and the cpuidle governors (drivers/cpuidle/governors/menu.c,
 * teo.c, also unchanged) as the cpuidle core calls them, and compare each
 * choice with what knew the actual idle period: the fit (the deepest state
 * whose target residency fits it) and the oracle (the state of least
 * energy for it).  See README.md for the input formats and the output.
 *
 * main.c: the options, then read (parse.c), replay (replay.c, exact.c)
 * and print (output.c).  It is the top of the replay: the other files
 * are given what they need and none of them calls back here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/jiffies.h>
#include "govshim.h"
#include "util.h"
#include "trace.h"
#include "parse.h"
#include "states.h"
#include "replay.h"
#include "exact.h"
#include "output.h"

/*
 * The trace and the two replays (their options, with the defaults, then
 * what they count): static, as what they hold is used up to the exit and
 * never freed.
 */
static struct trace tr;
static struct replay rp = { .gov_warmup = 100, .learn = true };
static struct exact xs = { .learn = true };

/* Whether row @r can be asked for: a rule, a registered governor, kernel. */
static int row_known(int r)
{
	return r < ROW_GOV || r == ROW_KERNEL || r - ROW_GOV < shim_nr_governors;
}

static void usage(int status)
{
	FILE *out = status ? stderr : stdout;
	int r;

	fprintf(out,
		"usage: replay [--csv] [--table TABLE | --states FILE] [--rules r1,r2,...]\n"
		"              [--tick-ns N] [--dump FILE] [--ignore-unknown] [--keep-timer-irqs]\n"
		"              [--from-boot] [--check-exact] [--tick-period-ns N]\n"
		"              [--gov-warmup N] [--no-learn] [TRACE|-]\n"
		"rows (--rules; default: all):");
	for (r = 0; r < NR_ROWS; r++)
		if (row_known(r))
			fprintf(out, " %s", row_name(r));
	fprintf(out, "\n"
		"--table TABLE: the emulated idle driver's table, as cpuidle_emu.table=:\n"
		"  skx (default), arm, or active=MW,NAME:EXIT_US:RES_US:MW:ENTRY_UJ,...\n"
		"--states FILE: the recorded machine's idle states (perf-scripts/record.sh)\n"
		"--gov-warmup N: governor entries per CPU not compared with the kernel (100)\n"
		"--from-boot: the trace starts at each CPU's first idle entry (exact mode)\n"
		"--check-exact: exit 1 unless irq_predict events replay with no warm mismatch\n"
		"--no-learn: the rules do not learn from the idle periods that happened,\n"
		"  as the kernel with sched_idle_learn=0\n");
	exit(status);
}

int main(int argc, char **argv)
{
	const char *path = NULL, *states_path = NULL, *name = "-";
	struct parse_opts po = { 0 };
	int csv = 0, check_exact = 0, i, r, any;
	FILE *f = stdin;

	states_setup("skx");
	for (r = 0; r < NR_ROWS; r++)
		rp.rule_on[r] = 1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--csv")) {
			csv = 1;
		} else if (!strcmp(argv[i], "--table") && i + 1 < argc) {
			if (states_setup(argv[++i])) {
				fprintf(stderr, "replay: --table %s: not skx, arm or a valid active=MW,NAME:EXIT_US:RES_US:MW:ENTRY_UJ,... table\n",
					argv[i]);
				exit(2);
			}
		} else if (!strcmp(argv[i], "--rules") && i + 1 < argc) {
			char *list = strdup(argv[++i]), *tok, *save = NULL;

			memset(rp.rule_on, 0, sizeof(rp.rule_on));
			for (tok = strtok_r(list, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				for (r = 0; r < NR_ROWS; r++)
					if (row_known(r) && !strcmp(tok, row_name(r)))
						break;
				if (r == NR_ROWS) {
					fprintf(stderr, "replay: unknown rule %s\n", tok);
					exit(2);
				}
				rp.rule_on[r] = 1;
			}
			free(list);
		} else if (!strcmp(argv[i], "--tick-ns") && i + 1 < argc) {
			u64 x;

			i++;
			if (parse_u64(argv[i], strlen(argv[i]), &x) || x > MAX_TIME_NS)
				usage(2);
			rp.tick_ns = x;
		} else if (!strcmp(argv[i], "--dump") && i + 1 < argc) {
			rp.dump = fopen(argv[++i], "w");
			if (!rp.dump) {
				perror(argv[i]);
				exit(2);
			}
		} else if (!strcmp(argv[i], "--tick-period-ns") && i + 1 < argc) {
			u64 x;

			i++;
			if (parse_u64(argv[i], strlen(argv[i]), &x) || !x || x > MAX_TIME_NS)
				usage(2);
			shim_tick_nsec = (long)x;
		} else if (!strcmp(argv[i], "--states") && i + 1 < argc) {
			states_path = argv[++i];
		} else if (!strcmp(argv[i], "--gov-warmup") && i + 1 < argc) {
			i++;
			if (parse_u64(argv[i], strlen(argv[i]), &rp.gov_warmup))
				usage(2);
		} else if (!strcmp(argv[i], "--no-learn")) {
			rp.learn = false;
			xs.learn = false;
		} else if (!strcmp(argv[i], "--from-boot")) {
			xs.from_boot = true;
		} else if (!strcmp(argv[i], "--check-exact")) {
			check_exact = 1;
		} else if (!strcmp(argv[i], "--ignore-unknown")) {
			po.ignore_unknown = true;
		} else if (!strcmp(argv[i], "--keep-timer-irqs")) {
			po.keep_timer_irqs = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(0);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			usage(2);
		} else if (!path) {
			path = argv[i];
		} else {
			usage(2);
		}
	}
	for (any = 0, r = 0; r < NR_ROWS; r++)
		any |= rp.rule_on[r];
	if (!any)
		usage(2);
	/* after the options: the table's hz wins over --tick-period-ns */
	if (states_path)
		states_read(states_path);
	else
		states_setup_poll_limit();
	if (path && strcmp(path, "-")) {
		f = fopen(path, "r");
		if (!f) {
			perror(path);
			exit(2);
		}
		name = path;
	}
	trace_read(&tr, f, name, &po);
	if (f != stdin)
		fclose(f);
	replay_open_loop(&rp, &tr);
	if (tr.have_predict)
		replay_exact(&xs, &tr);
	if (rp.dump)
		fclose(rp.dump);
	if (tr.have_predict && !csv)
		print_exact(stdout, &xs, &tr);
	if (csv)
		print_csv(&rp, &tr);
	else
		print_text(&rp, &tr);
	if (check_exact) {
		if (!tr.have_predict) {
			fprintf(stderr, "replay: %s: no irq_predict events: no exact replay\n", tr.name);
			return 1;
		}
		if (!xs.warm) {
			fprintf(stderr, "replay: %s: no warm record to check\n", tr.name);
			return 1;
		}
		if (xs.first_line) {
			fprintf(stderr, "replay: %s:%" PRIu64 ": exact replay: %s\n",
				tr.name, xs.first_line, xs.first_why);
			return 1;
		}
	}
	return 0;
}
