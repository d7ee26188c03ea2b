// SPDX-License-Identifier: GPL-2.0
/*
 * A session: check privileges and BTF, load the programs the subcommand
 * wants from the sources this kernel has, attach them, run the command
 * after "--" if any, and poll until the count, the command or a signal
 * ends it.  Destroying the skeleton detaches everything.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cli.h"
#include "mdstat.skel.h"

/* An mmap()ed array map has its elements 8 bytes apart, rounded up. */
_Static_assert(sizeof(struct mdstat_cpu) % 8 == 0, "struct mdstat_cpu: pad it to 8 bytes");

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

__u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static bool verbose;

static int print_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	(void)level;
	if (!verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* Root, or CAP_BPF with CAP_PERFMON, or CAP_SYS_ADMIN. */
bool session_privileged(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};
	__u64 eff;

	if (syscall(SYS_capget, &hdr, data))
		return geteuid() == 0;
	eff = data[0].effective | (__u64)data[1].effective << 32;
	if (eff & (1ULL << CAP_SYS_ADMIN))
		return true;
	return (eff & (1ULL << CAP_BPF)) && (eff & (1ULL << CAP_PERFMON));
}

int session_open(struct session *s, const struct mdstat_options *o)
{
	int err;

	s->opts = o;
	verbose = o->verbose;
	libbpf_set_print(print_libbpf);
	if (!session_privileged()) {
		fprintf(stderr, "mdstat: needs root, or CAP_BPF and CAP_PERFMON\n");
		return EXIT_PRIVILEGE;
	}
	err = kernel_probe(&s->kernel);
	if (err)
		return err;
	s->skel = mdstat_bpf__open();
	if (!s->skel) {
		fprintf(stderr, "mdstat: cannot open the BPF programs: %s\n",
			strerror(errno));
		return EXIT_RUNTIME;
	}
	return 0;
}

/* Tell, once, what the subcommand wants that this kernel cannot give. */
void session_note_missing(struct session *s)
{
	int src;

	for (src = 0; src < MDSTAT_NR_SOURCES; src++)
		if (s->want[src] && !s->kernel.src[src].available)
			fprintf(stderr, "mdstat: no %s on this kernel: %s\n",
				source_names[src], s->kernel.src[src].why_not);
}

/* Keep the reason in s->error, and tell it unless s->quiet (doctor). */
static int session_fail(struct session *s, int status, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(s->error, sizeof(s->error), fmt, args);
	va_end(args);
	if (!s->quiet)
		fprintf(stderr, "mdstat: %s\n", s->error);
	return status;
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct session *s = ctx;

	if (size < sizeof(struct mdstat_event))
		return 0;
	return s->on_event ? s->on_event(s, data) : 0;
}

/* Load what s->want names, from the sources this kernel has, and attach. */
int session_start(struct session *s)
{
	const struct mdstat_options *o = s->opts;
	const struct source_choice *c;
	struct bpf_program *prog;
	const char *const *name;
	struct bpf_link **slot;
	size_t cpus_size;
	int src, cpu, err, i;

	bpf_object__for_each_program(prog, s->skel->obj)
		bpf_program__set_autoload(prog, false);
	for (src = 0; src < MDSTAT_NR_SOURCES; src++) {
		c = &s->kernel.src[src];
		if (!s->want[src] || !c->available)
			continue;
		for (name = source_programs(src, c->patched); *name; name++) {
			prog = bpf_object__find_program_by_name(s->skel->obj, *name);
			bpf_program__set_autoload(prog, true);
		}
	}
	s->skel->rodata->fallback_push = s->want[SRC_PUSH] &&
		s->kernel.src[SRC_PUSH].available && !s->kernel.src[SRC_PUSH].patched;
	s->skel->rodata->fallback_balance_push = s->want[SRC_BALANCE_PUSH] &&
		s->kernel.src[SRC_BALANCE_PUSH].available;
	s->skel->rodata->emit_events = s->emit_events;
	s->skel->rodata->event_mask = o->event_mask;
	s->skel->rodata->hist_per_cpu = o->per_cpu;
	s->skel->rodata->targ_tgid = o->pid;
	s->skel->rodata->filter_cpus = o->cpus_given;
	s->skel->rodata->nr_cpus = o->nr_cpus;
	/* Sized to this machine: every possible CPU, whatever their number. */
	bpf_map__set_max_entries(s->skel->maps.cpus, o->nr_cpus);
	bpf_map__set_max_entries(s->skel->maps.hists,
				 MDSTAT_NR_HISTS * (o->per_cpu ? o->nr_cpus + 1 : 1));
	if (!s->emit_events)
		bpf_map__set_max_entries(s->skel->maps.events, getpagesize());

	err = mdstat_bpf__load(s->skel);
	if (err) {
		return session_fail(s, EXIT_RUNTIME, "cannot load the BPF programs: %s%s",
				    strerror(-err), o->verbose ? "" : " (-v tells more)");
	}
	cpus_size = sizeof(*s->cpus) * o->nr_cpus;
	s->cpus = mmap(NULL, cpus_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       bpf_map__fd(s->skel->maps.cpus), 0);
	if (s->cpus == MAP_FAILED) {
		s->cpus = NULL;
		return session_fail(s, EXIT_RUNTIME, "cannot map the per-CPU state: %s",
				    strerror(errno));
	}
	for (cpu = 0; cpu < o->nr_cpus; cpu++)
		s->cpus[cpu].allowed = o->cpus[cpu];
	/* Into the skeleton's own link slots, so that destroying it detaches. */
	for (i = 0; i < s->skel->skeleton->prog_cnt; i++) {
		prog = *s->skel->skeleton->progs[i].prog;
		slot = s->skel->skeleton->progs[i].link;
		if (!bpf_program__autoload(prog) || prog == s->skel->progs.snapshot)
			continue;
		*slot = bpf_program__attach(prog);
		if (!*slot) {
			err = errno;
			return session_fail(s, err == ENOENT || err == ESRCH ?
					    EXIT_NO_SOURCE : EXIT_RUNTIME,
					    "cannot attach %s (%s): %s",
					    bpf_program__name(prog),
					    bpf_program__section_name(prog), strerror(err));
		}
	}
	if (s->emit_events) {
		s->events = ring_buffer__new(bpf_map__fd(s->skel->maps.events),
					     handle_event, s, NULL);
		if (!s->events)
			return session_fail(s, EXIT_RUNTIME, "cannot read the event ring: %s",
					    strerror(errno));
	}
	return 0;
}

