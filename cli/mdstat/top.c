// SPDX-License-Identifier: GPL-2.0
/*
 * mdstat top: every interval, each CPU's runqueue (through BTF) with the
 * interval's stacking and pushes, and the pinned tasks that waited longest.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cli.h"
#include "mdstat.skel.h"

#define MAX_WAITERS	10
#define COLOUR_STACKED	"\033[1;33m"
#define COLOUR_WAIT	"\033[1;31m"
#define COLOUR_OFF	"\033[0m"

struct waiter {
	__s32 pid;
	bool waiting;		/* still preempted as the interval ended */
	struct mdstat_waiter w;
};

struct top {
	bool ansi;
	struct ksyms *ksyms;
	long intervals;
	/* per CPU: the counters as this interval ends, and as the last one did */
	struct mdstat_counters *cur;
	struct mdstat_counters *prev;
	struct mdstat_rq *kernel_first;	/* the runqueues as it began */
	struct waiter waiters[MAX_WAITERS];
	int nr_waiters;
	__u64 last_ns;
	__u64 longest_ns;
	struct waiter longest;
};

/* Keep the MAX_WAITERS longest single waits, longest first. */
static void waiter_add(struct top *t, __s32 pid, const struct mdstat_waiter *w,
		       bool waiting)
{
	int i = t->nr_waiters;

	if (i == MAX_WAITERS) {
		if (w->max_ns <= t->waiters[i - 1].w.max_ns)
			return;
		i--;
	} else {
		t->nr_waiters++;
	}
	for (; i > 0 && t->waiters[i - 1].w.max_ns < w->max_ns; i--)
		t->waiters[i] = t->waiters[i - 1];
	t->waiters[i].pid = pid;
	t->waiters[i].waiting = waiting;
	t->waiters[i].w = *w;
}

/* The interval's ended waits (taken out of the map) and those going on. */
static void collect_waiters(struct session *s, struct top *t, __u64 now)
{
	int fd = bpf_map__fd(s->skel->maps.waiters);
	struct mdstat_stacked stacked;
	struct mdstat_waiter w;
	__s32 key, next, *prev = NULL;

	t->nr_waiters = 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (bpf_map_lookup_and_delete_elem(fd, &next, &w))
			break;
		waiter_add(t, next, &w, false);
	}
	fd = bpf_map__fd(s->skel->maps.stacked);
	for (prev = NULL; !bpf_map_get_next_key(fd, prev, &next); prev = &key) {
		key = next;
		if (bpf_map_lookup_elem(fd, &key, &stacked))
			continue;
		memset(&w, 0, sizeof(w));
		w.task = stacked;
		w.count = 1;
		w.total_ns = w.max_ns = now > stacked.since ? now - stacked.since : 0;
		waiter_add(t, key, &w, true);
	}
	if (t->nr_waiters && t->waiters[0].w.max_ns > t->longest_ns) {
		t->longest_ns = t->waiters[0].w.max_ns;
		t->longest = t->waiters[0];
	}
}

static __u64 delta(struct top *t, const struct mdstat_counters *c, int cpu, int counter)
{
	return c[cpu].c[counter] - t->prev[cpu].c[counter];
}

static void print_rate(struct session *s, __u64 n, double secs, enum mdstat_source src)
{
	if (!s->kernel.src[src].available)
		printf(" %7s", "-");
	else
		printf(" %7.1f", n / secs);
}

/*
 * A waiter's stack starts where it was preempted: after the interrupt entry
 * or the preempt_schedule*() that switched it out, and the scheduler.
 */
static bool preemption_frame(const char *sym)
{
	return !strncmp(sym, "asm_", 4) || !strncmp(sym, "preempt_schedule", 16) ||
	       !strncmp(sym, "__schedule+", 11) || !strncmp(sym, "schedule+", 9);
}

