/* SPDX-License-Identifier: GPL-2.0 */
/* What the mdload helpers (mdsection, mdpairs) share: exit statuses, the device. */
#ifndef _MDUSER_H
#define _MDUSER_H

#include <argp.h>
#include <stdint.h>

/* Exit statuses, one per cause, the same for every helper. */
enum {
	EXIT_USAGE = 2,		/* bad arguments */
	EXIT_NO_DEVICE = 3,	/* mdload is not loaded */
	EXIT_NO_PERMISSION = 4,	/* not root */
	EXIT_REFUSED = 5,	/* the module refused the request (EINVAL) */
	EXIT_IOCTL = 6,		/* any other failure of the ioctl */
	EXIT_SETUP = 7,		/* affinity or scheduling policy not set */
};

#define MDUSER_EXIT_DOC \
	"Exit status: 0 done, 2 bad arguments, 3 no /dev/mdload, 4 not permitted, " \
	"5 request refused by the module (out of bounds), 6 other ioctl failure, " \
	"7 affinity or policy could not be set"

int parse_u64(const char *s, uint64_t *out);
/* An option's number from min to max, or argp's usage error naming what. */
uint64_t option_u64(struct argp_state *state, const char *arg, const char *what,
		    uint64_t min, uint64_t max);
/* /dev/mdload, or -1 with the error said and *status set. */
int mdload_open(const char *prog, int *status);
int ioctl_exit_status(int err);
int pin_to_cpu(const char *prog, int cpu);

#endif /* _MDUSER_H */
