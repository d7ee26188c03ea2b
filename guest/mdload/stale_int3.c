// SPDX-License-Identifier: GPL-2.0
/*
 * stale_int3: for the mdstat guest only, run again an int3 that kernel text
 * no longer holds, rather than die on it.
 *
 * text_poke_bp() puts an int3 on the first byte of the instruction it
 * patches, and makes every CPU synchronize before it takes the int3 away; a
 * CPU that met the int3 holds that off, interrupts disabled, until
 * poke_int3_handler() has found the patch.  Under QEMU's TCG (10.0.2 here)
 * a vCPU can still run a translation made while the int3 was there after
 * the patch is over: poke_int3_handler() then finds no patch, nor does
 * kprobes.  6.1's kprobe_int3_handler() goes back over such an int3
 * ("removed right after we hit it"); 6.12's does not, and the kernel dies
 * on "int3" (seen in __schedule(), at the sched_switch tracepoint, as mdstat
 * detached).  This does what 6.1 does, last on the die chain.  If QEMU runs
 * the stale translation again, the vCPU loops there until guest/stale-text,
 * on the host, ends the loop.
 */
#include <linux/kdebug.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/uaccess.h>
#include <asm/text-patching.h>

static atomic_long_t reruns = ATOMIC_LONG_INIT(0);

static int stale_int3_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	struct die_args *args = data;
	struct pt_regs *regs = args->regs;
	unsigned long addr = regs->ip - INT3_INSN_SIZE;
	u8 opcode;

	if (val != DIE_INT3 || user_mode(regs))
		return NOTIFY_DONE;
	/* An int3 that memory still holds is nobody's: let the kernel die. */
	if (copy_from_kernel_nofault(&opcode, (void *)addr, 1) || opcode == INT3_INSN_OPCODE)
		return NOTIFY_DONE;
	regs->ip = addr;
	atomic_long_inc(&reruns);
	pr_warn_ratelimited("stale_int3: %pS held no int3 when the CPU ran one (QEMU's stale translation): run again\n",
			    (void *)addr);
	return NOTIFY_STOP;
}

static struct notifier_block stale_int3_nb = {
	.notifier_call = stale_int3_notify,
	/* After kprobes' and kgdb's notifiers: only what nobody claims. */
	.priority = INT_MIN,
};

static int reruns_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&reruns));
}

static const struct kernel_param_ops reruns_ops = { .get = reruns_get };
module_param_cb(reruns, &reruns_ops, NULL, 0444);
MODULE_PARM_DESC(reruns, "int3s run again because memory no longer held them");

static int __init stale_int3_init(void)
{
	return register_die_notifier(&stale_int3_nb);
}

static void __exit stale_int3_exit(void)
{
	unregister_die_notifier(&stale_int3_nb);
}

module_init(stale_int3_init);
module_exit(stale_int3_exit);
MODULE_DESCRIPTION("Run again an int3 that kernel text no longer holds (QEMU TCG guests)");
MODULE_LICENSE("GPL");
