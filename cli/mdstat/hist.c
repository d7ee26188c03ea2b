// SPDX-License-Identifier: GPL-2.0
/* mdstat hist: log2 histograms of the waits migrate_disable() causes. */
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cli.h"
#include "mdstat.skel.h"

static const struct {
	const char *name;
	const char *title;
	enum mdstat_source source;
} kinds[MDSTAT_NR_HISTS] = {
	[MDSTAT_HIST_STACKED] = { "stacked", "pinned task preempted, until it ran again",
				  SRC_STACKING },
	[MDSTAT_HIST_PUSH] = { "push", "push_cpu_stop() queued, until it moved the task",
			       SRC_PUSH },
	[MDSTAT_HIST_HOTPLUG] = { "hotplug", "CPU going down, waiting for pinned tasks",
				  SRC_HOTPLUG_WAIT },
	[MDSTAT_HIST_AFFINITY] = { "affinity", "affinity change, waiting for a pinned task",
				   SRC_AFFINITY_WAIT },
};

static void print_one(struct session *s, int kind, int cpu,
		      const struct mdstat_hist *h)
{
	char where[24] = "";

	if (s->opts->json) {
		printf("{\"type\":\"hist\",\"kind\":\"%s\",", kinds[kind].name);
		if (cpu == MDSTAT_ALL_CPUS)
			printf("\"cpu\":null,");
		else
			printf("\"cpu\":%d,", cpu);
		json_log2_hist(stdout, h);
		puts("}");
		return;
	}
	if (cpu != MDSTAT_ALL_CPUS)
		snprintf(where, sizeof(where), ", cpu %d", cpu);
	printf("%s (%s)%s: %llu, mean %.3f ms, max %.3f ms\n", kinds[kind].name,
	       kinds[kind].title, where, (unsigned long long)h->count,
	       h->count ? h->total_ns / 1e6 / h->count : 0, h->max_ns / 1e6);
	print_log2_hist(stdout, h);
}

static int print_hists(struct session *s, long n)
{
	int fd = bpf_map__fd(s->skel->maps.hists);
	struct mdstat_hist_key key;
	struct mdstat_hist h;
	int kind, cpu;

	(void)n;
	if (!s->opts->json) {
		time_t now = time(NULL);
		char stamp[16];

		strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
		printf("\n%s\n", stamp);
	}
	for (kind = 0; kind < MDSTAT_NR_HISTS; kind++) {
		const struct source_choice *c = &s->kernel.src[kinds[kind].source];

		if (!c->available) {
			if (!s->opts->json)
				printf("%s: unavailable on this kernel: %s\n",
				       kinds[kind].name, c->why_not);
			continue;
		}
		for (cpu = MDSTAT_ALL_CPUS; cpu < s->opts->nr_cpus; cpu++) {
			if (cpu != MDSTAT_ALL_CPUS && (!s->opts->per_cpu || !cpu_shown(s->opts, cpu)))
				continue;
			key.kind = kind;
			key.cpu = cpu;
			if (bpf_map_lookup_elem(fd, &key, &h)) {
				if (cpu != MDSTAT_ALL_CPUS)
					continue;
				memset(&h, 0, sizeof(h));
			}
			print_one(s, kind, cpu, &h);
		}
	}
	if (s->opts->json)
		printf("{\"type\":\"lost\",\"lost_events\":%llu,\"lost_tasks\":%llu}\n",
		       (unsigned long long)s->skel->bss->lost_events,
		       (unsigned long long)s->skel->bss->lost_tasks);
	else if (s->skel->bss->lost_tasks)
		printf("lost: %llu tasks not followed (tables full)\n",
		       (unsigned long long)s->skel->bss->lost_tasks);
	return 0;
}

static const struct argp_option hist_options[] = {
	{ "per-cpu", 'P', NULL, 0, "A histogram per CPU as well", 0 },
	{ 0 }
};

static error_t parse_hist(int key, char *arg, struct argp_state *state)
{
	struct mdstat_options *o = state->input;

	switch (key) {
	case 'P':
		o->per_cpu = true;
		break;
	default:
		return parse_subcommand(key, arg, state);
	}
	return 0;
}

static const struct argp hist_argp = {
	hist_options, parse_hist, "[-- COMMAND [ARG...]]",
	"Log2 histograms of how long pinned tasks waited for their CPU once "
	"preempted, how long push_cpu_stop() took from queued to moved, and how "
	"long CPU offline and affinity changes waited for pinned tasks.  Printed "
	"at the end (Ctrl-C, -n intervals of -i seconds, or COMMAND's exit), and "
	"every interval when -i is given.",
	common_children,
};

int cmd_hist(int argc, char **argv)
{
	struct mdstat_options o;
	struct session s = {};
	int kind, err;

	options_parse(&hist_argp, argc, argv, &o);
	err = session_open(&s, &o);
	if (err)
		goto out;
	for (kind = 0; kind < MDSTAT_NR_HISTS; kind++)
		s.want[kinds[kind].source] = true;
	if (o.interval_given)
		s.on_interval = print_hists;
	err = session_start(&s);
	if (err)
		goto out;
	if (!o.json)
		fprintf(stderr, "mdstat: tracing; Ctrl-C to end\n");
	err = session_run(&s);
	if (!err && !o.interval_given)
		print_hists(&s, 0);
out:
	session_close(&s);
	return err;
}
