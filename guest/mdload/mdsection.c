// SPDX-License-Identifier: GPL-2.0
/*
 * mdsection: run migrate-disabled sections through the mdload module.
 *
 * One line per section: the CPU at entry and at exit, the time spent,
 * whether a signal cut it short, the yield() calls and when it began on
 * the monotonic clock, tracefs' mono (NDJSON with -j).  The kernel checks the
 * bounds of a request; this tool passes the numbers through, so tests can
 * ask for what the module must refuse.
 */
#define _GNU_SOURCE
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "mdload.h"
#include "mduser.h"

struct options {
	struct mdload_section req;
	long count;
	int cpu;
	int fifo_prio;
	int json;
	int wait_go;
};

static const struct argp_option option_list[] = {
	{ "depth", 'd', "N", 0, "Nesting depth of migrate_disable() (default 1)" },
	{ "spin", 's', "TIME", 0, "Busy-spin this long inside the section" },
	{ "sleep", 'S', "TIME", 0, "Sleep this long inside the section" },
	{ "preempt-off", 'P', "TIME", 0, "Before the section, spin this long with preemption disabled (10ms at most)" },
	{ "count", 'n', "N", 0, "Run N sections, one after another (default 1)" },
	{ "cpu", 'c', "CPU", 0, "Pin the thread to CPU before the first section" },
	{ "fifo", 'f', "PRIO", 0, "Run as SCHED_FIFO at PRIO (1-99)" },
	{ "yield", 'y', NULL, 0, "Call yield() every millisecond of the spin" },
	{ "lock", 'l', NULL, 0, "Spin holding a spinlock_t (on PREEMPT_RT it pins the task; elsewhere 10ms at most; --depth 0 allowed)" },
	{ "flags", 'F', "N", 0, "Raw flags word of the request (bits the module does not know are refused)" },
	{ "json", 'j', NULL, 0, "One JSON object per section (NDJSON)" },
	{ "wait", 'w', NULL, 0, "Once set up, print \"ready\" and wait for a line on standard input before the first section" },
	{ 0 }
};

static const char doc[] =
	"Run migrate-disabled sections through /dev/mdload (the mdload module).\v"
	"TIME is a number with a unit: ns, us, ms or s (e.g. 500us, 10ms).\n"
	MDUSER_EXIT_DOC " (or no go with --wait).";

static int parse_time_ns(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; uint64_t scale; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	char number[32];
	size_t digits = strspn(s, "0123456789");
	uint64_t value;

	if (!digits || digits >= sizeof(number))
		return -1;
	memcpy(number, s, digits);
	number[digits] = '\0';
	if (parse_u64(number, &value))
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(s + digits, units[i].unit))
			continue;
		if (value > UINT64_MAX / units[i].scale)
			return -1;
		*ns = value * units[i].scale;
		return 0;
	}
	return -1;
}

static error_t parse_option(int key, char *arg, struct argp_state *state)
{
	struct options *o = state->input;
	uint64_t v;

	switch (key) {
	case 'd':
		o->req.depth = option_u64(state, arg, "depth", 0, UINT32_MAX);
		break;
	case 's':
		if (parse_time_ns(arg, &v))
			argp_error(state, "bad spin time '%s' (want e.g. 500us)", arg);
		o->req.spin_ns = v;
		break;
	case 'S':
		if (parse_time_ns(arg, &v))
			argp_error(state, "bad sleep time '%s' (want e.g. 10ms)", arg);
		o->req.sleep_ns = v;
		break;
	case 'P':
		if (parse_time_ns(arg, &v))
			argp_error(state, "bad preempt-off time '%s' (want e.g. 2ms)", arg);
		o->req.preempt_off_ns = v;
		break;
	case 'n':
		o->count = option_u64(state, arg, "count", 1, 100000000);
		break;
	case 'c':
		o->cpu = option_u64(state, arg, "CPU", 0, CPU_SETSIZE - 1);
		break;
	case 'f':
		o->fifo_prio = option_u64(state, arg, "SCHED_FIFO priority (1-99)", 1, 99);
		break;
	case 'y':
		o->req.flags |= MDLOAD_YIELD;
		break;
	case 'l':
		o->req.flags |= MDLOAD_SPINLOCK;
		break;
	case 'F':
		o->req.flags = option_u64(state, arg, "flags", 0, UINT32_MAX);
		break;
	case 'j':
		o->json = 1;
		break;
	case 'w':
		o->wait_go = 1;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * The policy first: a SCHED_FIFO thread pinned to a CPU where another one
 * runs must get there at its own priority, not wait as SCHED_OTHER.
 */
static int setup_thread(const struct options *o)
{
	if (o->fifo_prio) {
		struct sched_param param = { .sched_priority = o->fifo_prio };

		if (sched_setscheduler(0, SCHED_FIFO, &param)) {
			fprintf(stderr, "mdsection: cannot set SCHED_FIFO %d: %s\n",
				o->fifo_prio, strerror(errno));
			return -1;
		}
	}
	return o->cpu >= 0 ? pin_to_cpu("mdsection", o->cpu) : 0;
}

static void print_section(const struct options *o, const struct mdload_section *s)
{
	const char *fmt = o->json ?
		"{\"pid\":%d,\"cpu_enter\":%d,\"cpu_exit\":%d,\"elapsed_ns\":%" PRIu64
		",\"interrupted\":%s,\"yields\":%u,\"start_ns\":%" PRIu64 "}\n" :
		"pid=%d cpu_enter=%d cpu_exit=%d elapsed_ns=%" PRIu64
		" interrupted=%s yields=%u start_ns=%" PRIu64 "\n";

	printf(fmt, getpid(), s->cpu_enter, s->cpu_exit, (uint64_t)s->elapsed_ns,
	       s->interrupted ? (o->json ? "true" : "yes") : (o->json ? "false" : "no"),
	       s->yields, (uint64_t)s->start_ns);
}

int main(int argc, char **argv)
{
	static const struct argp argp = { option_list, parse_option, NULL, doc };
	struct options o = { .req.depth = 1, .count = 1, .cpu = -1 };
	int fd, status;

	argp_err_exit_status = EXIT_USAGE;
	argp_parse(&argp, argc, argv, 0, NULL, &o);

	fd = mdload_open("mdsection", &status);
	if (fd < 0)
		return status;
	if (setup_thread(&o))
		return EXIT_SETUP;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (o.wait_go) {
		char line[16];

		printf("ready\n");
		if (!fgets(line, sizeof(line), stdin)) {
			fprintf(stderr, "mdsection: no go on standard input\n");
			return EXIT_SETUP;
		}
	}
	for (long i = 0; i < o.count; i++) {
		struct mdload_section s = o.req;

		if (ioctl(fd, MDLOAD_SECTION, &s)) {
			int err = errno;

			fprintf(stderr, "mdsection: section refused: %s\n", strerror(err));
			return ioctl_exit_status(err);
		}
		print_section(&o, &s);
	}
	return 0;
}
