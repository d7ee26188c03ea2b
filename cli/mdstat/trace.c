// SPDX-License-Identifier: GPL-2.0
/* mdstat trace: one line (or JSON object) per event, as it happens. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "mdstat.skel.h"

static const struct {
	const char *name;
	enum mdstat_source source;
} event_defs[MDSTAT_NR_EVENT_TYPES] = {
	[MDSTAT_EV_PINNED_PREEMPT] = { "pinned_preempt", SRC_STACKING },
	[MDSTAT_EV_PINNED_RESUME] = { "pinned_resume", SRC_STACKING },
	[MDSTAT_EV_PUSH_QUEUED] = { "push_queued", SRC_PUSH },
	[MDSTAT_EV_PUSH_DONE] = { "push_done", SRC_PUSH },
	[MDSTAT_EV_BALANCE_PUSH] = { "balance_push", SRC_BALANCE_PUSH },
	[MDSTAT_EV_HOTPLUG_WAIT_BEGIN] = { "hotplug_wait_begin", SRC_HOTPLUG_WAIT },
	[MDSTAT_EV_HOTPLUG_WAIT_END] = { "hotplug_wait_end", SRC_HOTPLUG_WAIT },
	[MDSTAT_EV_AFFINITY_WAIT_BEGIN] = { "affinity_wait_begin", SRC_AFFINITY_WAIT },
	[MDSTAT_EV_AFFINITY_WAIT_END] = { "affinity_wait_end", SRC_AFFINITY_WAIT },
	[MDSTAT_EV_OFFLINE_BEGIN] = { "offline_begin", SRC_OFFLINE },
	[MDSTAT_EV_OFFLINE_END] = { "offline_end", SRC_OFFLINE },
	[MDSTAT_EV_CULPRIT] = { "culprit", SRC_CULPRITS },
	[MDSTAT_EV_CULPRIT_LEFT] = { "culprit_left", SRC_CULPRITS },
};

/* The series' enum pinned_push_site, in order. */
static const char *const push_sites[] = {
	"rt_push_ipi", "rt_pull", "dl_pull", "migrate_enable",
};

static const char *const push_results[] = {
	[MDSTAT_PUSH_MOVED] = "moved",
	[MDSTAT_PUSH_DEFERRED] = "deferred",
	[MDSTAT_PUSH_MIGRATED] = "migrated",
	[MDSTAT_PUSH_DEQUEUED] = "dequeued",
	[MDSTAT_PUSH_NO_TARGET] = "no_target",
	[MDSTAT_PUSH_NOT_MOVED] = "not_moved",
};

static const char *push_site(int site)
{
	return site >= 0 && site < 4 ? push_sites[site] : "unknown";
}

static const char *push_result(int result)
{
	return result >= 0 && result <= MDSTAT_PUSH_NOT_MOVED ? push_results[result] : "?";
}

struct trace {
	struct ksyms *ksyms;
	unsigned long events;
};

