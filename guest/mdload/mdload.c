// SPDX-License-Identifier: GPL-2.0
/*
 * mdload: migrate-disabled sections on request.
 *
 * A root-only misc device.  Each MDLOAD_SECTION ioctl runs one section in the
 * calling thread: nested migrate_disable(), a preemptible busy-spin, a sleep,
 * and the matching migrate_enable()s, reporting the CPU at entry and exit.
 * The section always ends before the ioctl returns; a fatal signal only cuts
 * the spin and the sleep short.  MDLOAD_PAIRS times disable/enable pairs
 * for the fast-path benchmark.
 */
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include "mdload.h"

/* The lock of MDLOAD_SPINLOCK sections: on PREEMPT_RT it pins its holder. */
static DEFINE_SPINLOCK(mdload_lock);

static bool mdload_lock_request_valid(const struct mdload_section *s)
{
	if (!(s->flags & MDLOAD_SPINLOCK))
		return s->depth >= 1;
	/* Sleeping or yielding with a spinlock held is a bug anywhere. */
	if (s->sleep_ns || (s->flags & MDLOAD_YIELD))
		return false;
	return IS_ENABLED(CONFIG_PREEMPT_RT) ||
	       s->spin_ns <= MDLOAD_MAX_PREEMPT_OFF_NS;
}

static bool mdload_request_valid(const struct mdload_section *s)
{
	return s->depth <= MDLOAD_MAX_DEPTH && mdload_lock_request_valid(s) &&
	       !(s->flags & ~MDLOAD_FLAGS) && !s->yields && !s->start_ns &&
	       s->preempt_off_ns <= MDLOAD_MAX_PREEMPT_OFF_NS &&
	       s->spin_ns <= MDLOAD_MAX_NS && s->sleep_ns <= MDLOAD_MAX_NS &&
	       s->preempt_off_ns + s->spin_ns + s->sleep_ns <= MDLOAD_MAX_NS;
}

/*
 * Spin until @end, preemptible: only migration is disabled.  With @yields,
 * give the CPU up every millisecond, counting the yield() calls there.
 */
static bool mdload_spin(u64 end, u32 *yields)
{
	u64 now, next_yield = ktime_get_ns() + NSEC_PER_MSEC;

	while ((now = ktime_get_ns()) < end) {
		if (fatal_signal_pending(current))
			return false;
		if (yields && now >= next_yield) {
			yield();
			(*yields)++;
			next_yield = now + NSEC_PER_MSEC;
		}
		cpu_relax();
	}
	return true;
}

static bool mdload_sleep(u64 ns)
{
	ktime_t end = ktime_add_ns(ktime_get(), ns);

	while (ktime_before(ktime_get(), end)) {
		if (fatal_signal_pending(current))
			return false;
		set_current_state(TASK_KILLABLE);
		schedule_hrtimeout(&end, HRTIMER_MODE_ABS);
	}
	return true;
}

/*
 * Sections in progress per CPU, in /sys/module/mdload/parameters/sections:
 * scripts wait on it where the kernel does not show rq->nr_pinned.
 */
static atomic_t mdload_sections[NR_CPUS];

static int mdload_sections_get(char *buf, const struct kernel_param *kp)
{
	int cpu, len = 0;

	for_each_possible_cpu(cpu)
		len += scnprintf(buf + len, PAGE_SIZE - len, "%s%d", cpu ? "," : "",
				 atomic_read(&mdload_sections[cpu]));
	return len + scnprintf(buf + len, PAGE_SIZE - len, "\n");
}

static const struct kernel_param_ops mdload_sections_ops = {
	.get = mdload_sections_get,
};
module_param_cb(sections, &mdload_sections_ops, NULL, 0444);
MODULE_PARM_DESC(sections, "Sections in progress, per CPU");

/*
 * A section's first and last moments, each taken where the task cannot be
 * preempted between it and what pins or unpins it: a task preempted there
 * would be pinned outside its logged bounds, and tests hold the kernel's
 * events against them.
 */
static void mdload_section_begin(struct mdload_section *s)
{
	s->cpu_enter = raw_smp_processor_id();
	atomic_inc(&mdload_sections[s->cpu_enter]);
	s->start_ns = ktime_get_ns();
}

