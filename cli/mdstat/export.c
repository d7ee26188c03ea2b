// SPDX-License-Identifier: GPL-2.0
/*
 * mdstat export: mdstat's per-CPU counters in the Prometheus text format,
 * for node_exporter's textfile collector.  Every interval the file is
 * written whole under a temporary name in the same folder, then renamed
 * over mdstat.prom, so that a scrape never reads half a file.  The
 * counters are mdstat's own, from zero as it starts: the same on every
 * kernel, and monotonic while it runs.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "cli.h"
#include "mdstat.skel.h"

#define DEFAULT_TEXTFILE_DIR	"/var/lib/prometheus/node-exporter"
#define DEFAULT_INTERVAL	15	/* seconds: node_exporter's usual scrape */
#define METRICS_FILE		"mdstat.prom"

struct export {
	char path[PATH_MAX];		/* DIR/mdstat.prom */
	char tmp[PATH_MAX];		/* DIR/.mdstat.prom.XXXXXX, not read by it */
	struct mdstat_counters *counters;	/* per CPU, as this write reads them */
	struct utsname uts;
	bool failed;			/* a write failed: the run ends */
};

/* A label value: backslash, double quote and newline escaped. */
static void label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void write_counters(struct session *s, struct export *x, FILE *f)
{
	const struct counter_def *d, *head = NULL;
	const char *written = "";
	__u64 v;
	int cpu;

	for (d = counter_defs; d < counter_defs + nr_counter_defs; d++) {
		/* The first entry of a metric has the HELP of all its outcomes. */
		if (!head || strcmp(head->metric, d->metric))
			head = d;
		if (!counter_available(s, d))
			continue;
		if (strcmp(written, d->metric)) {
			family(f, d->metric, d->gauge ? "gauge" : "counter", head->help);
			written = d->metric;
		}
		for (cpu = 0; cpu < s->opts->nr_cpus; cpu++) {
			if (!cpu_shown(s->opts, cpu))
				continue;
			v = x->counters[cpu].c[d->counter];
			fprintf(f, "%s{cpu=\"%d\"", d->metric, cpu);
			if (d->outcome)
				fprintf(f, ",outcome=\"%s\"", d->outcome);
			if (d->ns)
				fprintf(f, "} %.9f\n", v / 1e9);
			else
				fprintf(f, "} %llu\n", (unsigned long long)v);
		}
	}
}

static void write_metrics(struct session *s, struct export *x, FILE *f)
{
	session_counters(s, x->counters);
	write_counters(s, x, f);
	family(f, "mdstat_lost_events_total", "counter",
	       "Events mdstat dropped because its ring buffer was full.");
	fprintf(f, "mdstat_lost_events_total %llu\n",
		(unsigned long long)s->skel->bss->lost_events);
	family(f, "mdstat_lost_tasks_total", "counter",
	       "Tasks mdstat did not follow because a task table was full.");
	fprintf(f, "mdstat_lost_tasks_total %llu\n",
		(unsigned long long)s->skel->bss->lost_tasks);
	family(f, "mdstat_kernel_info", "gauge",
	       "The running kernel, and whether it has the mdstat series.");
	fputs("mdstat_kernel_info{release=\"", f);
	label_value(f, x->uts.release);
	fprintf(f, "\",series=\"%s\"} 1\n", s->kernel.patched ? "true" : "false");
}

/* Write the file anew and rename it into place; -1 with a message if not. */
static int export_write(struct session *s, long n)
{
	struct export *x = s->ctx;
	bool written;
	int fd, saved;
	FILE *f;

	(void)n;
	strcpy(x->tmp + strlen(x->tmp) - 6, "XXXXXX");
	fd = mkstemp(x->tmp);
	if (fd < 0)
		goto fail;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		goto fail_tmp;
	}
	write_metrics(s, x, f);
	/* mkstemp() made it 0600; node_exporter may run as another user. */
	written = !fchmod(fd, 0644) && !fflush(f) && !ferror(f);
	if (fclose(f) || !written || rename(x->tmp, x->path))
		goto fail_tmp;
	return 0;