static void print_text(struct session *s, const struct mdstat_event *e)
{
	struct trace *t = s->ctx;
	char task[40], other[40], when[32] = "", sym[128];

	/* affinity_wait_end knows the target by its pid only. */
	snprintf(task, sizeof(task), "%s/%d", e->comm[0] ? e->comm : "?", e->pid);
	snprintf(other, sizeof(other), "%s/%d", e->other_comm, e->other_pid);
	printf("%12.6f %3d %-19s %-22s ", (__s64)(e->ts - s->start_ns) / 1e9,
	       e->cpu, event_defs[e->type].name, e->pid ? task : "-");
	format_ms(when, sizeof(when), e->duration_ns);
	switch (e->type) {
	case MDSTAT_EV_PINNED_PREEMPT:
		printf("prio=%d depth=%d nr_pinned=%d next=%s next_prio=%d",
		       e->prio, e->depth, e->arg, other, e->other_prio);
		break;
	case MDSTAT_EV_PINNED_RESUME:
		printf("prio=%d depth=%d waited_ms=%s", e->prio, e->depth, when);
		break;
	case MDSTAT_EV_PUSH_QUEUED:
		printf("prio=%d site=%s pinned=%s", e->prio, push_site(e->depth),
		       e->other_pid >= 0 ? other : "-");
		break;
	case MDSTAT_EV_PUSH_DONE:
		printf("prio=%d result=%s dest_cpu=%d latency_ms=%s", e->prio,
		       push_result(e->arg), e->arg2, when);
		break;
	case MDSTAT_EV_BALANCE_PUSH:
		printf("prio=%d", e->prio);
		break;
	case MDSTAT_EV_HOTPLUG_WAIT_BEGIN:
		printf("nr_running=%d nr_pinned=%d", e->arg2, e->arg);
		break;
	case MDSTAT_EV_AFFINITY_WAIT_BEGIN:
		printf("prio=%d depth=%d caller=%s", e->prio, e->depth, other);
		break;
	case MDSTAT_EV_AFFINITY_WAIT_END:
		printf("caller=%s waited_ms=%s", other, when);
		break;
	case MDSTAT_EV_HOTPLUG_WAIT_END:
		printf("waited_ms=%s", when);
		break;
	case MDSTAT_EV_OFFLINE_END:
		printf("took_ms=%s ret=%d", when, e->arg);
		break;
	case MDSTAT_EV_CULPRIT:
		ksyms_format(t->ksyms, e->caller, sym, sizeof(sym));
		printf("held_ms=%.3f section_ms=%s%s %s=%s", e->held_ns / 1e6,
		       e->arg ? when : "?", e->arg ? "" : " (began before mdstat)",
		       e->arg ? "disabled_at" : "enabled_at", sym);
		break;
	case MDSTAT_EV_CULPRIT_LEFT:
		printf("on_cpu_after_section_ms=%s", when);
		break;
	}
	putchar('\n');
}

static void print_json(struct session *s, const struct mdstat_event *e)
{
	struct trace *t = s->ctx;
	char sym[128];

	printf("{\"type\":\"event\",\"event\":\"%s\",\"time_ns\":%llu,"
	       "\"monotonic_ns\":%llu,\"cpu\":%d,"
	       "\"pid\":%d,\"tgid\":%d,\"prio\":%d,\"comm\":",
	       event_defs[e->type].name,
	       (unsigned long long)(e->ts - s->start_ns),
	       (unsigned long long)e->ts, e->cpu, e->pid,
	       e->tgid, e->prio);
	json_string(stdout, e->comm);
	if (e->other_pid >= 0) {
		printf(",\"other_pid\":%d,\"other_prio\":%d,\"other_comm\":",
		       e->other_pid, e->other_prio);
		json_string(stdout, e->other_comm);
	}
	switch (e->type) {
	case MDSTAT_EV_PINNED_PREEMPT:
		printf(",\"depth\":%d,\"nr_pinned\":%d", e->depth, e->arg);
		break;
	case MDSTAT_EV_PINNED_RESUME:
		printf(",\"depth\":%d,\"wait_ns\":%llu", e->depth,
		       (unsigned long long)e->duration_ns);
		break;
	case MDSTAT_EV_PUSH_QUEUED:
		printf(",\"site\":\"%s\"", push_site(e->depth));
		break;
	case MDSTAT_EV_PUSH_DONE:
		printf(",\"result\":\"%s\",\"dest_cpu\":%d,\"latency_ns\":%llu",
		       push_result(e->arg), e->arg2,
		       (unsigned long long)e->duration_ns);
		break;
	case MDSTAT_EV_HOTPLUG_WAIT_BEGIN:
		printf(",\"nr_running\":%d,\"nr_pinned\":%d", e->arg2, e->arg);
		break;
	case MDSTAT_EV_AFFINITY_WAIT_BEGIN:
		printf(",\"depth\":%d", e->depth);
		break;
	case MDSTAT_EV_HOTPLUG_WAIT_END:
	case MDSTAT_EV_AFFINITY_WAIT_END:
		printf(",\"wait_ns\":%llu", (unsigned long long)e->duration_ns);
		break;
	case MDSTAT_EV_OFFLINE_END:
		printf(",\"duration_ns\":%llu,\"ret\":%d",
		       (unsigned long long)e->duration_ns, e->arg);
		break;
	case MDSTAT_EV_CULPRIT:
		ksyms_format(t->ksyms, e->caller, sym, sizeof(sym));
		printf(",\"held_ns\":%llu,\"section_ns\":%llu,\"section_seen\":%s,\"where\":",
		       (unsigned long long)e->held_ns,
		       (unsigned long long)e->duration_ns,
		       e->arg ? "true" : "false");
		json_string(stdout, sym);
		break;
	case MDSTAT_EV_CULPRIT_LEFT:
		printf(",\"on_cpu_after_ns\":%llu", (unsigned long long)e->duration_ns);
		break;
	}
	puts("}");
}

