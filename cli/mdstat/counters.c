// SPDX-License-Identifier: GPL-2.0
/*
 * mdstat's per-CPU counters (struct mdstat_counters) by name: the fields
 * of mdstat top -j and the metrics of mdstat export.  Prometheus names
 * follow its conventions: base units (seconds), _total for counters.
 */
#include "cli.h"

const struct counter_def counter_defs[] = {
	{ "preempted", MDSTAT_CNT_STACKED, SRC_STACKING, ON_ANY_KERNEL,
	  "mdstat_pinned_preemptions_total", NULL, false, false,
	  "Migration-disabled tasks preempted on the CPU." },
	{ NULL, MDSTAT_CNT_STACKED_NOW, SRC_STACKING, ON_ANY_KERNEL,
	  "mdstat_stacked_tasks", NULL, false, true,
	  "Migration-disabled tasks preempted on the CPU and not running again yet." },
	{ "stacked_wait_total_ns", MDSTAT_CNT_STACKED_WAIT_NS, SRC_STACKING, ON_ANY_KERNEL,
	  "mdstat_pinned_wait_seconds_total", NULL, true, false,
	  "Time preempted migration-disabled tasks waited for the CPU, counted as each ran again." },
	{ "push_queued", MDSTAT_CNT_PUSH_QUEUED, SRC_PUSH, ON_ANY_KERNEL,
	  "mdstat_pushes_queued_total", NULL, false, false,
	  "push_cpu_stop() queued to move a task off the CPU for a pinned one." },
	{ "push_moved", MDSTAT_CNT_PUSH_MOVED, SRC_PUSH, ON_ANY_KERNEL,
	  "mdstat_pushes_total", "moved", false, false,
	  "push_cpu_stop() run on the CPU, by what it did." },
	{ "push_deferred", MDSTAT_CNT_PUSH_DEFERRED, SRC_PUSH, WITH_SERIES,
	  "mdstat_pushes_total", "deferred", false, false, NULL },
	{ "push_migrated", MDSTAT_CNT_PUSH_MIGRATED, SRC_PUSH, WITH_SERIES,
	  "mdstat_pushes_total", "migrated", false, false, NULL },
	{ "push_dequeued", MDSTAT_CNT_PUSH_DEQUEUED, SRC_PUSH, WITH_SERIES,
	  "mdstat_pushes_total", "dequeued", false, false, NULL },
	{ "push_no_target", MDSTAT_CNT_PUSH_NO_TARGET, SRC_PUSH, WITH_SERIES,
	  "mdstat_pushes_total", "no_target", false, false, NULL },
	{ "push_not_moved", MDSTAT_CNT_PUSH_NOT_MOVED, SRC_PUSH, WITHOUT_SERIES,
	  "mdstat_pushes_total", "not_moved", false, false, NULL },
	{ "balance_push", MDSTAT_CNT_BALANCE_PUSH, SRC_BALANCE_PUSH, ON_ANY_KERNEL,
	  "mdstat_balance_pushes_total", NULL, false, false,
	  "Tasks pushed off the CPU as it went down." },
	{ "hotplug_wait", MDSTAT_CNT_HOTPLUG_WAIT, SRC_HOTPLUG_WAIT, ON_ANY_KERNEL,
	  "mdstat_hotplug_waits_total", NULL, false, false,
	  "Offlines of the CPU that waited for migration-disabled tasks." },
	{ "hotplug_wait_total_ns", MDSTAT_CNT_HOTPLUG_WAIT_NS, SRC_HOTPLUG_WAIT, ON_ANY_KERNEL,
	  "mdstat_hotplug_wait_seconds_total", NULL, true, false,
	  "Time offlines of the CPU waited for migration-disabled tasks." },
	{ "affinity_wait", MDSTAT_CNT_AFFINITY_WAIT, SRC_AFFINITY_WAIT, ON_ANY_KERNEL,
	  "mdstat_affinity_waits_total", NULL, false, false,
	  "Affinity changes that waited for a migration-disabled task on the CPU." },
	{ "affinity_wait_total_ns", MDSTAT_CNT_AFFINITY_WAIT_NS, SRC_AFFINITY_WAIT, ON_ANY_KERNEL,
	  "mdstat_affinity_wait_seconds_total", NULL, true, false,
	  "Time affinity changes waited for a migration-disabled task on the CPU." },
};

const size_t nr_counter_defs = sizeof(counter_defs) / sizeof(counter_defs[0]);

/* Whether this kernel's source for the counter can count it. */
bool counter_available(const struct session *s, const struct counter_def *d)
{
	const struct source_choice *c = &s->kernel.src[d->source];

	if (!c->available)
		return false;
	return d->kernel == ON_ANY_KERNEL ||
	       (d->kernel == WITH_SERIES) == c->patched;
}
