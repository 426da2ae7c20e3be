/* SPDX-License-Identifier: GPL-2.0 */
/*
 * errtrace's tracepoints: errtrace:errtrace_error when an error is made,
 * errtrace:errtrace_hop when a hop is recorded. Defined in errtrace_tp.c,
 * fired from Rust (errtrace_linux, tracepoints.rs) through errtrace_tp_error()/errtrace_tp_hop().
 *
 * Rust strings are not NUL-terminated: every string comes as pointer and
 * length and is copied with __string_len().
 *
 * The events' reg/unreg callbacks tell errtrace (errtrace_linux_tp_enabled(),
 * in Rust) when the first probe attaches and the last one leaves, so that
 * with nobody tracing, making an error costs errtrace one load and a branch.
 */
/*
 * The event system: errtrace, unless the Kbuild file names another
 * (-DERRTRACE_TRACE_SYSTEM=...): each copy of errtrace in the kernel registers
 * its events under its own system (events/<system>/errtrace_error), so copies
 * in several modules, or built in beside a module, do not clash in tracefs.
 */
#undef TRACE_SYSTEM
#ifdef ERRTRACE_TRACE_SYSTEM
#define TRACE_SYSTEM ERRTRACE_TRACE_SYSTEM
#else
#define TRACE_SYSTEM errtrace
#endif

#if !defined(_ERRTRACE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _ERRTRACE_TRACE_H

#include <linux/tracepoint.h>

int errtrace_tp_error_reg(void);
void errtrace_tp_error_unreg(void);
int errtrace_tp_hop_reg(void);
void errtrace_tp_hop_unreg(void);

TRACE_EVENT_FN(errtrace_error,

	TP_PROTO(int err, const char *name, size_t name_len,
		 const char *file, size_t file_len, u32 line,
		 const char *func, size_t func_len, u32 site, u32 seq),

	TP_ARGS(err, name, name_len, file, file_len, line, func, func_len,
		site, seq),

	TP_STRUCT__entry(
		__field(int, err)
		__string_len(name, name, name_len)
		__string_len(file, file, file_len)
		__field(u32, line)
		__string_len(func, func, func_len)
		__field(u32, site)
		__field(u32, seq)
	),

	TP_fast_assign(
		__entry->err = err;
		__assign_str(name);
		__assign_str(file);
		__entry->line = line;
		__assign_str(func);
		__entry->site = site;
		__entry->seq = seq;
	),

	/* An error made by a #[track_caller] constructor has no function name. */
	TP_printk("%s (%d) at %s:%u%s%s site=%u seq=%u",
		  __get_str(name), __entry->err, __get_str(file),
		  __entry->line, __get_str(func)[0] ? " in " : "",
		  __get_str(func), __entry->site, __entry->seq),

	errtrace_tp_error_reg, errtrace_tp_error_unreg
);

TRACE_EVENT_FN(errtrace_hop,

	TP_PROTO(int err, u32 seq, const char *file, size_t file_len, u32 line),

	TP_ARGS(err, seq, file, file_len, line),

	TP_STRUCT__entry(
		__field(int, err)
		__field(u32, seq)
		__string_len(file, file, file_len)
		__field(u32, line)
	),

	TP_fast_assign(
		__entry->err = err;
		__entry->seq = seq;
		__assign_str(file);
		__entry->line = line;
	),

	TP_printk("seq=%u err=%d via %s:%u", __entry->seq, __entry->err,
		  __get_str(file), __entry->line),

	errtrace_tp_hop_reg, errtrace_tp_hop_unreg
);

#endif /* _ERRTRACE_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE errtrace_trace
#include <trace/define_trace.h>
