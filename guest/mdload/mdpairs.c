// SPDX-License-Identifier: GPL-2.0
/*
 * mdpairs: time disable/enable pairs in the kernel through the mdload
 * module, for the fast-path benchmark.  One line per run: the kind, the
 * pairs, the time and the time per pair (NDJSON with -j).
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "mdload.h"
#include "mduser.h"

static const char *const kind_names[MDLOAD_NR_PAIRS_KINDS] = {
	[MDLOAD_PAIRS_PREEMPT] = "preempt",
	[MDLOAD_PAIRS_MIGRATE] = "migrate",
	[MDLOAD_PAIRS_MIGRATE_NESTED] = "nested",
};

struct options {
	struct mdload_pairs req;
	long runs;
	int cpu;
	int json;
};

static const struct argp_option option_list[] = {
	{ "kind", 'k', "KIND", 0, "preempt, migrate (outermost) or nested (default migrate)" },
	{ "count", 'n', "N", 0, "Pairs per run (default 1000000)" },
	{ "runs", 'r', "N", 0, "Runs, one line each (default 1)" },
	{ "cpu", 'c', "CPU", 0, "Pin the thread to CPU first" },
	{ "reserved", 'R', "N", 0, "Raw reserved word of the request (must be 0)" },
	{ "json", 'j', NULL, 0, "One JSON object per run (NDJSON)" },
	{ 0 }
};

static const char doc[] =
	"Time pairs of migrate_disable()/migrate_enable(), or of "
	"preempt_disable()/preempt_enable(), in the kernel (the mdload module).\v"
	MDUSER_EXIT_DOC ".";

static error_t parse_option(int key, char *arg, struct argp_state *state)
{
	struct options *o = state->input;
	int kind;

	switch (key) {
	case 'k':
		for (kind = 0; kind < MDLOAD_NR_PAIRS_KINDS; kind++)
			if (!strcmp(arg, kind_names[kind]))
				break;
		if (kind == MDLOAD_NR_PAIRS_KINDS)
			argp_error(state, "bad kind '%s' (preempt, migrate or nested)", arg);
		o->req.kind = kind;
		break;
	case 'n':
		/* The module checks the bound; only what fits the field passes here. */
		o->req.count = option_u64(state, arg, "count", 0, UINT64_MAX);
		break;
	case 'r':
		o->runs = option_u64(state, arg, "number of runs", 1, 1000000);
		break;
	case 'c':
		o->cpu = option_u64(state, arg, "CPU", 0, CPU_SETSIZE - 1);
		break;
	case 'R':
		o->req.reserved = option_u64(state, arg, "reserved word", 0, UINT32_MAX);
		break;
	case 'j':
		o->json = 1;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void print_run(const struct options *o, const struct mdload_pairs *p)
{
	const char *fmt = o->json ?
		"{\"kind\":\"%s\",\"cpu\":%d,\"pairs\":%" PRIu64 ",\"elapsed_ns\":%" PRIu64
		",\"ns_per_pair\":%.3f,\"interrupted\":%s}\n" :
		"kind=%s cpu=%d pairs=%" PRIu64 " elapsed_ns=%" PRIu64
		" ns_per_pair=%.3f interrupted=%s\n";

	printf(fmt, kind_names[p->kind], p->cpu, (uint64_t)p->done, (uint64_t)p->elapsed_ns,
	       p->done ? (double)p->elapsed_ns / p->done : 0.0,
	       p->interrupted ? (o->json ? "true" : "yes") : (o->json ? "false" : "no"));
}

int main(int argc, char **argv)
{
	static const struct argp argp = { option_list, parse_option, NULL, doc };
	struct options o = {
		.req = { .kind = MDLOAD_PAIRS_MIGRATE, .count = 1000000 },
		.runs = 1,
		.cpu = -1,
	};
	int fd, status;

	argp_err_exit_status = EXIT_USAGE;
	argp_parse(&argp, argc, argv, 0, NULL, &o);

	fd = mdload_open("mdpairs", &status);
	if (fd < 0)
		return status;
	if (o.cpu >= 0 && pin_to_cpu("mdpairs", o.cpu))
		return EXIT_SETUP;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (long i = 0; i < o.runs; i++) {
		struct mdload_pairs p = o.req;

		if (ioctl(fd, MDLOAD_PAIRS, &p)) {
			int err = errno;

			fprintf(stderr, "mdpairs: request refused: %s\n", strerror(err));
			return ioctl_exit_status(err);
		}
		print_run(&o, &p);
	}
	return 0;
}
