# SPDX-License-Identifier: GPL-2.0
# errtrace for an out-of-tree (or in-tree) kernel module: include this file from
# the module's Kbuild, after naming the module and its objects. kernel/kit/setup.sh
# puts it, with errtrace's source and its Linux glue, in the module's errtrace/:
#
#   obj-m := sensor.o
#   sensor-y := sensor_main.o
#   ERRTRACE_MODULE := sensor          # the module that links errtrace
#   ERRTRACE_USERS := sensor_main.o    # its Rust objects that use errtrace
#   include $(src)/errtrace/errtrace.mk
#
# It adds to the module: errtrace/core/errtrace.o (crate `errtrace`, no_std),
# errtrace/linux/errtrace_linux.o (crate `errtrace_linux`, the glue), and the
# glue's C (glue.c, shard.c, defer.c, and with the tracepoints errtrace_tp.c).
# Optional, before the include:
#   ERRTRACE_FEATURES     errtrace's features (default: tracepoints dyndbg; add
#                         control for errtrace's own query language, macros for
#                         #[errtrace::trace], which also needs the two below);
#   ERRTRACE_MACROS_SO, ERRTRACE_MACROS_LIB: the proc-macro crate errtrace-macros
#                         built for the host with the kernel's rustc, and its crate
#                         name (errtrace_macros): RUSTC=<the tree's rustc> cargo build
#                         --release -p errtrace-macros gives target/release/
#                         liberrtrace_macros.so;
#   ERRTRACE_TRACE_SYSTEM the tracepoints' system (default: the module's name);
#   ERRTRACE_LOCATION_SITES, _RECORDER_SLOTS, _COUNTED_SITES, _RECORDER_SHARDS,
#   _EXPECT_CONTEXTS, _STANDING_BYTES, _FAIL_CONFIGS: capacities (defaults below,
#                         sized for a driver; the environment may set them too);
#   ERRTRACE_CORE_REL, ERRTRACE_MODULE_REL: paths printed for errtrace's and the
#                         module's files in origins (default: as compiled).

