// SPDX-License-Identifier: GPL-2.0
/* Kernel stacks that the BPF programs saved in the stacks map, as symbols. */
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cli.h"
#include "mdstat.skel.h"

/*
 * Print the stack @stack_id from the frame after the last one @cut_at
 * accepts (the machinery that took the stack: BPF, the tracepoint, the
 * scheduler), one @line per frame.  Without the stack, @fallback alone if
 * it is an address.
 */
void stack_print(struct session *s, const struct ksyms *k, __s64 stack_id,
		 __u64 fallback, bool (*cut_at)(const char *sym),
		 void (*line)(const char *sym, bool first))
{
	__u64 ips[MDSTAT_STACK_DEPTH] = {};
	char sym[160];
	__u32 id = stack_id;
	int i, from = 0;

	if (stack_id < 0 ||
	    bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.stacks), &id, ips)) {
		if (fallback) {
			ksyms_format(k, fallback, sym, sizeof(sym));
			line(sym, true);
		}
		return;
	}
	for (i = 0; i < MDSTAT_STACK_DEPTH && ips[i]; i++) {
		ksyms_format(k, ips[i], sym, sizeof(sym));
		if (cut_at(sym))
			from = i + 1;
	}
	for (i = from; i < MDSTAT_STACK_DEPTH && ips[i]; i++) {
		ksyms_format(k, ips[i], sym, sizeof(sym));
		line(sym, i == from);
	}
}

void stack_line_text(const char *sym, bool first)
{
	(void)first;
	printf("      %s\n", sym);
}

void stack_line_json(const char *sym, bool first)
{
	if (!first)
		putchar(',');
	json_string(stdout, sym);
}
