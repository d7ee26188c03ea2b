// SPDX-License-Identifier: GPL-2.0
/* Output helpers the subcommands share: JSON strings, priorities, histograms. */
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

const char *policy_name(unsigned int policy)
{
	static const char *const names[] = {
		"other", "fifo", "rr", "batch", "iso", "idle", "deadline",
	};

	return policy < sizeof(names) / sizeof(names[0]) ? names[policy] : "?";
}

/*
 * The kernel's prio as a person sets it: fifo:10 (rtprio), other:-5 (nice),
 * deadline.  prio is 99 - rtprio for RT tasks and 120 + nice for CFS ones.
 */
void format_prio(char *buf, size_t size, unsigned int policy, int prio)
{
	if (prio < 0 || policy == 6)
		snprintf(buf, size, "deadline");
	else if (prio < 100)
		snprintf(buf, size, "%s:%d", policy_name(policy), 99 - prio);
	else
		snprintf(buf, size, "%s:%d", policy_name(policy), prio - 120);
}

void format_ms(char *buf, size_t size, __u64 ns)
{
	snprintf(buf, size, "%.3f", ns / 1e6);
}

static void format_bound(char *buf, size_t size, __u64 ns)
{
	if (ns < 1000)
		snprintf(buf, size, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, size, "%lluus", (unsigned long long)ns / 1000);
	else if (ns < 1000000000)
		snprintf(buf, size, "%llums", (unsigned long long)ns / 1000000);
	else
		snprintf(buf, size, "%llus", (unsigned long long)ns / 1000000000);
}

static void slot_bounds(int slot, __u64 *lo, __u64 *hi)
{
	*lo = slot ? 1ULL << slot : 0;
	*hi = (1ULL << (slot + 1)) - 1;
}

/* From the first to the last non-empty slot, with a bar scaled to the largest. */
void print_log2_hist(FILE *f, const struct mdstat_hist *h)
{
	int first = -1, last = -1, slot, width, i;
	char lo_s[16], hi_s[16];
	__u64 peak = 0, lo, hi;

	for (slot = 0; slot < MDSTAT_HIST_SLOTS; slot++) {
		if (!h->slots[slot])
			continue;
		if (first < 0)
			first = slot;
		last = slot;
		if (h->slots[slot] > peak)
			peak = h->slots[slot];
	}
	if (first < 0)
		return;
	fprintf(f, "  %21s : %-8s distribution\n", "range", "count");
	for (slot = first; slot <= last; slot++) {
		slot_bounds(slot, &lo, &hi);
		format_bound(lo_s, sizeof(lo_s), lo);
		format_bound(hi_s, sizeof(hi_s), hi + 1);
		width = h->slots[slot] * 40 / peak;
		fprintf(f, "  %9s -> %-8s : %-8llu |", lo_s, hi_s,
			(unsigned long long)h->slots[slot]);
		for (i = 0; i < 40; i++)
			fputc(i < width ? '*' : ' ', f);
		fputs("|\n", f);
	}
}

void json_log2_hist(FILE *f, const struct mdstat_hist *h)
{
	bool first = true;
	__u64 lo, hi;
	int slot;

	fprintf(f, "\"count\":%llu,\"total_ns\":%llu,\"max_ns\":%llu,\"buckets\":[",
		(unsigned long long)h->count, (unsigned long long)h->total_ns,
		(unsigned long long)h->max_ns);
	for (slot = 0; slot < MDSTAT_HIST_SLOTS; slot++) {
		if (!h->slots[slot])
			continue;
		slot_bounds(slot, &lo, &hi);
		fprintf(f, "%s{\"lo_ns\":%llu,\"hi_ns\":%llu,\"count\":%llu}",
			first ? "" : ",", (unsigned long long)lo,
			(unsigned long long)hi, (unsigned long long)h->slots[slot]);
		first = false;
	}
	fputc(']', f);
}

/*
 * Whether standard output is gone (a closed pipe): time to stop.  A write
 * fails then, but a trace can stay quiet for long after its reader left
 * (head -n 2 of lines written at once); poll() reports POLLERR on a pipe
 * with no reader left, and POLLHUP on a terminal that hung up.
 */
bool output_failed(void)
{
	struct pollfd out = { .fd = STDOUT_FILENO };

	if (fflush(stdout) || ferror(stdout))
		return true;
	return poll(&out, 1, 0) == 1 && (out.revents & (POLLERR | POLLHUP));
}