fail_tmp:
	saved = errno;
	unlink(x->tmp);
	errno = saved;
fail:
	fprintf(stderr, "mdstat: cannot write %s: %s\n", x->path, strerror(errno));
	x->failed = true;
	return -1;
}

static const struct argp_option export_options[] = {
	{ "textfile-dir", 'o', "DIR", 0,
	  "node_exporter's textfile folder, where mdstat.prom goes "
	  "(default " DEFAULT_TEXTFILE_DIR ")", 0 },
	{ 0 }
};

static error_t parse_export(int key, char *arg, struct argp_state *state)
{
	struct mdstat_options *o = state->input;

	switch (key) {
	case 'o':
		o->textfile_dir = arg;
		break;
	case ARGP_KEY_END:
		if (o->json)
			argp_failure(state, EXIT_USAGE, 0,
				     "-j does not apply: export writes the Prometheus text format");
		return ARGP_ERR_UNKNOWN;
	default:
		return parse_subcommand(key, arg, state);
	}
	return 0;
}

static const struct argp export_argp = {
	export_options, parse_export, "[-- COMMAND [ARG...]]",
	"Write mdstat's per-CPU counters (pinned tasks preempted and their waits, "
	"pushes by outcome, balance pushes, hotplug and affinity waits), lost "
	"events and the kernel's release to DIR/mdstat.prom for the textfile "
	"collector of Prometheus' node_exporter, every interval (default 15 s) "
	"and as it ends.  Each write replaces the file whole (rename).  The "
	"counters start at zero with mdstat.",
	common_children,
};

/* DIR must be a folder mdstat can create files in. */
static int check_dir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st)) {
		fprintf(stderr, "mdstat: textfile folder %s: %s\n", dir, strerror(errno));
		return EXIT_OUTPUT;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "mdstat: textfile folder %s: not a folder\n", dir);
		return EXIT_OUTPUT;
	}
	if (access(dir, W_OK | X_OK)) {
		fprintf(stderr, "mdstat: textfile folder %s: %s\n", dir, strerror(errno));
		return EXIT_OUTPUT;
	}
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct mdstat_options o;
	struct session s = {};
	struct export *x;
	const char *dir;
	int err;

	options_parse(&export_argp, argc, argv, &o);
	if (!o.interval_given)
		o.interval = DEFAULT_INTERVAL;
	dir = o.textfile_dir ? o.textfile_dir : DEFAULT_TEXTFILE_DIR;
	err = EXIT_RUNTIME;
	x = calloc(1, sizeof(*x));
	if (!x || !(x->counters = cpus_alloc(&o, sizeof(*x->counters))))
		goto out;
	if ((size_t)snprintf(x->path, sizeof(x->path), "%s/" METRICS_FILE, dir) >= sizeof(x->path) ||
	    (size_t)snprintf(x->tmp, sizeof(x->tmp), "%s/." METRICS_FILE ".XXXXXX", dir) >= sizeof(x->tmp)) {
		fprintf(stderr, "mdstat: textfile folder name too long: %s\n", dir);
		err = EXIT_USAGE;
		goto out;
	}
	err = check_dir(dir);
	if (err)
		goto out;
	uname(&x->uts);
	err = session_open(&s, &o);
	if (err)
		goto out;
	s.want[SRC_STACKING] = s.want[SRC_PUSH] = s.want[SRC_BALANCE_PUSH] = true;
	s.want[SRC_HOTPLUG_WAIT] = s.want[SRC_AFFINITY_WAIT] = true;
	s.on_interval = export_write;
	s.ctx = x;
	session_note_missing(&s);
	err = session_start(&s);
	if (err)
		goto out;
	/* At once, so that the file is there (all zero) as soon as mdstat counts. */
	if (export_write(&s, 0)) {
		err = EXIT_OUTPUT;
		goto out;
	}
	err = session_run(&s);
	if (x->failed || ((!err || err == EXIT_COMMAND) && export_write(&s, 0)))
		err = EXIT_OUTPUT;
out:
	session_close(&s);
	if (x)
		free(x->counters);
	free(x);
	return err;
}