static void print_text(struct session *s, struct top *t,
		       const struct mdstat_counters *c, double secs, __u64 now)
{
	const struct mdstat_rq *rq;
	char running[40], prio[24], when[32];
	time_t wall = time(NULL);
	__u64 waited;
	int cpu, i;

	if (t->ansi)
		fputs("\033[H\033[2J", stdout);
	strftime(when, sizeof(when), "%H:%M:%S", localtime(&wall));
	printf("%s  mdstat top, %.1fs interval, kernel %s%s\n", when, secs,
	       s->kernel.patched ? "with the mdstat series" : "without the mdstat series",
	       s->kernel.patched ? "" : " (fallback probes)");
	printf("%3s %-22s %6s %6s %7s %7s %4s %7s %7s %7s %7s %s\n", "CPU",
	       "RUNNING", "NR_RUN", "NR_PIN", "STACKED", "PREEM/s", "PUSH",
	       "QUEUE/s", "MOVED/s", "DEFER/s", "BALPU/s", "HOTPLUG WAIT");
	for (cpu = 0; cpu < s->opts->nr_cpus; cpu++) {
		if (!cpu_shown(s->opts, cpu))
			continue;
		rq = &s->cpus[cpu].rq;
		snprintf(running, sizeof(running), "%s/%d", rq->curr_comm, rq->curr_pid);
		if (t->ansi && c[cpu].c[MDSTAT_CNT_STACKED_NOW])
			fputs(COLOUR_STACKED, stdout);
		printf("%3d %-22s %6u %6u %7lld", cpu, rq->online ? running : "(offline)",
		       rq->nr_running, rq->nr_pinned,
		       (long long)c[cpu].c[MDSTAT_CNT_STACKED_NOW]);
		print_rate(s, delta(t, c, cpu, MDSTAT_CNT_STACKED), secs, SRC_STACKING);
		printf(" %4u", rq->push_busy);
		print_rate(s, delta(t, c, cpu, MDSTAT_CNT_PUSH_QUEUED), secs, SRC_PUSH);
		print_rate(s, delta(t, c, cpu, MDSTAT_CNT_PUSH_MOVED), secs, SRC_PUSH);
		if (s->kernel.src[SRC_PUSH].patched)
			print_rate(s, delta(t, c, cpu, MDSTAT_CNT_PUSH_DEFERRED), secs, SRC_PUSH);
		else
			printf(" %7s", "-");
		print_rate(s, delta(t, c, cpu, MDSTAT_CNT_BALANCE_PUSH), secs, SRC_BALANCE_PUSH);
		if (c[cpu].hotplug_wait_since) {
			waited = now - c[cpu].hotplug_wait_since;
			printf(" %s%.1f ms for %u pinned%s", t->ansi ? COLOUR_WAIT : "",
			       waited / 1e6, c[cpu].hotplug_wait_pinned,
			       t->ansi ? COLOUR_OFF : "");
		} else {
			printf(" -");
		}
		if (t->ansi && c[cpu].c[MDSTAT_CNT_STACKED_NOW])
			fputs(COLOUR_OFF, stdout);
		putchar('\n');
	}
	if (!t->nr_waiters)
		return;
	printf("\nPINNED TASKS THAT WAITED LONGEST FOR THEIR CPU\n");
	printf("%7s %-16s %-12s %3s %5s %5s %10s %10s\n", "PID", "COMM",
	       "POLICY", "CPU", "DEPTH", "WAITS", "TOTAL_MS", "MAX_MS");
	for (i = 0; i < t->nr_waiters; i++) {
		const struct waiter *w = &t->waiters[i];

		format_prio(prio, sizeof(prio), w->w.task.policy, w->w.task.prio);
		printf("%7d %-16s %-12s %3d %5u %5llu %10.3f %10.3f%s\n", w->pid,
		       w->w.task.comm, prio, w->w.task.cpu, w->w.task.depth,
		       (unsigned long long)w->w.count, w->w.total_ns / 1e6,
		       w->w.max_ns / 1e6, w->waiting ? " (waiting)" : "");
	}
	printf("where %s/%d was preempted:\n", t->waiters[0].w.task.comm, t->waiters[0].pid);
	stack_print(s, t->ksyms, t->waiters[0].w.task.stack_id, 0, preemption_frame,
		    stack_line_text);
}

static void json_waiter(struct session *s, const struct top *t, const struct waiter *w)
{
	printf("{\"pid\":%d,\"tgid\":%d,\"comm\":", w->pid, w->w.task.tgid);
	json_string(stdout, w->w.task.comm);
	printf(",\"policy\":\"%s\",\"prio\":%d,\"cpu\":%d,\"depth\":%u,"
	       "\"waits\":%llu,\"total_ns\":%llu,\"max_ns\":%llu,\"waiting\":%s",
	       policy_name(w->w.task.policy), w->w.task.prio, w->w.task.cpu,
	       w->w.task.depth, (unsigned long long)w->w.count,
	       (unsigned long long)w->w.total_ns, (unsigned long long)w->w.max_ns,
	       w->waiting ? "true" : "false");
	printf(",\"stack\":[");
	stack_print(s, t->ksyms, w->w.task.stack_id, 0, preemption_frame, stack_line_json);
	printf("]}");
}

