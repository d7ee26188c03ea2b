// SPDX-License-Identifier: GPL-2.0
/*
 * What this kernel offers mdstat: the mdstat series' tracepoints where it
 * has them, else fentry/fexit on the stock functions that do the work.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "cli.h"

const char *const source_names[MDSTAT_NR_SOURCES] = {
	[SRC_STACKING] = "stacking",
	[SRC_PUSH] = "push",
	[SRC_BALANCE_PUSH] = "balance_push",
	[SRC_HOTPLUG_WAIT] = "hotplug_wait",
	[SRC_AFFINITY_WAIT] = "affinity_wait",
	[SRC_OFFLINE] = "offline",
	[SRC_CULPRITS] = "culprits",
	[SRC_RUNQUEUES] = "runqueues",
};

/*
 * Per source: the series' tracepoints (patched) and the stock kernel's
 * functions (fallback); the BPF programs in mdstat.bpf.c for each.
 */
struct source_def {
	const char *patched_needs[3];	/* tracepoints */
	const char *patched_progs[5];
	const char *fallback_needs[4];	/* tracepoints (tp:) or functions */
	const char *fallback_progs[5];
	const char *no_fallback;	/* why there is none */
};

static const struct source_def defs[MDSTAT_NR_SOURCES] = {
	[SRC_STACKING] = {
		.fallback_needs = { "tp:sched_switch" },
		.fallback_progs = { "sched_switch" },
	},
	[SRC_PUSH] = {
		.patched_needs = { "tp:sched_pinned_push_queued", "tp:sched_pinned_push_done" },
		.patched_progs = { "push_queued_tp", "push_done_tp" },
		.fallback_needs = { "fentry:stop_one_cpu_nowait", "fentry:push_cpu_stop",
				    "tp:sched_migrate_task" },
		.fallback_progs = { "stop_one_cpu_nowait_exit",
				    "push_cpu_stop_entry", "push_cpu_stop_exit",
				    "push_migrate_task" },
	},
	[SRC_BALANCE_PUSH] = {
		.fallback_needs = { "fentry:stop_one_cpu_nowait", "fentry:__balance_push_cpu_stop" },
		.fallback_progs = { "stop_one_cpu_nowait_exit" },
	},
	/* The series leaves it to cpuhp_enter/exit of sched:waitempty. */
	[SRC_HOTPLUG_WAIT] = {
		.fallback_needs = { "fentry:sched_cpu_wait_empty" },
		.fallback_progs = { "sched_cpu_wait_empty_entry",
				    "sched_cpu_wait_empty_exit" },
	},
	[SRC_AFFINITY_WAIT] = {
		.patched_needs = { "tp:sched_affinity_wait" },
		.patched_progs = { "affinity_wait_tp" },
		.fallback_needs = { "fentry:affine_move_task" },
		.fallback_progs = { "affine_move_task_entry", "affine_move_task_exit" },
	},
	[SRC_OFFLINE] = {
		.fallback_needs = { "fentry:cpu_device_down" },
		.fallback_progs = { "cpu_device_down_entry", "cpu_device_down_exit" },
	},
	[SRC_CULPRITS] = {
		.patched_needs = { "tp:sched_migrate_disable_tp", "tp:sched_migrate_enable_tp" },
		.patched_progs = { "section_begin", "section_end", "culprit_switch",
				   "culprit_migrate" },
		.no_fallback = "fentry may not attach to migrate_disable() and a kprobe there runs inside it",
	},
	[SRC_RUNQUEUES] = {
		.fallback_needs = { "var:runqueues" },
		.fallback_progs = { "snapshot" },
	},
};

const char *const *source_programs(enum mdstat_source src, bool patched)
{
	return patched ? defs[src].patched_progs : defs[src].fallback_progs;
}

/* Whether BTF has a tracepoint ("tp:"), function ("fentry:") or "var:". */
static bool btf_has(const struct btf *btf, const char *need)
{
	char name[128];

	if (!strncmp(need, "var:", 4))
		return btf__find_by_name_kind(btf, need + 4, BTF_KIND_VAR) > 0;
	if (!strncmp(need, "tp:", 3)) {
		snprintf(name, sizeof(name), "btf_trace_%s", need + 3);
		return btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) > 0;
	}
	return btf__find_by_name_kind(btf, need + strlen("fentry:"),
				      BTF_KIND_FUNC) > 0;
}

static const char *first_missing(const struct btf *btf, const char *const *needs,
				 int n)
{
	int i;

	for (i = 0; i < n && needs[i]; i++)
		if (!btf_has(btf, needs[i]))
			return needs[i];
	return NULL;
}

#define NEEDS(a) (a), (int)(sizeof(a) / sizeof((a)[0]))

/* The kernel counts into struct rq.md_stats only while schedstats are on. */
static bool schedstats_on(void)
{
	FILE *f = fopen("/proc/sys/kernel/sched_schedstats", "r");
	int on = 0;

	if (f) {
		if (fscanf(f, "%d", &on) != 1)
			on = 0;
		fclose(f);
	}
	return on;
}

int kernel_probe(struct kernel_info *k)
{
	const struct source_def *d;
	struct source_choice *c;
	const char *missing;
	int src, id;

	memset(k, 0, sizeof(*k));
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "mdstat: this kernel has no BTF (/sys/kernel/btf/vmlinux: %s); "
			"mdstat needs CONFIG_DEBUG_INFO_BTF=y\n", strerror(errno));
		return EXIT_NO_BTF;
	}
	k->btf = btf__load_vmlinux_btf();
	if (!k->btf) {
		fprintf(stderr, "mdstat: cannot read the kernel's BTF "
			"(/sys/kernel/btf/vmlinux); mdstat needs CONFIG_DEBUG_INFO_BTF=y\n");
		return EXIT_NO_BTF;
	}
	k->patched = btf_has(k->btf, "tp:sched_pinned_push_queued");
	id = btf__find_by_name_kind(k->btf, "migrate_disable_stats", BTF_KIND_STRUCT);
	k->md_stats = id > 0;
	k->schedstats = schedstats_on();

	for (src = 0; src < MDSTAT_NR_SOURCES; src++) {
		d = &defs[src];
		c = &k->src[src];
		if (d->patched_needs[0]) {
			missing = first_missing(k->btf, NEEDS(d->patched_needs));
			if (!missing) {
				c->available = c->patched = true;
				c->via = d->patched_needs[0];
				continue;
			}
			if (d->no_fallback) {
				snprintf(c->why_not, sizeof(c->why_not),
					 "needs %s (the mdstat series); "
					 "no fallback: %s", missing, d->no_fallback);
				continue;
			}
		}
		missing = first_missing(k->btf, NEEDS(d->fallback_needs));
		if (missing) {
			snprintf(c->why_not, sizeof(c->why_not),
				 "%s is not in the kernel's BTF", missing);
			continue;
		}
		c->available = true;
		c->via = d->fallback_needs[0];
	}
	return 0;
}

void kernel_release(struct kernel_info *k)
{
	btf__free(k->btf);
	k->btf = NULL;
}