static int trace_event(struct session *s, const struct mdstat_event *e)
{
	struct trace *t = s->ctx;

	if (e->type >= MDSTAT_NR_EVENT_TYPES)
		return 0;
	t->events++;
	if (s->opts->json)
		print_json(s, e);
	else
		print_text(s, e);
	return 0;
}

/* -e: event names, or a prefix of some ("push", "hotplug_wait"). */
static __u32 parse_events(const char *list, struct argp_state *state)
{
	char *copy = strdup(list), *tok, *save = NULL;
	size_t len;
	__u32 mask = 0, matched;
	int type;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		len = strlen(tok);
		matched = 0;
		for (type = 0; type < MDSTAT_NR_EVENT_TYPES; type++)
			if (!strcmp(event_defs[type].name, tok) ||
			    (!strncmp(event_defs[type].name, tok, len) &&
			     event_defs[type].name[len] == '_'))
				matched |= 1U << type;
		if (!matched)
			argp_failure(state, EXIT_USAGE, 0,
				     "unknown event '%s' (mdstat trace --help lists them)", tok);
		mask |= matched;
	}
	free(copy);
	return mask;
}

static const struct argp_option trace_options[] = {
	{ "events", 'e', "LIST", 0, "Only these events (names or prefixes, comma-separated)", 0 },
	{ 0 }
};

static error_t parse_trace(int key, char *arg, struct argp_state *state)
{
	struct mdstat_options *o = state->input;

	switch (key) {
	case 'e':
		o->event_mask = parse_events(arg, state);
		o->events_given = true;
		break;
	default:
		return parse_subcommand(key, arg, state);
	}
	return 0;
}

static const struct argp trace_argp = {
	trace_options, parse_trace, "[-- COMMAND [ARG...]]",
	"Print each migrate_disable() event as it happens: pinned tasks "
	"preempted (pinned_preempt) and running again (pinned_resume), "
	"push_cpu_stop() queued and done (push_queued, push_done), tasks "
	"pushed off a CPU going down (balance_push), hotplug and affinity "
	"waits (hotplug_wait_begin/end, affinity_wait_begin/end), CPU offline "
	"(offline_begin/end) and the pinned tasks that held a hotplug wait up "
	"(culprit).  -i and -n limit the run to n intervals; a COMMAND after "
	"-- ends it when it exits.",
	common_children,
};

int cmd_trace(int argc, char **argv)
{
	struct mdstat_options o;
	struct session s = {};
	struct trace t = {};
	int type, err;
	__u32 wanted;

	options_parse(&trace_argp, argc, argv, &o);
	err = session_open(&s, &o);
	if (err)
		goto out;
	wanted = o.event_mask;
	for (type = 0; type < MDSTAT_NR_EVENT_TYPES; type++) {
		enum mdstat_source src = event_defs[type].source;

		if (!(wanted & (1U << type)))
			continue;
		if (!s.kernel.src[src].available && o.events_given) {
			fprintf(stderr, "mdstat: cannot trace %s on this kernel: %s\n",
				event_defs[type].name, s.kernel.src[src].why_not);
			err = EXIT_NO_SOURCE;
			goto out;
		}
		s.want[src] = true;
	}
	/* A culprit is a section that ends while a hotplug wait is on. */
	if (s.want[SRC_CULPRITS])
		s.want[SRC_HOTPLUG_WAIT] = true;
	session_note_missing(&s);
	s.emit_events = true;
	s.on_event = trace_event;
	s.ctx = &t;
	t.ksyms = ksyms_load();
	err = session_start(&s);
	if (err)
		goto out;
	if (!o.json)
		printf("%12s %3s %-19s %-22s %s\n", "TIME(s)", "CPU", "EVENT",
		       "TASK", "DETAILS");
	err = session_run(&s);
	if (o.json)
		printf("{\"type\":\"summary\",\"events\":%lu,\"lost_events\":%llu}\n",
		       t.events, (unsigned long long)s.skel->bss->lost_events);
	else
		fprintf(stderr, "mdstat: %lu events, %llu lost\n", t.events,
			(unsigned long long)s.skel->bss->lost_events);
out:
	ksyms_free(t.ksyms);
	session_close(&s);
	return err;
}