/* The counters of cpu since base, or since the start without one. */
static void json_counters(struct session *s, const struct mdstat_counters *c,
			  const struct mdstat_counters *base, int cpu)
{
	const struct counter_def *d;
	__u64 since;

	for (d = counter_defs; d < counter_defs + nr_counter_defs; d++) {
		if (!d->json)
			continue;
		since = base ? base[cpu].c[d->counter] : 0;
		if (!counter_available(s, d))
			printf(",\"%s\":null", d->json);
		else
			printf(",\"%s\":%llu", d->json,
			       (unsigned long long)(c[cpu].c[d->counter] - since));
	}
}

static void print_json(struct session *s, struct top *t,
		       const struct mdstat_counters *c, double secs, __u64 now)
{
	const struct mdstat_rq *rq;
	bool first = true;
	int cpu, i;

	printf("{\"type\":\"top\",\"time_ns\":%llu,\"interval_s\":%.3f,\"cpus\":[",
	       (unsigned long long)(now - s->start_ns), secs);
	for (cpu = 0; cpu < s->opts->nr_cpus; cpu++) {
		if (!cpu_shown(s->opts, cpu))
			continue;
		rq = &s->cpus[cpu].rq;
		printf("%s{\"cpu\":%d,\"online\":%s,\"running\":{\"pid\":%d,\"prio\":%d,\"comm\":",
		       first ? "" : ",", cpu, rq->online ? "true" : "false",
		       rq->curr_pid, rq->curr_prio);
		json_string(stdout, rq->curr_comm);
		printf("},\"nr_running\":%u,\"nr_pinned\":%u,\"stacked\":%lld,\"push_busy\":%u",
		       rq->nr_running, rq->nr_pinned,
		       (long long)c[cpu].c[MDSTAT_CNT_STACKED_NOW], rq->push_busy);
		json_counters(s, c, t->prev, cpu);
		if (c[cpu].hotplug_wait_since)
			printf(",\"hotplug_wait_ns\":%llu,\"hotplug_wait_pinned\":%u}",
			       (unsigned long long)(now - c[cpu].hotplug_wait_since),
			       c[cpu].hotplug_wait_pinned);
		else
			printf(",\"hotplug_wait_ns\":null}");
		first = false;
	}
	printf("],\"waiters\":[");
	for (i = 0; i < t->nr_waiters; i++) {
		printf(i ? "," : "");
		json_waiter(s, t, &t->waiters[i]);
	}
	printf("],\"lost_events\":%llu,\"lost_tasks\":%llu}\n",
	       (unsigned long long)s->skel->bss->lost_events,
	       (unsigned long long)s->skel->bss->lost_tasks);
}

static int top_interval(struct session *s, long n)
{
	struct top *t = s->ctx;
	struct mdstat_counters *c = t->cur;
	__u64 now = now_ns();
	double secs = (now - t->last_ns) / 1e9;

	(void)n;
	/* One copy: what this interval shows is what the next one starts from. */
	session_counters(s, t->cur);
	if (session_snapshot(s)) {
		fprintf(stderr, "mdstat: cannot read the runqueues\n");
		return -1;
	}
	collect_waiters(s, t, now);
	if (s->opts->json)
		print_json(s, t, c, secs, now);
	else
		print_text(s, t, c, secs, now);
	memcpy(t->prev, c, sizeof(*t->prev) * s->opts->nr_cpus);
	t->last_ns = now;
	t->intervals++;
	return 0;
}

/* The kernel's own counters, since the start. */
static void json_md_stats(const struct mdstat_md_stats *now,
			  const struct mdstat_md_stats *first)
{
#define MD(f) printf(",\"" #f "\":%llu", (unsigned long long)(now->f - first->f))
	printf(",\"kernel\":{\"schedstats\":true");
	MD(pinned_preempt);
	MD(push_moved);
	MD(push_deferred);
	MD(push_migrated);
	MD(push_dequeued);
	MD(push_no_target);
	MD(hotplug_pinned);
	MD(affinity_wait);
	putchar('}');
#undef MD
}

/*
 * Totals since the start, from the counters the last interval showed; the
 * kernel's own counters alongside where it counts them (schedstats on).
 */
