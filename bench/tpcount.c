// SPDX-License-Identifier: GPL-2.0
/*
 * tpcount: attach tpcount.bpf.c to sched_migrate_{disable,enable}_tp, print
 * "ready", and at SIGINT or SIGTERM print how often each fired.  The
 * benchmark's "bare tracepoints on" case.  With --pin, a third program on
 * the enable tracepoint takes BPF task storage, which disables migration;
 * then the runs of that program and the times the kernel refused to run it
 * again from within itself (recursion_misses) are printed too.
 *
 * Exit status: 0 done, 1 the programs did not load or attach (a kernel
 * without the mdstat series has no such tracepoints), 2 bad usage.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tpcount.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct bpf_prog_info info = {};
	__u32 info_len = sizeof(info);
	struct tpcount_bpf *skel;
	sigset_t blocked, old;
	bool pin = argc == 2 && !strcmp(argv[1], "--pin");

	if (argc != 1 && !pin) {
		fprintf(stderr, "usage: %s [--pin] (stop it with SIGINT)\n", argv[0]);
		return 2;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* Blocked until sigsuspend(), so that no signal slips in before it. */
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGINT);
	sigaddset(&blocked, SIGTERM);
	sigprocmask(SIG_BLOCK, &blocked, &old);

	skel = tpcount_bpf__open();
	if (skel)
		bpf_program__set_autoload(skel->progs.pin_enable, pin);
	if (!skel || tpcount_bpf__load(skel) || tpcount_bpf__attach(skel)) {
		fprintf(stderr, "tpcount: cannot attach to sched_migrate_{disable,enable}_tp: %s\n",
			strerror(errno));
		tpcount_bpf__destroy(skel);
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready\n");
	while (!stop)
		sigsuspend(&old);
	printf("disables=%llu enables=%llu\n", (unsigned long long)skel->bss->disables,
	       (unsigned long long)skel->bss->enables);
	if (pin && !bpf_obj_get_info_by_fd(bpf_program__fd(skel->progs.pin_enable),
					   &info, &info_len))
		printf("pinned_runs=%llu recursion_misses=%llu\n",
		       (unsigned long long)skel->bss->pinned_runs,
		       (unsigned long long)info.recursion_misses);
	tpcount_bpf__destroy(skel);
	return 0;
}
