// SPDX-License-Identifier: GPL-2.0
/*
 * stale_int3: for the mdstat guest only, send a CPU back to the instruction
 * where it took an int3 that no text patch claimed, rather than die on it.
 *
 * text_poke_bp() sets its patch's reference count before it writes the
 * int3 over the first byte of the instruction, and at the end writes the
 * new first byte, makes every CPU synchronize and waits for the references
 * to drop.  A CPU that took the int3 is in poke_int3_handler() with
 * interrupts off, so the synchronization waits for it: on hardware it
 * always finds the patch.  Under QEMU's TCG (10.0.2 here) a vCPU can still
 * run a translation made while the int3 was there after the patch is
 * over: poke_int3_handler() then finds no patch, nor does kprobes.  6.1's
 * kprobe_int3_handler() (CONFIG_KPROBES) goes back over an int3 that
 * memory no longer holds ("removed right after we hit it"); 6.12's does
 * not, and the kernel dies on "int3" (seen in __schedule(), at the
 * sched_switch tracepoint, as mdstat detached).  This does what 6.1 does,
 * from the die chain.  If QEMU runs the stale translation again, the vCPU
 * loops there until guest/stale-text, on the host, ends the loop, or an
 * RCU stall panics the guest.
 *
 * The storm (guest/text-poke-storm) also showed the kernel dying on an
 * int3 that memory did hold, which poke_int3_handler() had not claimed
 * either: the patch that wrote it was still in its first synchronization,
 * waiting for that CPU, so its own int3 would have found it.  The CPU had
 * most likely run the int3 of the patch before at that branch, from a
 * stale translation, and the next patch wrote its int3 there before this
 * read memory.  Such a CPU is sent back too: taken again, the int3 finds
 * the patch, or the patch is over.  An int3 that no patch ever claims
 * comes back at once while its task stays on the CPU, so after
 * HELD_INT3_LIMIT of them in a row at one address the kernel dies on it,
 * as it would have.
 */
#include <linux/kdebug.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/uaccess.h>
#include <asm/text-patching.h>

#define HELD_INT3_LIMIT 10000

static atomic_long_t sent_back = ATOMIC_LONG_INIT(0);
/* This CPU's run of int3s taken where memory holds one, at one address. */
static DEFINE_PER_CPU(unsigned long, held_int3_addr);
static DEFINE_PER_CPU(unsigned long, held_int3_jiffies);
static DEFINE_PER_CPU(unsigned int, held_int3_count);

/* Whether an int3 that memory holds at addr has come back too often. */
static bool held_int3_too_often(unsigned long addr)
{
	unsigned long now = jiffies;

	/* A run is unbroken while the int3s come within two ticks. */
	if (__this_cpu_read(held_int3_addr) != addr ||
	    time_after(now, __this_cpu_read(held_int3_jiffies) + 1))
		__this_cpu_write(held_int3_count, 0);
	__this_cpu_write(held_int3_addr, addr);
	__this_cpu_write(held_int3_jiffies, now);
	return __this_cpu_inc_return(held_int3_count) > HELD_INT3_LIMIT;
}
NOKPROBE_SYMBOL(held_int3_too_often);

static int stale_int3_notify(struct notifier_block *nb, unsigned long val, void *data)
{
	struct die_args *args = data;
	unsigned long addr;
	u8 opcode;

	if (val != DIE_INT3 || !args->regs || user_mode(args->regs))
		return NOTIFY_DONE;
	addr = args->regs->ip - INT3_INSN_SIZE;
	if (copy_from_kernel_nofault(&opcode, (void *)addr, 1))
		return NOTIFY_DONE;
	if (opcode == INT3_INSN_OPCODE && held_int3_too_often(addr))
		return NOTIFY_DONE;
	args->regs->ip = addr;
	atomic_long_inc(&sent_back);
	pr_warn_ratelimited("stale_int3: %pS %s: sent back to it\n", (void *)addr,
			    opcode == INT3_INSN_OPCODE ? "holds an int3 that no patch claimed" :
			    "holds no int3, the CPU took one there (QEMU's stale translation)");
	return NOTIFY_STOP;
}
NOKPROBE_SYMBOL(stale_int3_notify);

static struct notifier_block stale_int3_nb = {
	.notifier_call = stale_int3_notify,
	/* After do_int3()'s kprobes check and the notifiers registered before. */
	.priority = INT_MIN,
};

static int sent_back_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&sent_back));
}

static int sent_back_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops sent_back_ops = {
	.get = sent_back_get,
	.set = sent_back_set,
};
module_param_cb(sent_back, &sent_back_ops, NULL, 0444);
MODULE_PARM_DESC(sent_back, "CPUs sent back over an int3 that no patch claimed");

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
MODULE_DESCRIPTION("Send a CPU back over an int3 that kernel text no longer holds (QEMU TCG guests)");
MODULE_LICENSE("GPL");