static void print_summary(struct session *s, struct top *t)
{
	const struct mdstat_counters *c = t->cur;
	const struct mdstat_rq *k0 = t->kernel_first, *k;
	double secs = (now_ns() - s->start_ns) / 1e9;
	bool first = true;
	int cpu;

	session_snapshot(s);
	if (s->opts->json) {
		printf("{\"type\":\"summary\",\"duration_s\":%.3f,\"cpus\":[", secs);
		for (cpu = 0; cpu < s->opts->nr_cpus; cpu++) {
			if (!cpu_shown(s->opts, cpu))
				continue;
			printf("%s{\"cpu\":%d", first ? "" : ",", cpu);
			json_counters(s, c, NULL, cpu);
			k = &s->cpus[cpu].rq;
			if (k->has_md_stats && s->kernel.schedstats)
				json_md_stats(&k->md, &k0[cpu].md);
			putchar('}');
			first = false;
		}
		printf("],\"longest_wait_ns\":%llu,\"lost_events\":%llu,\"lost_tasks\":%llu}\n",
		       (unsigned long long)t->longest_ns,
		       (unsigned long long)s->skel->bss->lost_events,
		       (unsigned long long)s->skel->bss->lost_tasks);
		return;
	}
	printf("\nSUMMARY over %.1f s\n%3s %9s %9s %9s %9s %9s\n", secs, "CPU",
	       "PREEMPTED", "QUEUED", "MOVED", "BALPUSH", "HOTPLUG");
	for (cpu = 0; cpu < s->opts->nr_cpus; cpu++) {
		if (!cpu_shown(s->opts, cpu))
			continue;
		printf("%3d %9llu %9llu %9llu %9llu %9llu\n", cpu,
		       (unsigned long long)(c[cpu].c[MDSTAT_CNT_STACKED]),
		       (unsigned long long)(c[cpu].c[MDSTAT_CNT_PUSH_QUEUED]),
		       (unsigned long long)(c[cpu].c[MDSTAT_CNT_PUSH_MOVED]),
		       (unsigned long long)(c[cpu].c[MDSTAT_CNT_BALANCE_PUSH]),
		       (unsigned long long)(c[cpu].c[MDSTAT_CNT_HOTPLUG_WAIT]));
	}
	if (t->longest_ns)
		printf("longest wait: %s/%d on cpu%d, %.3f ms\n", t->longest.w.task.comm,
		       t->longest.pid, t->longest.w.task.cpu, t->longest_ns / 1e6);
	printf("lost: %llu events, %llu tasks\n",
	       (unsigned long long)s->skel->bss->lost_events,
	       (unsigned long long)s->skel->bss->lost_tasks);
}

static const struct argp top_argp = {
	NULL, parse_subcommand, "[-- COMMAND [ARG...]]",
	"Every interval, a line per CPU: the running task, nr_running, nr_pinned, "
	"pinned tasks stacked (preempted, waiting for that CPU), preemptions of "
	"pinned tasks, push_busy, push_cpu_stop() queued, moved and deferred, "
	"tasks pushed off a CPU going down, and a hotplug wait in progress; then "
	"the pinned tasks that waited longest.  Rates are per second.  A summary "
	"ends it.",
	common_children,
};

int cmd_top(int argc, char **argv)
{
	struct mdstat_options o;
	struct session s = {};
	struct top *t;
	int err, cpu;

	options_parse(&top_argp, argc, argv, &o);
	err = EXIT_RUNTIME;
	t = calloc(1, sizeof(*t));
	if (!t || !(t->cur = cpus_alloc(&o, sizeof(*t->cur))) ||
	    !(t->prev = cpus_alloc(&o, sizeof(*t->prev))) ||
	    !(t->kernel_first = cpus_alloc(&o, sizeof(*t->kernel_first))))
		goto out;
	err = session_open(&s, &o);
	if (err)
		goto out;
	s.want[SRC_STACKING] = s.want[SRC_PUSH] = s.want[SRC_BALANCE_PUSH] = true;
	s.want[SRC_HOTPLUG_WAIT] = s.want[SRC_RUNQUEUES] = true;
	s.on_interval = top_interval;
	s.ctx = t;
	t->ansi = !o.batch && !o.json && isatty(STDOUT_FILENO);
	t->ksyms = ksyms_load();
	session_note_missing(&s);
	if (!s.kernel.src[SRC_RUNQUEUES].available) {
		err = EXIT_NO_SOURCE;
		goto out;
	}
	err = session_start(&s);
	if (err)
		goto out;
	if (session_snapshot(&s)) {
		fprintf(stderr, "mdstat: cannot read the runqueues\n");
		err = EXIT_RUNTIME;
		goto out;
	}
	for (cpu = 0; cpu < o.nr_cpus; cpu++)
		t->kernel_first[cpu] = s.cpus[cpu].rq;
	t->last_ns = now_ns();
	err = session_run(&s);
	if (err && err != EXIT_COMMAND)
		goto out;
	/*
	 * Unless -n ended it, the run ended inside an interval: show it, so
	 * that the intervals add up to the summary.
	 */
	if (!o.count || t->intervals < o.count)
		top_interval(&s, t->intervals + 1);
	print_summary(&s, t);
out:
	session_close(&s);
	if (t) {
		free(t->cur);
		free(t->prev);
		free(t->kernel_first);
		ksyms_free(t->ksyms);
	}
	free(t);
	return err;
}
