// SPDX-License-Identifier: GPL-2.0
/*
 * mdstat hotplug: for each CPU offline, how long it took, how long its
 * hotplug thread waited for pinned tasks, and which tasks it waited for:
 * each one that left its section during the wait, where it had disabled
 * migration, and how long it kept the CPU after its section.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cli.h"
#include "mdstat.skel.h"

/* A task that left its section during the wait, then the CPU. */
struct culprit {
	struct mdstat_event left_section;
	__u64 left_ts;		/* when it switched out; 0 if not seen */
};

struct offline {
	bool active;
	struct mdstat_event begin;
	bool waited;
	struct mdstat_event wait_begin;
	__u64 wait_ns;
	/*
	 * One per section left during the wait, none dropped: on PREEMPT_RT
	 * a task pins itself again and again in the kernel's locks before it
	 * leaves, and its last section is the one that held the wait.
	 */
	struct culprit *culprits;
	int nr_culprits, max_culprits;
	__u64 balance_pushes;
};

struct hotplug {
	struct ksyms *ksyms;
	struct offline *cpus;	/* per possible CPU */
	unsigned long reports;
};

/* A culprit's stack starts at the caller of migrate_disable()/migrate_enable(). */
static bool section_frame(const char *sym)
{
	return !strncmp(sym, "migrate_disable+", 16) || !strncmp(sym, "migrate_enable+", 15);
}

static void stack_lines(struct session *s, const struct mdstat_event *e,
			void (*line)(const char *sym, bool first))
{
	struct hotplug *h = s->ctx;

	stack_print(s, h->ksyms, e->stack_id, e->caller, section_frame, line);
}

/* From its migrate_enable() to switching out; 0 if it was not seen to. */
static __u64 on_cpu_after_ns(const struct culprit *c)
{
	return c->left_ts ? c->left_ts - c->left_section.ts : 0;
}

/* How long a culprit held the wait up: its section, then its time on the CPU. */
static __u64 held_ns(const struct culprit *c)
{
	return c->left_section.held_ns + on_cpu_after_ns(c);
}

/* How much of the wait the culprits explain: up to the last one leaving. */
static __u64 explained_ns(const struct offline *off)
{
	const struct culprit *c;
	__u64 last = 0, t;
	int i;

	for (i = 0; i < off->nr_culprits; i++) {
		c = &off->culprits[i];
		t = (c->left_ts ? c->left_ts : c->left_section.ts) - off->wait_begin.ts;
		if (t > last)
			last = t;
	}
	return last < off->wait_ns ? last : off->wait_ns;
}

/* How many tasks the culprits are. */
static int culprit_tasks(const struct offline *off)
{
	int i, j, tasks = 0;

	for (i = 0; i < off->nr_culprits; i++) {
		for (j = 0; j < i; j++)
			if (off->culprits[j].left_section.pid == off->culprits[i].left_section.pid)
				break;
		tasks += j == i;
	}
	return tasks;
}

static int culprit_add(struct offline *off, const struct mdstat_event *e)
{
	struct culprit *more;
	int max;

	if (off->nr_culprits == off->max_culprits) {
		max = off->max_culprits ? 2 * off->max_culprits : 16;
		more = realloc(off->culprits, max * sizeof(*more));
		if (!more)
			return -ENOMEM;
		off->culprits = more;
		off->max_culprits = max;
	}
	off->culprits[off->nr_culprits++] = (struct culprit){ .left_section = *e };
	return 0;
}

/* Forget an offline, keeping the array for the culprits of the next. */
static void offline_reset(struct offline *off)
{
	struct culprit *culprits = off->culprits;
	int max = off->max_culprits;

	memset(off, 0, sizeof(*off));
	off->culprits = culprits;
	off->max_culprits = max;
}

/* A culprit switched out: the last entry of that task. */
static void culprit_left(struct offline *off, const struct mdstat_event *e)
{
	int i;

	for (i = off->nr_culprits - 1; i >= 0; i--) {
		if (off->culprits[i].left_section.pid == e->pid) {
			off->culprits[i].left_ts = e->ts;
			return;
		}
	}
}

