// SPDX-License-Identifier: GPL-2.0
/*
 * mdstat: what migrate_disable() costs on this machine, now.  The first
 * argument names the subcommand; each parses the rest with its own argp.
 */
#include <string.h>
#include "cli.h"

const char *argp_program_version = "mdstat 0.1";
const char *argp_program_bug_address = "<mdstat-dev@example.org>";

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *what;
} subcommands[] = {
	{ "top", cmd_top, "per-CPU table of pinned tasks, stacking and pushes, live" },
	{ "hist", cmd_hist, "latency histograms: stacked waits, pushes, hotplug, affinity" },
	{ "trace", cmd_trace, "one line per event" },
	{ "hotplug", cmd_hotplug, "each CPU offline: its wait and the pinned tasks behind it" },
	{ "export", cmd_export, "counters for Prometheus (node_exporter's textfile collector)" },
	{ "doctor", cmd_doctor, "what this kernel offers and which features work" },
};

#define NR_SUBCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

static void usage(void)
{
	size_t i;

	printf( "Usage: mdstat SUBCOMMAND [OPTION...] [-- COMMAND [ARG...]]\n\n");
	for (i = 0; i < NR_SUBCOMMANDS; i++)
		printf("  %-8s %s\n", subcommands[i].name, subcommands[i].what);
	printf("\nmdstat SUBCOMMAND --help lists its options.\n");
}

int main(int argc, char **argv)
{
	char name[64];
	size_t i;

	argp_err_exit_status = EXIT_USAGE;
	if (argc < 2) {
		fprintf(stderr, "mdstat: no subcommand (mdstat --help lists them)\n");
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage();
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("%s\n", argp_program_version);
		return 0;
	}
	for (i = 0; i < NR_SUBCOMMANDS; i++) {
		if (strcmp(argv[1], subcommands[i].name))
			continue;
		/* argp names the program after argv[0]: "mdstat top". */
		snprintf(name, sizeof(name), "mdstat %s", subcommands[i].name);
		argv[1] = name;
		return subcommands[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "mdstat: unknown subcommand '%s' (mdstat --help lists them)\n",
		argv[1]);
	return EXIT_USAGE;
}
