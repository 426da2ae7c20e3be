// SPDX-License-Identifier: GPL-2.0
/*
 * errtrace's tracepoints (errtrace_trace.h) and the two functions the Rust
 * kit's Rust crate calls to fire them, rust_do_trace_errtrace_error()/_hop(). Rust
 * decides whether to call at all (one load and a branch, switched by the
 * reg/unreg callbacks below), then, on 6.13+, checks the tracepoint's key
 * with a static branch; on 6.12 the trace_*() call checks it.
 */
#include <linux/types.h>
#include <linux/version.h>

#define CREATE_TRACE_POINTS
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
/*
 * Also rust_do_trace_errtrace_error()/_hop(): Rust checks the tracepoints'
 * static keys itself (the kernel's Rust tracepoint support) and calls these
 * only when an event is enabled.
 */
#define CREATE_RUST_TRACE_POINTS
#endif
#include "errtrace_trace.h"

/* Implemented in Rust (errtrace_linux, tracepoints.rs): which = 0 for errors, 1 for hops. */
void errtrace_linux_tp_enabled(u32 which, bool on);

int errtrace_tp_error_reg(void)
{
	errtrace_linux_tp_enabled(0, true);
	return 0;
}

void errtrace_tp_error_unreg(void)
{
	errtrace_linux_tp_enabled(0, false);
}

int errtrace_tp_hop_reg(void)
{
	errtrace_linux_tp_enabled(1, true);
	return 0;
}

void errtrace_tp_hop_unreg(void)
{
	errtrace_linux_tp_enabled(1, false);
}

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
/*
 * Linux 6.12 has no CREATE_RUST_TRACE_POINTS: the functions it would make,
 * written out, with the same names (called from Rust, tracepoints.rs).
 */
void rust_do_trace_errtrace_error(int err, const char *name, size_t name_len,
				  const char *file, size_t file_len, u32 line,
				  const char *func, size_t func_len, u32 site,
				  u32 seq);
void rust_do_trace_errtrace_hop(int err, u32 seq, const char *file,
				size_t file_len, u32 line);

void rust_do_trace_errtrace_error(int err, const char *name, size_t name_len,
				  const char *file, size_t file_len, u32 line,
				  const char *func, size_t func_len, u32 site,
				  u32 seq)
{
	trace_errtrace_error(err, name, name_len, file, file_len, line, func,
			     func_len, site, seq);
}

void rust_do_trace_errtrace_hop(int err, u32 seq, const char *file,
				size_t file_len, u32 line)
{
	trace_errtrace_hop(err, seq, file, file_len, line);
}
#endif