static void mdload_section_end(struct mdload_section *s)
{
	s->cpu_exit = raw_smp_processor_id();
	s->elapsed_ns = ktime_get_ns() - s->start_ns;
	atomic_dec(&mdload_sections[s->cpu_exit]);
}

/*
 * At depth 0 the section is the lock's: its holder cannot move (migration
 * disabled on PREEMPT_RT, preemption elsewhere).
 */
static void mdload_run_section(struct mdload_section *s)
{
	bool done = true;
	u32 i;

	preempt_disable();
	if (s->preempt_off_ns)
		done = mdload_spin(ktime_get_ns() + s->preempt_off_ns, NULL);
	for (i = 0; i < s->depth; i++)
		migrate_disable();
	if (s->depth)
		mdload_section_begin(s);
	preempt_enable();
	/* On PREEMPT_RT it may block for the lock, inside the section. */
	if (s->flags & MDLOAD_SPINLOCK)
		spin_lock(&mdload_lock);
	if (!s->depth)
		mdload_section_begin(s);

	done = done &&
	       mdload_spin(s->start_ns + s->spin_ns,
			   s->flags & MDLOAD_YIELD ? &s->yields : NULL) &&
	       mdload_sleep(s->sleep_ns);

	s->interrupted = !done;
	if (!s->depth)
		mdload_section_end(s);
	if (s->flags & MDLOAD_SPINLOCK)
		spin_unlock(&mdload_lock);
	preempt_disable();
	if (s->depth)
		mdload_section_end(s);
	for (i = 0; i < s->depth; i++)
		migrate_enable();
	preempt_enable();
}

static long mdload_section_ioctl(struct mdload_section __user *uptr)
{
	struct mdload_section s;

	if (copy_from_user(&s, uptr, sizeof(s)))
		return -EFAULT;
	if (!mdload_request_valid(&s))
		return -EINVAL;

	mdload_run_section(&s);

	if (copy_to_user(uptr, &s, sizeof(s)))
		return -EFAULT;
	return 0;
}

/* Pairs between checks for a fatal signal: the check stays out of the timing. */
#define MDLOAD_PAIRS_BATCH	4096

static void mdload_pairs_batch(u32 kind, u64 n)
{
	u64 i;

	switch (kind) {
	case MDLOAD_PAIRS_PREEMPT:
		for (i = 0; i < n; i++) {
			preempt_disable();
			preempt_enable();
		}
		break;
	case MDLOAD_PAIRS_MIGRATE:
	case MDLOAD_PAIRS_MIGRATE_NESTED:
		for (i = 0; i < n; i++) {
			migrate_disable();
			migrate_enable();
		}
		break;
	}
}

static void mdload_run_pairs(struct mdload_pairs *p)
{
	u64 start = ktime_get_ns(), n;

	if (p->kind == MDLOAD_PAIRS_MIGRATE_NESTED)
		migrate_disable();
	for (p->done = 0; p->done < p->count; p->done += n) {
		if (fatal_signal_pending(current))
			break;
		n = min_t(u64, p->count - p->done, MDLOAD_PAIRS_BATCH);
		mdload_pairs_batch(p->kind, n);
	}
	if (p->kind == MDLOAD_PAIRS_MIGRATE_NESTED)
		migrate_enable();
	p->elapsed_ns = ktime_get_ns() - start;
	p->cpu = raw_smp_processor_id();
	p->interrupted = p->done < p->count;
}

static long mdload_pairs_ioctl(struct mdload_pairs __user *uptr)
{
	struct mdload_pairs p;

	if (copy_from_user(&p, uptr, sizeof(p)))
		return -EFAULT;
	if (p.kind >= MDLOAD_NR_PAIRS_KINDS || p.reserved ||
	    !p.count || p.count > MDLOAD_MAX_PAIRS)
		return -EINVAL;

	mdload_run_pairs(&p);

	if (copy_to_user(uptr, &p, sizeof(p)))
		return -EFAULT;
	return 0;
}

static long mdload_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case MDLOAD_SECTION:
		return mdload_section_ioctl((void __user *)arg);
	case MDLOAD_PAIRS:
		return mdload_pairs_ioctl((void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations mdload_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= mdload_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice mdload_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "mdload",
	.fops	= &mdload_fops,
	.mode	= 0600,
};

module_misc_device(mdload_dev);

MODULE_DESCRIPTION("Migrate-disabled sections on request, for testing");
MODULE_LICENSE("GPL");