static void report_text(struct session *s, int cpu, const struct offline *off,
			const struct mdstat_event *end)
{
	const struct source_choice *culprits = &s->kernel.src[SRC_CULPRITS];
	const struct mdstat_event *c;
	int i;

	printf("cpu%d offline", cpu);
	if (off->active)
		printf(" by %s/%d: %.3f ms%s", off->begin.comm, off->begin.pid,
		       end->duration_ns / 1e6, end->arg ? " (failed)" : "");
	if (!off->waited) {
		printf(", no wait for pinned tasks\n");
		return;
	}
	printf("%s %.3f ms waiting for pinned tasks (%d pinned, %d running as it began)\n",
	       off->active ? "," : ":", off->wait_ns / 1e6, off->wait_begin.arg,
	       off->wait_begin.arg2);
	if (!culprits->available) {
		printf("  culprits: unavailable on this kernel: %s\n", culprits->why_not);
		return;
	}
	for (i = 0; i < off->nr_culprits; i++) {
		c = &off->culprits[i].left_section;
		printf("  %s/%d held it up %.3f ms", c->comm, c->pid,
		       held_ns(&off->culprits[i]) / 1e6);
		if (c->arg)
			printf(" (its section: %.3f ms", c->duration_ns / 1e6);
		else
			printf(" (pinned before mdstat started");
		printf(", then %.3f ms on the CPU); it %s migration at:\n",
		       on_cpu_after_ns(&off->culprits[i]) / 1e6, c->arg ? "disabled" : "enabled");
		stack_lines(s, c, stack_line_text);
	}
	printf("  explained: %.3f of %.3f ms by %d task(s)\n",
	       explained_ns(off) / 1e6, off->wait_ns / 1e6, culprit_tasks(off));
}

/* ,"name":ns, or null where mdstat does not know it. */
static void json_ns(const char *name, __u64 ns, bool known)
{
	if (known)
		printf(",\"%s\":%llu", name, (unsigned long long)ns);
	else
		printf(",\"%s\":null", name);
}

static void report_json(struct session *s, int cpu, const struct offline *off,
			const struct mdstat_event *end)
{
	const struct mdstat_event *c;
	int i;

	printf("{\"type\":\"offline\",\"cpu\":%d", cpu);
	if (off->active) {
		printf(",\"by_pid\":%d,\"by_comm\":", off->begin.pid);
		json_string(stdout, off->begin.comm);
		printf(",\"duration_ns\":%llu,\"ret\":%d",
		       (unsigned long long)end->duration_ns, end->arg);
	}
	printf(",\"balance_pushes\":%llu", (unsigned long long)off->balance_pushes);
	if (!off->waited) {
		printf(",\"wait_ns\":0}\n");
		return;
	}
	printf(",\"wait_ns\":%llu,\"wait_monotonic_ns\":%llu"
	       ",\"nr_pinned\":%d,\"nr_running\":%d",
	       (unsigned long long)off->wait_ns,
	       (unsigned long long)off->wait_begin.ts, off->wait_begin.arg,
	       off->wait_begin.arg2);
	if (!s->kernel.src[SRC_CULPRITS].available) {
		printf(",\"culprits\":null}\n");
		return;
	}
	printf(",\"explained_ns\":%llu,\"culprits\":[",
	       (unsigned long long)explained_ns(off));
	for (i = 0; i < off->nr_culprits; i++) {
		c = &off->culprits[i].left_section;
		printf("%s{\"pid\":%d,\"tgid\":%d,\"prio\":%d,\"comm\":", i ? "," : "",
		       c->pid, c->tgid, c->prio);
		json_string(stdout, c->comm);
		printf(",\"held_ns\":%llu,\"on_cpu_after_ns\":%llu",
		       (unsigned long long)held_ns(&off->culprits[i]),
		       (unsigned long long)on_cpu_after_ns(&off->culprits[i]));
		json_ns("section_ns", c->duration_ns, c->arg);
		json_ns("left_monotonic_ns", off->culprits[i].left_ts, off->culprits[i].left_ts);
		printf(",\"stack_at\":\"%s\",\"stack\":[", c->arg ? "disable" : "enable");
		stack_lines(s, c, stack_line_json);
		printf("]}");
	}
	printf("]}\n");
}

