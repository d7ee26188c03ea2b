// SPDX-License-Identifier: GPL-2.0
/* Kernel addresses to "function+0xoff [module]", from /proc/kallsyms. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"

struct ksym {
	__u64 addr;
	char *name;	/* "function" or "function [module]" */
};

struct ksyms {
	struct ksym *syms;
	size_t nr;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct ksyms *ksyms_load(void)
{
	char line[512], name[256], module[128], full[400], type;
	unsigned long long addr;
	struct ksyms *k;
	struct ksym *grown;
	size_t cap = 0;
	FILE *f;
	int n;

	f = fopen("/proc/kallsyms", "r");
	k = calloc(1, sizeof(*k));
	if (!f || !k)
		goto fail;
	while (fgets(line, sizeof(line), f)) {
		module[0] = 0;
		n = sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, module);
		if (n < 3 || !addr || (type != 't' && type != 'T'))
			continue;
		if (k->nr == cap) {
			cap = cap ? cap * 2 : 65536;
			grown = realloc(k->syms, cap * sizeof(*grown));
			if (!grown)
				goto fail;
			k->syms = grown;
		}
		if (module[0])
			snprintf(full, sizeof(full), "%s [%s]", name, module);
		else
			snprintf(full, sizeof(full), "%s", name);
		k->syms[k->nr].addr = addr;
		k->syms[k->nr].name = strdup(full);
		if (!k->syms[k->nr].name)
			goto fail;
		k->nr++;
	}
	fclose(f);
	qsort(k->syms, k->nr, sizeof(*k->syms), ksym_cmp);
	return k;
fail:
	if (f)
		fclose(f);
	ksyms_free(k);
	return NULL;
}

void ksyms_free(struct ksyms *k)
{
	size_t i;

	if (!k)
		return;
	for (i = 0; i < k->nr; i++)
		free(k->syms[i].name);
	free(k->syms);
	free(k);
}

/* Writes the symbol of addr; returns -1 when none is known. */
int ksyms_format(const struct ksyms *k, __u64 addr, char *buf, size_t size)
{
	size_t lo = 0, hi = k ? k->nr : 0, mid;
	const struct ksym *s;
	const char *module;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo) {
		snprintf(buf, size, "0x%llx", (unsigned long long)addr);
		return -1;
	}
	s = &k->syms[lo - 1];
	module = strchr(s->name, ' ');
	if (module)
		snprintf(buf, size, "%.*s+0x%llx%s", (int)(module - s->name), s->name,
			 (unsigned long long)(addr - s->addr), module);
	else
		snprintf(buf, size, "%s+0x%llx", s->name,
			 (unsigned long long)(addr - s->addr));
	return 0;
}