ifeq ($(ERRTRACE_MODULE),)
$(error errtrace.mk: set ERRTRACE_MODULE (the module that links errtrace) before including it)
endif
ifeq ($(ERRTRACE_USERS),)
$(error errtrace.mk: set ERRTRACE_USERS (the module's Rust objects that use errtrace) before including it)
endif
# errtrace's objects join the module's, so the module is made of several objects and
# none of them may have the module's own name (Kbuild would then build only that one).
ifneq ($(filter $(ERRTRACE_MODULE).o,$(ERRTRACE_USERS) $($(ERRTRACE_MODULE)-y)),)
$(error errtrace.mk: $(ERRTRACE_MODULE).o is the module itself: rename the source (e.g. $(ERRTRACE_MODULE)_main.rs) and write $(ERRTRACE_MODULE)-y := $(ERRTRACE_MODULE)_main.o)
endif
et := errtrace
ERRTRACE_FEATURES ?= tracepoints dyndbg
# A trace system's name is pasted into C identifiers: no `-` (a module may have one).
ERRTRACE_TRACE_SYSTEM ?= $(subst -,_,$(ERRTRACE_MODULE))
ERRTRACE_MACROS_LIB ?= errtrace_macros

$(ERRTRACE_MODULE)-y += $(et)/core/errtrace.o $(et)/linux/errtrace_linux.o \
	$(et)/glue.o $(et)/shard.o $(et)/defer.o \
	$(if $(filter tracepoints,$(ERRTRACE_FEATURES)),$(et)/errtrace_tp.o)

# Capacities sized for a driver (the core's own defaults are for user space). The
# sizes these give are in the kernel chapter of the guide.
export ERRTRACE_LOCATION_SITES ?= 32
export ERRTRACE_RECORDER_SLOTS ?= 32
export ERRTRACE_COUNTED_SITES ?= 32
export ERRTRACE_RECORDER_SHARDS ?= 4
export ERRTRACE_EXPECT_CONTEXTS ?= 4
export ERRTRACE_STANDING_BYTES ?= 512
export ERRTRACE_FAIL_CONFIGS ?= 8

errtrace_cfgs := $(foreach f,$(ERRTRACE_FEATURES),--cfg 'feature="$(f)"')
errtrace_rmeta := $(obj)/$(et)/core/liberrtrace.rmeta
errtrace_linux_rmeta := $(obj)/$(et)/linux/liberrtrace_linux.rmeta
errtrace_macros := $(if $(ERRTRACE_MACROS_SO),--extern $(ERRTRACE_MACROS_LIB)=$(ERRTRACE_MACROS_SO))
errtrace_externs := --extern errtrace=$(errtrace_rmeta) --extern errtrace_linux=$(errtrace_linux_rmeta) \
	$(if $(ERRTRACE_MACROS_SO),$(errtrace_macros) -L dependency=$(dir $(ERRTRACE_MACROS_SO)))

# The core is compiled for size (the last -Copt-level wins): what stays in its
# object is the error path's cold side; its hot paths are #[inline] and compile
# into the callers at the kernel's level. Kbuild injects #![no_std]
# (-Zcrate-attr=no_std), so the crate's own is an unused duplicate: allowed.
RUSTFLAGS_$(et)/core/errtrace.o := --emit=metadata=$(errtrace_rmeta) $(errtrace_macros) \
	-Aunused_attributes -Copt-level=s $(errtrace_cfgs)
# A crate that uses errtrace finds the proc-macro crate errtrace re-exports through the search
# path, not through --extern (with --extern alone: "can't find crate for `errtrace`").
RUSTFLAGS_$(et)/linux/errtrace_linux.o := --emit=metadata=$(errtrace_linux_rmeta) \
	--extern errtrace=$(errtrace_rmeta) $(errtrace_cfgs) \
	$(if $(ERRTRACE_MACROS_SO),-L dependency=$(dir $(ERRTRACE_MACROS_SO)))
$(obj)/$(et)/linux/errtrace_linux.o: $(obj)/$(et)/core/errtrace.o
$(foreach u,$(ERRTRACE_USERS),$(eval RUSTFLAGS_$(u) += $(errtrace_externs)))
$(addprefix $(obj)/,$(ERRTRACE_USERS)): $(obj)/$(et)/linux/errtrace_linux.o

# The crates' metadata are side outputs of their objects: `make clean` removes them too.
clean-files += $(et)/core/liberrtrace.rmeta $(et)/linux/liberrtrace_linux.rmeta

# errtrace_trace.h is included by define_trace.h from TRACE_INCLUDE_PATH (.).
CFLAGS_$(et)/errtrace_tp.o := -I$(src)/$(et) -DERRTRACE_TRACE_SYSTEM=$(ERRTRACE_TRACE_SYSTEM)

# The kernel crate's API grew after 6.12 (Device::from_raw, Rust tracepoints):
# errtrace_linux and the module's sources use the newer forms under cfg(linux_6_13).
errtrace_6_13 := $(shell test $(VERSION) -gt 6 -o \( $(VERSION) -eq 6 -a $(PATCHLEVEL) -ge 13 \) && echo y)
rustflags-y += $(if $(errtrace_6_13),--cfg linux_6_13)

# Origins print repository-relative paths instead of the build directory's. Since
# 6.13 an external module is compiled from its own directory ($(obj) is `.`).
errtrace_obj := $(if $(filter .,$(obj)),,$(obj)/)
ifneq ($(ERRTRACE_MODULE_REL),)
rustflags-y += --remap-path-prefix=$(errtrace_obj)=$(ERRTRACE_MODULE_REL)/
endif
ifneq ($(ERRTRACE_CORE_REL),)
rustflags-y += --remap-path-prefix=$(errtrace_obj)$(et)/core/=$(ERRTRACE_CORE_REL)/ \
	--remap-path-prefix=$(errtrace_obj)$(et)/core/errtrace.rs=$(ERRTRACE_CORE_REL)/lib.rs
endif

# The kernel crate's generated sources belong to the kernel tree. Since 6.13 an
# external module's $(obj) is `.`, so Kbuild's rule `$(obj)/%.rs: $(obj)/%.rs.S`
# matches any .rs, those in the tree too: an incremental module build would run
# RSCPP on them (the static branches' asm, a dependency of every dynamic_debug
# site) and write into the tree. These rules say they are up to date.
$(abspath $(objtree))/rust/kernel/generated_arch_static_branch_asm.rs \
$(abspath $(objtree))/rust/kernel/generated_arch_warn_asm.rs \
$(abspath $(objtree))/rust/kernel/generated_arch_reachable_asm.rs: ;
