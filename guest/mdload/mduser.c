// SPDX-License-Identifier: GPL-2.0
/* The pieces every mdload helper needs: numbers, the device, the CPU. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mdload.h"
#include "mduser.h"

int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	if (*s == '-')
		return -1;
	*out = strtoull(s, &end, 0);
	return errno || end == s || *end ? -1 : 0;
}

uint64_t option_u64(struct argp_state *state, const char *arg, const char *what,
		    uint64_t min, uint64_t max)
{
	uint64_t v;

	if (parse_u64(arg, &v) || v < min || v > max)
		argp_error(state, "bad %s '%s'", what, arg);
	return v;
}

int mdload_open(const char *prog, int *status)
{
	int fd = open(MDLOAD_DEVICE, O_RDWR | O_CLOEXEC);
	int err = errno;

	if (fd >= 0)
		return fd;
	fprintf(stderr, "%s: cannot open %s: %s%s\n", prog, MDLOAD_DEVICE,
		strerror(err), err == ENOENT ? " (is mdload loaded?)" : "");
	*status = err == EACCES || err == EPERM ? EXIT_NO_PERMISSION : EXIT_NO_DEVICE;
	return -1;
}

int ioctl_exit_status(int err)
{
	switch (err) {
	case EINVAL:
		return EXIT_REFUSED;
	case EACCES:
	case EPERM:
		return EXIT_NO_PERMISSION;
	default:
		return EXIT_IOCTL;
	}
}

int pin_to_cpu(const char *prog, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (!sched_setaffinity(0, sizeof(set), &set))
		return 0;
	fprintf(stderr, "%s: cannot pin to CPU %d: %s\n", prog, cpu, strerror(errno));
	return -1;
}