static void report(struct session *s, int cpu, const struct mdstat_event *end)
{
	struct hotplug *h = s->ctx;
	struct offline *off = &h->cpus[cpu];

	if (s->opts->json)
		report_json(s, cpu, off, end);
	else
		report_text(s, cpu, off, end);
	h->reports++;
	offline_reset(off);
}

static int hotplug_event(struct session *s, const struct mdstat_event *e)
{
	struct hotplug *h = s->ctx;
	struct offline *off;

	if (e->cpu < 0 || e->cpu >= s->opts->nr_cpus)
		return 0;
	off = &h->cpus[e->cpu];
	switch (e->type) {
	case MDSTAT_EV_OFFLINE_BEGIN:
		offline_reset(off);
		off->active = true;
		off->begin = *e;
		break;
	case MDSTAT_EV_BALANCE_PUSH:
		off->balance_pushes++;
		break;
	case MDSTAT_EV_HOTPLUG_WAIT_BEGIN:
		off->waited = true;
		off->wait_begin = *e;
		break;
	case MDSTAT_EV_CULPRIT:
		return culprit_add(off, e);
	case MDSTAT_EV_CULPRIT_LEFT:
		culprit_left(off, e);
		break;
	case MDSTAT_EV_HOTPLUG_WAIT_END:
		off->wait_ns = e->duration_ns;
		/* An offline mdstat did not see begin: report the wait alone. */
		if (!off->active)
			report(s, e->cpu, e);
		break;
	case MDSTAT_EV_OFFLINE_END:
		if (off->active)
			report(s, e->cpu, e);
		break;
	}
	return 0;
}

static const struct argp hotplug_argp = {
	NULL, parse_subcommand, "[-- COMMAND [ARG...]]",
	"Report each CPU offline while it runs (or while COMMAND runs): the "
	"time it took, the time its hotplug thread waited for pinned tasks "
	"(rq->nr_pinned to reach 0), and each pinned task that held the wait "
	"up: for how long, and the kernel stack where it disabled migration.  "
	"-p keeps the culprits of one process.",
	common_children,
};

int cmd_hotplug(int argc, char **argv)
{
	struct mdstat_options o;
	struct session s = {};
	struct hotplug *h;
	int cpu, err;

	options_parse(&hotplug_argp, argc, argv, &o);
	err = EXIT_RUNTIME;
	h = calloc(1, sizeof(*h));
	if (!h || !(h->cpus = cpus_alloc(&o, sizeof(*h->cpus))))
		goto out;
	err = session_open(&s, &o);
	if (err)
		goto out;
	s.want[SRC_OFFLINE] = s.want[SRC_HOTPLUG_WAIT] = true;
	s.want[SRC_CULPRITS] = s.want[SRC_BALANCE_PUSH] = true;
	session_note_missing(&s);
	if (!s.kernel.src[SRC_HOTPLUG_WAIT].available) {
		err = EXIT_NO_SOURCE;
		goto out;
	}
	s.emit_events = true;
	s.on_event = hotplug_event;
	s.ctx = h;
	h->ksyms = ksyms_load();
	err = session_start(&s);
	if (err)
		goto out;
	if (!o.json && !o.command)
		fprintf(stderr, "mdstat: watching CPU offline; Ctrl-C to end\n");
	err = session_run(&s);
	if (o.json)
		printf("{\"type\":\"summary\",\"offlines\":%lu,\"lost_events\":%llu}\n",
		       h->reports, (unsigned long long)s.skel->bss->lost_events);
	else
		printf("%lu offline(s) reported, %llu events lost\n", h->reports,
		       (unsigned long long)s.skel->bss->lost_events);
out:
	if (h) {
		ksyms_free(h->ksyms);
		for (cpu = 0; h->cpus && cpu < o.nr_cpus; cpu++)
			free(h->cpus[cpu].culprits);
		free(h->cpus);
	}
	session_close(&s);
	free(h);
	return err;
}
