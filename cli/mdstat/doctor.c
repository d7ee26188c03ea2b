// SPDX-License-Identifier: GPL-2.0
/*
 * mdstat doctor: what this kernel offers (the mdstat series' tracepoints and
 * counters, BTF, fentry, kprobes), each source loaded and attached for real,
 * and which mdstat features work, and why not where they don't.
 */
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "cli.h"

static void check(const struct mdstat_options *o, const char *name, bool ok,
		  const char *detail)
{
	if (o->json) {
		printf("{\"type\":\"check\",\"name\":\"%s\",\"ok\":%s,\"detail\":",
		       name, ok ? "true" : "false");
		json_string(stdout, detail);
		puts("}");
	} else {
		printf("  %-4s %-22s %s\n", ok ? "yes" : "no", name, detail);
	}
}

static const char *sched_feature(void)
{
	static char line[4096];
	FILE *f = fopen("/sys/kernel/debug/sched/features", "r");
	const char *found = "not found in /sys/kernel/debug/sched/features";

	if (!f)
		return "unknown: /sys/kernel/debug/sched/features is not readable (debugfs)";
	if (fgets(line, sizeof(line), f)) {
		if (strstr(line, "NO_PINNED_PUSH"))
			found = "NO_PINNED_PUSH: pinned tasks are not rescued by a push";
		else if (strstr(line, "PINNED_PUSH"))
			found = "PINNED_PUSH (on)";
	}
	fclose(f);
	return found;
}

/* Load and attach one source's programs alone. */
static bool source_works(const struct mdstat_options *o, int src, char *why,
			 size_t size)
{
	struct session s = { .quiet = true };
	int err;

	err = session_open(&s, o);
	if (!err) {
		s.want[src] = true;
		s.emit_events = src != SRC_RUNQUEUES;
		err = session_start(&s);
		if (!err && src == SRC_RUNQUEUES && session_snapshot(&s)) {
			snprintf(s.error, sizeof(s.error), "BPF_PROG_TEST_RUN failed");
			err = EXIT_RUNTIME;
		}
	}
	snprintf(why, size, "%s", err ? s.error : "");
	session_close(&s);
	return !err;
}

struct feature {
	const char *name;
	enum mdstat_source needs;
	const char *what;
};

static const struct feature features[] = {
	{ "top", SRC_RUNQUEUES, "per-CPU runqueue table" },
	{ "top/stacking", SRC_STACKING, "stacked pinned tasks and their waits" },
	{ "top/pushes", SRC_PUSH, "push_cpu_stop() rates" },
	{ "top/balance_push", SRC_BALANCE_PUSH, "tasks pushed off a CPU going down" },
	{ "hist/stacked", SRC_STACKING, "waits of preempted pinned tasks" },
	{ "hist/push", SRC_PUSH, "push latency, queued to moved" },
	{ "hist/hotplug", SRC_HOTPLUG_WAIT, "hotplug waits" },
	{ "hist/affinity", SRC_AFFINITY_WAIT, "affinity waits" },
	{ "hotplug", SRC_OFFLINE, "CPU offline time" },
	{ "hotplug/wait", SRC_HOTPLUG_WAIT, "its wait for pinned tasks" },
	{ "hotplug/culprits", SRC_CULPRITS, "who held the wait up, and where" },
};

static const struct argp doctor_argp = {
	NULL, parse_subcommand, NULL,
	"Check what this kernel offers mdstat, load and attach each source of "
	"numbers, and tell which features work and why not where they don't.  "
	"Exits 0 when everything the kernel offers works.",
	common_children,
};

int cmd_doctor(int argc, char **argv)
{
	struct mdstat_options o;
	struct kernel_info k;
	bool works[MDSTAT_NR_SOURCES] = {};
	char detail[320], why[256];
	struct utsname u;
	size_t i;
	int src, err, status = 0;

	options_parse(&doctor_argp, argc, argv, &o);
	uname(&u);
	if (!o.json)
		printf("kernel %s\n\nsources\n", u.release);
	if (!session_privileged()) {
		check(&o, "privileges", false, "needs root, or CAP_BPF and CAP_PERFMON");
		return EXIT_PRIVILEGE;
	}
	err = kernel_probe(&k);
	if (err) {
		check(&o, "btf", false, "no /sys/kernel/btf/vmlinux: build with CONFIG_DEBUG_INFO_BTF=y");
		return err;
	}
	check(&o, "btf", true, "/sys/kernel/btf/vmlinux");
	check(&o, "mdstat-series", k.patched, k.patched ?
	      "trace events sched_pinned_preempt, sched_pinned_push_*, sched_hotplug_pinned, sched_affinity_wait" :
	      "not applied: fallback probes on stock functions");
	check(&o, "md_stats", k.md_stats && k.schedstats,
	      !k.md_stats ? "no struct rq.md_stats: counts come from mdstat's own probes" :
	      k.schedstats ? "struct rq.md_stats counters, read through BTF" :
	      "struct rq.md_stats counts only while schedstats are on (sysctl kernel.sched_schedstats=1)");
	if (k.patched)
		check(&o, "sched-feature", true, sched_feature());
	check(&o, "kprobes", !access("/sys/bus/event_source/devices/kprobe", F_OK),
	      "/sys/bus/event_source/devices/kprobe (bpftrace kprobe: one-liners)");
	for (src = 0; src < MDSTAT_NR_SOURCES; src++) {
		const struct source_choice *c = &k.src[src];

		if (!c->available) {
			snprintf(detail, sizeof(detail), "unavailable: %s", c->why_not);
		} else {
			works[src] = source_works(&o, src, why, sizeof(why));
			snprintf(detail, sizeof(detail), "%s via %s%s%s",
				 works[src] ? "works" : "fails", c->via,
				 works[src] ? "" : ": ", why);
			if (!works[src])
				status = EXIT_RUNTIME;
		}
		check(&o, source_names[src], works[src], detail);
	}
	if (!o.json)
		printf("\nfeatures\n");
	for (i = 0; i < sizeof(features) / sizeof(features[0]); i++) {
		src = features[i].needs;
		snprintf(detail, sizeof(detail), "%s%s%s", features[i].what,
			 works[src] ? "" : ": no ",
			 works[src] ? "" : source_names[src]);
		check(&o, features[i].name, works[src], detail);
	}
	if (!k.src[SRC_PUSH].patched && works[SRC_PUSH])
		check(&o, "push-detail", false,
		      "without the series: push sites, the pinned task and deferred/migrated/dequeued/no_target are unknown (not_moved)");
	kernel_release(&k);
	return status;
}
