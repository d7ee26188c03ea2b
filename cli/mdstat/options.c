// SPDX-License-Identifier: GPL-2.0
/* The options every mdstat subcommand takes, and their checks. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "cli.h"

enum { OPT_VERBOSE = 'v' };

static const struct argp_option common_options[] = {
	{ "cpus", 'C', "LIST", 0, "Only these CPUs, as in taskset -c (0-2,5)", 1 },
	{ "pid", 'p', "PID", 0, "Only the tasks of this process", 1 },
	{ "interval", 'i', "SEC", 0, "Seconds between reports (default 1)", 1 },
	{ "count", 'n', "N", 0, "Stop after N intervals", 1 },
	{ "json", 'j', NULL, 0, "One JSON object per line (NDJSON)", 1 },
	{ "batch", 'b', NULL, 0, "Plain text appended, also on a terminal", 1 },
	{ "verbose", OPT_VERBOSE, NULL, 0, "Show libbpf's messages, and the time each interval takes", 1 },
	{ 0 }
};

static int parse_cpu(const char *s, char **end, struct argp_state *state,
		     const char *list)
{
	const struct mdstat_options *o = state->input;
	long cpu;

	errno = 0;
	cpu = strtol(s, end, 10);
	if (errno || *end == s || cpu < 0)
		argp_failure(state, EXIT_USAGE, 0, "bad CPU list '%s'", list);
	if (cpu >= o->nr_cpus)
		argp_failure(state, EXIT_USAGE, 0,
			     "CPU %ld does not exist (this machine has 0-%d)",
			     cpu, o->nr_cpus - 1);
	return cpu;
}

/* "0-2,5" into o->cpus. */
static void parse_cpu_list(struct mdstat_options *o, const char *list,
			   struct argp_state *state)
{
	const char *s = list;
	char *end;
	int first, last, cpu;

	if (!*list)
		argp_failure(state, EXIT_USAGE, 0, "bad CPU list ''");
	memset(o->cpus, 0, o->nr_cpus);
	for (;;) {
		first = last = parse_cpu(s, &end, state, list);
		if (*end == '-')
			last = parse_cpu(end + 1, &end, state, list);
		if (last < first || (*end && *end != ','))
			argp_failure(state, EXIT_USAGE, 0, "bad CPU list '%s'", list);
		for (cpu = first; cpu <= last; cpu++)
			o->cpus[cpu] = 1;
		if (!*end)
			break;
		s = end + 1;
	}
	o->cpus_given = true;
}

static double parse_positive(const char *arg, const char *what,
			     struct argp_state *state)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0))
		argp_failure(state, EXIT_USAGE, 0,
			     "bad %s '%s': want a number above 0", what, arg);
	return v;
}

/* The checks that need all options. */
static void options_finish(struct mdstat_options *o, struct argp_state *state)
{
	if (o->pid && kill(o->pid, 0) && errno == ESRCH)
		argp_failure(state, EXIT_NO_PID, 0, "no process with pid %d", o->pid);
}

static error_t parse_common(int key, char *arg, struct argp_state *state)
{
	struct mdstat_options *o = state->input;
	double v;

	switch (key) {
	case 'C':
		parse_cpu_list(o, arg, state);
		break;
	case 'p':
		v = parse_positive(arg, "pid", state);
		if (v != (int)v)
			argp_failure(state, EXIT_USAGE, 0, "bad pid '%s'", arg);
		o->pid = v;
		break;
	case 'i':
		o->interval = parse_positive(arg, "interval", state);
		o->interval_given = true;
		break;
	case 'n':
		v = parse_positive(arg, "count", state);
		if (v != (long)v)
			argp_failure(state, EXIT_USAGE, 0, "bad count '%s'", arg);
		o->count = v;
		break;
	case 'j':
		o->json = true;
		break;
	case 'b':
		o->batch = true;
		break;
	case OPT_VERBOSE:
		o->verbose = true;
		break;
	case ARGP_KEY_ARGS:
		/* A command to run, but only after "--". */
		if (strcmp(state->argv[state->next - 1], "--"))
			argp_error(state, "unexpected argument '%s'",
				   state->argv[state->next]);
		o->command = state->argv + state->next;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		options_finish(o, state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp common_argp = {
	.options = common_options,
	.parser = parse_common,
};

/*
 * Parse a subcommand's arguments with its argp, whose first child is
 * common_argp; exits on bad input.  Every possible CPU counts, however
 * many (/sys/devices/system/cpu/possible).
 */
void options_parse(const struct argp *argp, int argc, char **argv,
		   struct mdstat_options *o)
{
	memset(o, 0, sizeof(*o));
	o->interval = 1;
	o->event_mask = ~0U;
	o->nr_cpus = libbpf_num_possible_cpus();
	if (o->nr_cpus <= 0) {
		fprintf(stderr, "mdstat: cannot tell the number of CPUs: %s\n",
			strerror(-o->nr_cpus));
		exit(EXIT_RUNTIME);
	}
	o->cpus = cpus_alloc(o, sizeof(*o->cpus));
	if (!o->cpus)
		exit(EXIT_RUNTIME);
	argp_parse(argp, argc, argv, 0, NULL, o);
}

bool cpu_shown(const struct mdstat_options *o, int cpu)
{
	return cpu < o->nr_cpus && (!o->cpus_given || o->cpus[cpu]);
}

/* An array of size-byte elements, zeroed, one per possible CPU; or NULL, said. */
void *cpus_alloc(const struct mdstat_options *o, size_t size)
{
	void *array = calloc(o->nr_cpus, size);

	if (!array)
		fprintf(stderr, "mdstat: out of memory for %d CPUs\n", o->nr_cpus);
	return array;
}

const struct argp_child common_children[] = {
	{ &common_argp, 0, "Common options:", 0 },
	{ 0 }
};

/* A subcommand's own parser: the common options get the same input. */
error_t parse_subcommand(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	if (key != ARGP_KEY_INIT)
		return ARGP_ERR_UNKNOWN;
	state->child_inputs[0] = state->input;
	return 0;
}
