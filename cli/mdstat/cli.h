/* SPDX-License-Identifier: GPL-2.0 */
/* What the mdstat subcommands share: options, exit codes, the BPF session. */
#ifndef MDSTAT_CLI_H
#define MDSTAT_CLI_H

#include <argp.h>
#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "mdstat.h"

/* Exit statuses; mdstat.8 lists them. */
enum {
	EXIT_RUNTIME = 1,	/* loading or attaching failed unexpectedly */
	EXIT_USAGE = 2,		/* bad subcommand, option or argument */
	EXIT_PRIVILEGE = 3,	/* not root, no CAP_BPF and CAP_PERFMON */
	EXIT_NO_BTF = 4,	/* the kernel has no BTF */
	EXIT_NO_SOURCE = 5,	/* the kernel lacks a tracepoint or function asked for */
	EXIT_NO_PID = 6,	/* -p names no process */
	EXIT_COMMAND = 7,	/* the command after -- could not be run */
	EXIT_OUTPUT = 8,	/* export: the textfile folder cannot be written */
};

/* The options every subcommand takes (options.c). */
struct mdstat_options {
	bool cpus_given;
	__u8 *cpus;			/* -C: 1 for each CPU to show, nr_cpus of them */
	int pid;			/* -p: a process (tgid), or 0 */
	double interval;		/* -i: seconds */
	bool interval_given;
	long count;			/* -n: intervals, or 0 for no limit */
	bool json;			/* -j: NDJSON */
	bool batch;			/* -b: plain appended text */
	bool per_cpu;			/* -P (hist): a histogram per CPU */
	bool verbose;			/* -v: libbpf's messages */
	__u32 event_mask;		/* -e (trace): 1 << mdstat_event_type */
	bool events_given;
	char **command;			/* after --, or NULL */
	const char *textfile_dir;	/* -o (export) */
	int nr_cpus;			/* possible CPUs */
};

extern const struct argp common_argp;
extern const struct argp_child common_children[];
error_t parse_subcommand(int key, char *arg, struct argp_state *state);
void options_parse(const struct argp *argp, int argc, char **argv,
		   struct mdstat_options *o);
bool cpu_shown(const struct mdstat_options *o, int cpu);
void *cpus_alloc(const struct mdstat_options *o, size_t size);

/* Where each measurement comes from on this kernel (sources.c). */
enum mdstat_source {
	SRC_STACKING,		/* pinned tasks preempted: sched_switch */
	SRC_PUSH,		/* push_cpu_stop() queued and done */
	SRC_BALANCE_PUSH,	/* tasks pushed off a CPU going down */
	SRC_HOTPLUG_WAIT,	/* hotplug waiting for pinned tasks */
	SRC_AFFINITY_WAIT,	/* sched_setaffinity() waiting for a pinned task */
	SRC_OFFLINE,		/* a CPU offline from start to end */
	SRC_CULPRITS,		/* who held a hotplug wait up, and where */
	SRC_RUNQUEUES,		/* every runqueue read through BTF */
	MDSTAT_NR_SOURCES,
};

struct btf;

struct source_choice {
	bool available;
	bool patched;		/* the mdstat series' tracepoint, not a fallback */
	const char *via;	/* what it uses, for doctor and notes */
	char why_not[160];	/* when not available */
};

struct kernel_info {
	struct btf *btf;
	bool patched;		/* the mdstat series' trace events are there */
	bool md_stats;		/* struct rq.md_stats */
	bool schedstats;	/* kernel.sched_schedstats: md_stats counting */
	struct source_choice src[MDSTAT_NR_SOURCES];
};

extern const char *const source_names[MDSTAT_NR_SOURCES];
int kernel_probe(struct kernel_info *k);
void kernel_release(struct kernel_info *k);
const char *const *source_programs(enum mdstat_source src, bool patched);

/* A loaded, attached set of programs and the loop that runs it (session.c). */
struct mdstat_bpf;

struct session {
	const struct mdstat_options *opts;
	struct kernel_info kernel;
	struct mdstat_bpf *skel;
	struct mdstat_cpu *cpus;	/* the cpus map, mmap()ed: opts->nr_cpus */
	struct ring_buffer *events;
	bool want[MDSTAT_NR_SOURCES];
	bool emit_events;
	bool quiet;		/* keep errors in error[], print nothing */
	char error[256];
	__u64 start_ns;		/* CLOCK_MONOTONIC as it started */
	int child;		/* the command's pid, or 0 */
	int child_status;
	/* Called for each record, at each interval (its number), at the end. */
	int (*on_event)(struct session *s, const struct mdstat_event *e);
	int (*on_interval)(struct session *s, long n);
	void *ctx;
};

bool session_privileged(void);
int session_open(struct session *s, const struct mdstat_options *o);
int session_start(struct session *s);
int session_run(struct session *s);
void session_close(struct session *s);
void session_note_missing(struct session *s);
int session_snapshot(struct session *s);
void session_counters(const struct session *s, struct mdstat_counters *out);
__u64 now_ns(void);

/*
 * mdstat's per-CPU counters, as top's JSON and export's Prometheus metrics
 * name them (counters.c).  A metric's outcomes are adjacent entries.
 */
enum counter_kernel {
	ON_ANY_KERNEL,
	WITH_SERIES,		/* the push results only the series tells */
	WITHOUT_SERIES,		/* the fallback's not_moved */
};

struct counter_def {
	const char *json;	/* top -j, or NULL */
	int counter;		/* enum mdstat_counter */
	enum mdstat_source source;
	enum counter_kernel kernel;
	const char *metric;	/* Prometheus */
	const char *outcome;	/* its outcome label, or NULL */
	bool ns;		/* nanoseconds, exported as seconds */
	bool gauge;
	const char *help;
};

extern const struct counter_def counter_defs[];
extern const size_t nr_counter_defs;
bool counter_available(const struct session *s, const struct counter_def *d);

/* Output helpers (format.c). */
void json_string(FILE *f, const char *s);
const char *policy_name(unsigned int policy);
void format_prio(char *buf, size_t size, unsigned int policy, int prio);
void format_ms(char *buf, size_t size, __u64 ns);
void print_log2_hist(FILE *f, const struct mdstat_hist *h);
void json_log2_hist(FILE *f, const struct mdstat_hist *h);
bool output_failed(void);

/* Kernel symbols (ksyms.c). */
struct ksyms;
struct ksyms *ksyms_load(void);
void ksyms_free(struct ksyms *k);
int ksyms_format(const struct ksyms *k, __u64 addr, char *buf, size_t size);

/* Kernel stacks of the stacks map (stacks.c). */
void stack_print(struct session *s, const struct ksyms *k, __s64 stack_id,
		 __u64 fallback, bool (*cut_at)(const char *sym),
		 void (*line)(const char *sym, bool first));
void stack_line_text(const char *sym, bool first);
void stack_line_json(const char *sym, bool first);

/* The subcommands. */
int cmd_top(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_hotplug(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_export(int argc, char **argv);

#endif /* MDSTAT_CLI_H */