/* Fill each CPU's rq in s->cpus from its runqueue. */
int session_snapshot(struct session *s)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	int fd = bpf_program__fd(s->skel->progs.snapshot);

	if (fd < 0 || bpf_prog_test_run_opts(fd, &opts))
		return -1;
	return 0;
}

/* Every CPU's counters as they are now, into out[nr_cpus]. */
void session_counters(const struct session *s, struct mdstat_counters *out)
{
	int cpu;

	for (cpu = 0; cpu < s->opts->nr_cpus; cpu++)
		out[cpu] = s->cpus[cpu].counters;
}

static int start_command(struct session *s)
{
	int ready[2];
	char go;

	if (pipe(ready))
		return -1;
	s->child = fork();
	if (s->child < 0)
		return -1;
	if (!s->child) {
		/* Start only once everything is attached. */
		close(ready[1]);
		if (read(ready[0], &go, 1) != 1)
			_exit(127);
		close(ready[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		execvp(s->opts->command[0], s->opts->command);
		fprintf(stderr, "mdstat: cannot run %s: %s\n",
			s->opts->command[0], strerror(errno));
		_exit(127);
	}
	close(ready[0]);
	go = 1;
	if (write(ready[1], &go, 1) != 1)
		return -1;
	close(ready[1]);
	return 0;
}

/* Whether the command ended; it takes its status. */
static bool command_done(struct session *s)
{
	int status;

	if (!s->child || waitpid(s->child, &status, WNOHANG) != s->child)
		return false;
	s->child_status = status;
	s->child = 0;
	return true;
}

int session_run(struct session *s)
{
	const struct mdstat_options *o = s->opts;
	__u64 interval_ns = o->interval * 1e9, next, began;
	struct sigaction sa = { .sa_handler = on_signal };
	bool has_command = o->command;
	long n = 0;
	int err, timeout;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	s->start_ns = now_ns();
	next = s->start_ns + interval_ns;
	if (has_command && start_command(s)) {
		fprintf(stderr, "mdstat: cannot run %s: %s\n", o->command[0],
			strerror(errno));
		return EXIT_COMMAND;
	}
	while (!stop_signal && !output_failed()) {
		timeout = (int)(((__s64)(next - now_ns())) / 1000000);
		if (timeout > 100)
			timeout = 100;
		if (timeout < 0)
			timeout = 0;
		if (s->events) {
			err = ring_buffer__poll(s->events, timeout);
			if (err < 0 && err != -EINTR) {
				fprintf(stderr, "mdstat: reading events: %s\n",
					strerror(-err));
				return EXIT_RUNTIME;
			}
		} else {
			usleep(timeout * 1000);
		}
		if (has_command && command_done(s))
			break;
		if (now_ns() < next)
			continue;
		next += interval_ns;
		n++;
		began = now_ns();
		if (s->on_interval && s->on_interval(s, n))
			break;
		/* What reading and showing the numbers costs, as it grows with the CPUs. */
		if (o->verbose && s->on_interval)
			fprintf(stderr, "mdstat: interval %ld: %.3f ms to read and show %d CPUs\n",
				n, (now_ns() - began) / 1e6, o->nr_cpus);
		if (o->count && n >= o->count)
			break;
	}
	/* What is still in the ring belongs to the run. */
	if (s->events)
		ring_buffer__consume(s->events);
	if (s->child) {
		kill(s->child, SIGTERM);
		waitpid(s->child, &s->child_status, 0);
		s->child = 0;
	}
	if (has_command && WIFEXITED(s->child_status) &&
	    WEXITSTATUS(s->child_status) == 127)
		return EXIT_COMMAND;
	return 0;
}

void session_close(struct session *s)
{
	if (s->cpus)
		munmap(s->cpus, sizeof(*s->cpus) * s->opts->nr_cpus);
	ring_buffer__free(s->events);
	mdstat_bpf__destroy(s->skel);
	kernel_release(&s->kernel);
}
