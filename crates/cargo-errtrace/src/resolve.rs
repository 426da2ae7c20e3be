//! The whole-tree index of functions, and call resolution by name and path.
//!
//! With the compiler's facts ([`crate::facts`], `--facts DIR`) a call is what the compiler
//! resolved it to: [`Index::resolve`] looks it up there first, and uses the rules below only
//! for calls the facts do not hold (a crate built without `errtrace-rustc`, code the build's
//! `cfg` left out).
//!
//! Without them resolution is syntactic: no type inference, no trait solving, no macro
//! expansion.
//! - `f(…)`: a free function `f` in the caller's module, else the only free `f` in the
//!   caller's crate. A `use` in the caller's file that names `f` is followed first.
//! - `a::b::f(…)`, `Type::f(…)`, `Trait::f(…)`: functions named `f` whose crate / module /
//!   implementing type / trait path ends with the written qualifier (`crate`, `self`,
//!   `super` dropped, `Self` replaced by the enclosing impl's type); the caller's crate is
//!   preferred; more than one match is ambiguous.
//! - `self.m(…)`: methods `m` of the enclosing impl's type (any impl block of that type
//!   name in the crate, then the whole tree), then default methods of the implemented trait.
//! - `T::m(…)` with `T` a generic parameter, `Trait::m(…)`, `Self::m(…)` in a trait's
//!   default method: every trait-impl method `m` (and the trait's default), up to
//!   [`MAX_DISPATCH`]; the error can come from any of them.
//! - `x.m(…)` on any other receiver: resolved when exactly one method named `m` exists in
//!   the whole tree; when every one in the caller's crate implements the same trait (a call
//!   through `&dyn Trait`, or on a type the syntax cannot tell, such as a HAL object chosen
//!   by chip), every implementation, up to [`MAX_DISPATCH`].

use std::collections::{HashMap, HashSet};

use errtrace_facts::Dispatch;

use crate::facts::{FactTarget, Facts};
use crate::model::{Callee, FileSummary, FnSummary, Ret};

/// Most implementations a trait dispatch is followed into.
pub const MAX_DISPATCH: usize = 16;

/// A function's id: index into [`Index::fns`].
pub type FnId = u32;

/// The result of resolving a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// Exactly one in-tree function.
    Resolved(FnId),
    /// Dispatch through a trait (`T::m` with `T` generic, `Trait::m`, `Self::m` in a trait's
    /// default method): any of these implementations (at most [`MAX_DISPATCH`]).
    Many(Vec<FnId>),
    /// Several in-tree candidates and no rule picks one.
    Ambiguous(usize),
    /// No in-tree function of that name and path: outside the analysed tree.
    NotFound,
    /// The compiler resolved it to a function that a macro in the tree made, whose body the
    /// audit does not read: what it is (its path and the macro call).
    MadeByMacro(String),
}

/// Index over all functions of all files.
pub struct Index<'a> {
    /// All summaries.
    pub files: &'a [FileSummary],
    /// (file index, function index) per id.
    pub fns: Vec<(u32, u32)>,
    by_name: HashMap<&'a str, Vec<FnId>>,
    result_names: HashSet<String>,
    aliases: HashMap<&'a str, &'a str>,
    /// `static`/`const` name → (file index, declared type as written).
    statics: HashMap<&'a str, Vec<(u32, &'a str)>>,
    /// (struct, field) → (file index, the field's declared type as written).
    struct_fields: HashMap<(&'a str, &'a str), Vec<(u32, &'a str)>>,
    /// Iterator type → (file index, its item's value type as written).
    iter_items: HashMap<&'a str, Vec<(u32, &'a str)>>,
    uses: Vec<HashMap<&'a str, &'a [String]>>,
    /// Per file: the crates its `use` items name (first path segments).
    imported_crates: Vec<HashSet<&'a str>>,
    /// (crate root, trait) for every trait a crate declares.
    crate_traits: HashSet<(&'a str, &'a str)>,
    /// (module a file's path names, trait) → the files that declare it (`rust/kernel/platform.rs`:
    /// `("platform", "Driver")`).
    module_traits: HashMap<(&'a str, &'a str), Vec<(u32, &'a str)>>,
    /// (crate root, method) for every method a crate's traits declare.
    crate_trait_methods: HashSet<(&'a str, &'a str)>,
    /// What the compiler resolved, when given.
    facts: Option<&'a Facts>,
    /// (file, line of the name, name) → functions: how the facts name a function (a macro
    /// that stamps one `impl` into several types makes several at one position).
    by_position: HashMap<(&'a str, u32, &'a str), Vec<FnId>>,
}

impl<'a> Index<'a> {
    /// Build the index, with the compiler's facts when there are some.
    pub fn new(files: &'a [FileSummary], facts: Option<&'a Facts>) -> Index<'a> {
        let mut fns = Vec::new();
        let mut by_name: HashMap<&'a str, Vec<FnId>> = HashMap::new();
        let mut uses = Vec::with_capacity(files.len());
        let mut imported_crates = Vec::with_capacity(files.len());
        let mut by_position = HashMap::new();
        for (fi, f) in files.iter().enumerate() {
            for (ni, func) in f.functions.iter().enumerate() {
                let id = fns.len() as FnId;
                fns.push((fi as u32, ni as u32));
                by_name.entry(func.name.as_str()).or_default().push(id);
                if facts.is_some() {
                    by_position
                        .entry((f.path.as_str(), func.pos.line, func.name.as_str()))
                        .or_insert_with(Vec::new)
                        .push(id);
                }
            }
            let mut m: HashMap<&'a str, &'a [String]> = HashMap::new();
            let mut crates: HashSet<&'a str> = HashSet::new();
            for (name, path) in &f.uses {
                if name != "*" {
                    m.insert(name.as_str(), path.as_slice());
                }
                if let Some(first) = path.first() {
                    crates.insert(first.as_str());
                }
            }
            uses.push(m);
            imported_crates.push(crates);
        }
        // `Result` and every alias that (transitively) names it.
        let mut result_names: HashSet<String> = HashSet::new();
        result_names.insert("Result".to_string());
        let alias_list: Vec<&(String, String)> = files.iter().flat_map(|f| f.type_aliases.iter()).collect();
        for _ in 0..8 {
            let mut changed = false;
            for (alias, target) in &alias_list {
                if result_names.contains(target.as_str()) && !result_names.contains(alias.as_str()) {
                    result_names.insert(alias.clone());
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let aliases: HashMap<&'a str, &'a str> = files
            .iter()
            .flat_map(|f| f.type_aliases.iter())
            .map(|(a, t)| (a.as_str(), t.as_str()))
            .collect();
        let statics = declarations(files, |f| {
            f.statics.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect()
        });
        let struct_fields = declarations(files, |f| {
            f.struct_fields
                .iter()
                .map(|(s, field, t)| ((s.as_str(), field.as_str()), t.as_str()))
                .collect()
        });
        let iter_items = declarations(files, |f| {
            f.iter_items
                .iter()
                .map(|(i, t)| (i.as_str(), t.as_str()))
                .collect()
        });
        let crate_traits = files
            .iter()
            .flat_map(|f| f.traits.iter().map(move |t| (f.crate_root.as_str(), t.as_str())))
            .collect();
        let module_traits = declarations(files, |f| match file_module(&f.path) {
            Some(m) => f.traits.iter().map(|t| ((m, t.as_str()), t.as_str())).collect(),
            None => Vec::new(),
        });
        let crate_trait_methods = files
            .iter()
            .flat_map(|f| {
                f.trait_methods
                    .iter()
                    .map(move |m| (f.crate_root.as_str(), m.as_str()))
            })
            .collect();
        Index {
            files,
            crate_traits,
            module_traits,
            crate_trait_methods,
            fns,
            by_name,
            result_names,
            aliases,
            statics,
            struct_fields,
            iter_items,
            uses,
            imported_crates,
            facts,
            by_position,
        }
    }

    /// The function of an id.
    pub fn func(&self, id: FnId) -> Option<&'a FnSummary> {
        let (fi, ni) = *self.fns.get(id as usize)?;
        self.files.get(fi as usize)?.functions.get(ni as usize)
    }

    /// The file of an id.
    pub fn file_of(&self, id: FnId) -> Option<&'a FileSummary> {
        let (fi, _) = *self.fns.get(id as usize)?;
        self.files.get(fi as usize)
    }

    /// Whether file number `fi` uses the crate named `name`: a `use` of it, or (for the kernel
    /// crate) a `kernel::` path written out.
    pub fn file_uses_crate(&self, fi: usize, name: &str) -> bool {
        self.imported_crates.get(fi).is_some_and(|c| c.contains(name))
            || name == "kernel" && self.files.get(fi).is_some_and(|f| f.uses_kernel)
    }

    /// Does this return type name `Result` or a `Result` alias?
    pub fn is_result(&self, ret: &Ret) -> bool {
        matches!(ret, Ret::Named(n) if self.result_names.contains(n))
    }

    /// Does function `id` return `Result`?
    pub fn returns_result(&self, id: FnId) -> bool {
        self.func(id).is_some_and(|f| self.is_result(&f.ret))
    }

    /// Whether `id` can return an error at all: it has a place where one leaves (a `?`, a
    /// returned `Err` or call), or it is a trait's default method (an implementation may
    /// fail). A function whose body only returns `Ok` cannot.
    pub fn can_fail(&self, id: FnId) -> bool {
        // A trait's default method: an implementer may override it with one that fails.
        self.func(id)
            .is_some_and(|f| !f.sites.is_empty() || f.owner.is_some() && f.owner == f.trait_name)
    }

    /// Whether the call `callee` in `caller` goes to the implementer of a trait that the
    /// caller's own crate declares, with no implementation in the tree (`T::init(…)` in the
    /// kernel crate's cpufreq adapter, `T: cpufreq::Driver`): that code is the crate's user's,
    /// and so is its error (audited with the crate, it is resolved there).
    pub fn implementer_outside(&self, callee: &Callee, caller: FnId) -> bool {
        let Some(cfile) = self.file_of(caller) else {
            return false;
        };
        // `….data().sm_step_map(…)` on a receiver not typed: a method only this crate's traits
        // declare, with no body in the tree.
        if let Callee::Method(m) = callee {
            let declared = self
                .crate_trait_methods
                .contains(&(cfile.crate_root.as_str(), m.as_str()));
            // Only a method (it takes `self`) can be the one called.
            let methods = self
                .candidates(m)
                .iter()
                .any(|c| self.func(*c).is_some_and(|f| f.has_self));
            return declared && !methods;
        }
        let Callee::Generic(_, m, bounds) = callee else {
            return false;
        };
        let own_trait = |t: &String| {
            self.crate_traits
                .contains(&(cfile.crate_root.as_str(), t.as_str()))
        };
        // An implementation that can be of this crate's trait: in this crate, or in one that
        // uses it.
        let sees_crate = |c: FnId| {
            self.fns.get(c as usize).is_some_and(|&(fi, _)| {
                self.file_of(c).is_some_and(|f| f.crate_root == cfile.crate_root)
                    || self.file_uses_crate(fi as usize, &cfile.crate_name)
            })
        };
        let implemented = self.candidates(m).iter().any(|c| {
            self.func(*c).is_some_and(|f| {
                f.owner != f.trait_name && f.trait_name.as_ref().is_some_and(|t| bounds.contains(t))
            }) && sees_crate(*c)
        });
        !implemented && bounds.iter().any(own_trait)
    }

    /// Can code in `caller`'s file call `cand`? Same crate, or a crate the file's `use` items
    /// (or the written path, `named`) mention.
    fn visible(&self, cand: FnId, caller: FnId, named: &[&str]) -> bool {
        let (Some(cf), Some(tf)) = (self.file_of(caller), self.file_of(cand)) else {
            return false;
        };
        if cf.crate_root == tf.crate_root {
            return true;
        }
        let fi = self
            .fns
            .get(caller as usize)
            .map(|x| x.0 as usize)
            .unwrap_or(usize::MAX);
        named.first().is_some_and(|n| *n == tf.crate_name)
            || self
                .imported_crates
                .get(fi)
                .is_some_and(|c| c.contains(tf.crate_name.as_str()))
    }

    /// An implementation of a trait that only shares its name with the caller's bound: the
    /// bound names the caller's module's own trait (`T: Driver` in `net/phy.rs`, no `use` of
    /// another `Driver`), and the implementation's trait is written in, or imported from,
    /// another module (`impl platform::Driver for Sensor`). Unknown either way (a glob import),
    /// it is not excluded.
    fn other_modules_trait(&self, cand: FnId, caller: FnId) -> bool {
        let (Some(cf), Some(tf)) = (self.func(caller), self.func(cand)) else {
            return false;
        };
        let Some(name) = tf.trait_name.as_deref() else {
            return false;
        };
        let Some(caller_module) = cf.module.last() else {
            return false;
        };
        let caller_file = self.file_index(caller);
        if self.expand_use_in(caller_file, &[name]).len() > 1 {
            return false;
        }
        let cand_file = self.file_index(cand);
        let written: Vec<&str> = tf.trait_path.iter().map(String::as_str).collect();
        let full = self.expand_use_in(cand_file, &written);
        let Some(qualifier) = full.len().checked_sub(2).and_then(|i| full.get(i)) else {
            return false;
        };
        if qualifier == caller_module {
            return false;
        }
        // The qualifier is a file of the tree that declares a trait of that name
        // (`rust/kernel/platform.rs` and its `Driver`), not the caller's file: a module inside
        // the caller's file (`private::FromStrRadix`) or one the tree does not hold stays.
        self.module_traits
            .get(&(*qualifier, name))
            .is_some_and(|files| files.iter().any(|(fi, _)| *fi != caller_file))
    }

    /// The index of the file that holds function `f`.
    fn file_index(&self, f: FnId) -> u32 {
        self.fns.get(f as usize).map(|x| x.0).unwrap_or(0)
    }

    /// For trait dispatch: either crate may name the other (the implementing crate usually
    /// depends on the crate that calls through the trait, as drivers depend on `kernel`).
    fn related(&self, cand: FnId, caller: FnId) -> bool {
        self.visible(cand, caller, &[]) || self.visible(caller, cand, &[])
    }

    /// `segs` as written in `caller`'s file, with its first segment replaced by what a `use`
    /// of that file imports under that name (`Registration` → `kernel::driver::Registration`).
    pub fn expand_use<'s>(&'s self, segs: &'s [String], caller: FnId) -> Vec<&'s str> {
        let file_idx = self.file_index(caller);
        let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
        self.expand_use_in(file_idx, &segs)
    }

    /// `segs` as written in file `file_idx`, its first segment replaced by what a `use` of
    /// that file imports under that name.
    fn expand_use_in<'s>(&'s self, file_idx: u32, segs: &[&'s str]) -> Vec<&'s str> {
        let imported = segs
            .first()
            .and_then(|first| self.uses.get(file_idx as usize)?.get(first));
        match imported {
            Some(path) => path
                .iter()
                .map(String::as_str)
                .chain(segs.iter().skip(1).copied())
                .collect(),
            None => segs.to_vec(),
        }
    }

    /// Those of `cands` in the same crate as `caller`.
    fn in_crate_of(&self, cands: &[FnId], caller: FnId) -> Vec<FnId> {
        let crate_root = self.file_of(caller).map(|f| f.crate_root.as_str());
        cands
            .iter()
            .copied()
            .filter(|c| self.file_of(*c).map(|f| f.crate_root.as_str()) == crate_root)
            .collect()
    }

    /// The functions named `name` in the caller's crate, when there are some and every one of
    /// them returns `Result`: whichever a call by that name reaches, it can fail in-tree.
    pub fn all_in_crate_return_result(&self, name: &str, caller: FnId) -> Option<Vec<FnId>> {
        let same = self.in_crate_of(self.candidates(name), caller);
        (!same.is_empty() && same.iter().all(|&c| self.returns_result(c))).then_some(same)
    }

    fn candidates(&self, name: &str) -> &[FnId] {
        self.by_name.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    fn pick(&self, cands: Vec<FnId>, caller: FnId) -> Resolution {
        match cands.len() {
            0 => Resolution::NotFound,
            1 => Resolution::Resolved(cands[0]),
            n => {
                let (cfile, _) = self.fns.get(caller as usize).copied().unwrap_or((u32::MAX, 0));
                let same_crate = self.in_crate_of(&cands, caller);
                if same_crate.len() == 1 {
                    return Resolution::Resolved(same_crate[0]);
                }
                let same_file: Vec<FnId> = cands
                    .iter()
                    .copied()
                    .filter(|c| self.fns.get(*c as usize).map(|x| x.0) == Some(cfile))
                    .collect();
                if same_file.len() == 1 {
                    return Resolution::Resolved(same_file[0]);
                }
                // One function written more than once in a file, for different `#[cfg]`s or
                // different impls of one type (`impl Scope<T>` with and without
                // `CONFIG_DEBUG_FS`): whichever is built, it is one of these.
                if (2..=MAX_DISPATCH).contains(&same_file.len()) && self.same_path(&same_file) {
                    return Resolution::Many(same_file);
                }
                Resolution::Ambiguous(n)
            }
        }
    }

    /// Whether the functions have one owner and one name (the same path).
    fn same_path(&self, fns: &[FnId]) -> bool {
        let key = |id: FnId| self.func(id).map(|f| (f.owner.clone(), f.name.clone()));
        let first = fns.first().and_then(|&id| key(id));
        first.is_some() && fns.iter().all(|&id| key(id) == first)
    }

    /// Resolve a call made in function `caller`, used at line `line` (the `?`, `return` or
    /// statement): as the compiler did when its facts hold the call, else by syntax.
    pub fn resolve(&self, callee: &Callee, caller: FnId, line: u32) -> Resolution {
        match self.by_compiler(callee, caller, line) {
            Some(r) => r,
            None => self.by_syntax(callee, caller),
        }
    }

    /// The compiler's resolution of the call, from the facts.
    fn by_compiler(&self, callee: &Callee, caller: FnId, line: u32) -> Option<Resolution> {
        let facts = self.facts?;
        let cf = self.func(caller)?;
        let cfile = self.file_of(caller)?;
        let qualifier = match callee {
            Callee::Path(segs) if segs.len() > 1 => segs.get(segs.len() - 2).map(String::as_str),
            _ => None,
        };
        let call = facts.call(&cfile.path, cf.pos.line, callee.name(), line, qualifier)?;
        let mut ids: Vec<FnId> = Vec::new();
        let mut unread = None;
        for t in &call.targets {
            let FactTarget::InTree {
                file,
                line,
                name,
                owner,
                path,
                made_by_macro,
            } = t
            else {
                continue;
            };
            let at: &[FnId] = self
                .by_position
                .get(&(file.as_str(), *line, name.as_str()))
                .map_or(&[], Vec::as_slice);
            // Several functions at one position (a macro stamping one `impl` into several
            // types): the one whose `impl` names the compiler's type. The owner is only
            // compared then: an `impl` may name the type through an alias
            // (`impl AsSlotManager` for `SlotManager<…>`).
            let found: Vec<FnId> = if at.len() > 1 && owner.is_some() {
                at.iter()
                    .copied()
                    .filter(|&id| self.func(id).is_some_and(|f| f.owner == *owner))
                    .collect()
            } else {
                at.to_vec()
            };
            if found.is_empty() {
                // In the tree, but not a function the audit read: made by a macro it does not
                // expand, or written inside a macro's definition.
                unread.get_or_insert_with(|| match made_by_macro {
                    Some(m) => format!("`{path}`, made by the macro called at {m}"),
                    None => format!("`{path}` at {file}:{line}, inside a macro"),
                });
            }
            ids.extend(found);
        }
        // Through `dyn Trait` or a generic parameter the compiler lists the implementations the
        // calling crate can see; those in crates that depend on it (the drivers implementing a
        // trait of the kernel crate) are added from the tree.
        if let (Dispatch::Dynamic | Dispatch::Generic, Some(tr)) = (call.dispatch, &call.via_trait) {
            ids.extend(self.candidates(callee.name()).iter().copied().filter(|&c| {
                self.related(c, caller)
                    && self.func(c).is_some_and(|f| {
                        f.trait_name.as_deref() == Some(tr.as_str()) && f.owner != f.trait_name
                    })
            }));
        }
        ids.sort_unstable();
        ids.dedup();
        ids.truncate(MAX_DISPATCH);
        Some(match ids.as_slice() {
            [] => unread.map_or(Resolution::NotFound, Resolution::MadeByMacro),
            // One candidate, however chosen: as the syntax says of a single one.
            [one] => Resolution::Resolved(*one),
            _ => Resolution::Many(ids),
        })
    }

    /// Resolve a call by its name and path, as the syntax tells.
    fn by_syntax(&self, callee: &Callee, caller: FnId) -> Resolution {
        let Some(cf) = self.func(caller) else {
            return Resolution::NotFound;
        };
        let Some(cfile) = self.file_of(caller) else {
            return Resolution::NotFound;
        };
        match callee {
            Callee::Path(segs) => self.resolve_path(segs, caller, cf, cfile),
            Callee::SelfMethod(m) => {
                let cands = self.candidates(m);
                if let Some(owner) = &cf.owner {
                    let own: Vec<FnId> = cands
                        .iter()
                        .copied()
                        .filter(|c| self.func(*c).is_some_and(|f| f.owner.as_ref() == Some(owner)))
                        .filter(|c| self.visible(*c, caller, &[]))
                        .collect();
                    if !own.is_empty() {
                        return self.pick(own, caller);
                    }
                }
                if let Some(t) = &cf.trait_name {
                    let defaults: Vec<FnId> = cands
                        .iter()
                        .copied()
                        .filter(|c| {
                            self.func(*c).is_some_and(|f| {
                                f.owner.as_ref() == Some(t) && f.trait_name.as_ref() == Some(t)
                            })
                        })
                        .collect();
                    if !defaults.is_empty() {
                        return self.pick(defaults, caller);
                    }
                }
                // Not the owner's own: a method of the type it aliases, else one reached
                // through `Deref` or a trait the syntax does not see (`impl AsSlotManager`
                // with `type AsSlotManager = SlotManager<AddressSpaceManager>` and
                // `SlotManager: Deref<Target = T>`), found as for a receiver of unknown type.
                if let Some(target) = cf.owner.as_deref().and_then(|o| self.aliases.get(o)) {
                    let own: Vec<FnId> = cands
                        .iter()
                        .copied()
                        .filter(|c| self.func(*c).is_some_and(|f| f.owner.as_deref() == Some(*target)))
                        .filter(|c| self.visible(*c, caller, &[]))
                        .collect();
                    if !own.is_empty() {
                        return self.pick(own, caller);
                    }
                }
                self.any_method(m, caller)
            }
            Callee::Generic(_, m, bound) => {
                let mut impls: Vec<FnId> = self
                    .candidates(m)
                    .iter()
                    .copied()
                    .filter(|c| {
                        self.func(*c).is_some_and(|f| f.trait_name.is_some()) && self.related(*c, caller)
                    })
                    .collect();
                // With the parameter's bound stated (`T: Driver`), that trait's impls only: none
                // in the tree is a call out of it (a supertrait's method is missed so, and
                // reported where it is called, rather than dispatched to unrelated traits).
                if !bound.is_empty() {
                    impls.retain(|c| {
                        self.func(*c)
                            .is_some_and(|f| f.trait_name.as_ref().is_some_and(|t| bound.contains(t)))
                            && !self.other_modules_trait(*c, caller)
                    });
                }
                match impls.len() {
                    0 => Resolution::NotFound,
                    1 => Resolution::Resolved(impls[0]),
                    n if n <= MAX_DISPATCH => Resolution::Many(impls),
                    n => Resolution::Ambiguous(n),
                }
            }
            Callee::Method(m) => self.any_method(m, caller),
            Callee::OnStatic(path, m) => self.on_static(path, m, caller, cfile),
            Callee::OnItemOf(it, m) => {
                let decl = self.declared(self.iter_items.get(it.as_str()), cfile);
                self.method_of_decl(decl, m, caller)
            }
            Callee::OnFieldOf(ty, field, m) => {
                // `alloc.process`: each field's declared type names the next field's struct.
                let mut owner = ty.last().map(String::as_str);
                let mut decl = None;
                for f in field.split('.') {
                    let fields = owner.and_then(|t| self.struct_fields.get(&(t, f)));
                    decl = self.declared(fields, cfile);
                    owner = decl.map(|&(_, written)| written.rsplit("::").next().unwrap_or(written));
                }
                self.method_of_decl(decl, m, caller)
            }
            // `hal.boot(…)` with `let hal = gsp_hal(chip);`: the method of what `gsp_hal`
            // returns (its trait's implementations for `&dyn GspHal`), else any `boot`.
            Callee::OnValueOf(call, m) => {
                let ty = match self.resolve_path(call, caller, cf, cfile) {
                    Resolution::Resolved(f) => self.func(f).and_then(|f| f.value_type.clone()),
                    _ => None,
                };
                let typed = ty.map(|t| self.resolve_path(&[t, m.clone()], caller, cf, cfile));
                match typed {
                    Some(r) if r != Resolution::NotFound => r,
                    _ => self.any_method(m, caller),
                }
            }
        }
    }

    /// `FAMILY.register()`: the method of the static's declared type, the type's path taken
    /// from the static's own file (its `use`s name it); no guess by name when the static is
    /// declared in the tree.
    fn on_static(&self, path: &[String], m: &str, caller: FnId, cfile: &FileSummary) -> Resolution {
        let Some(name) = path.last() else {
            return Resolution::NotFound;
        };
        let decl = self.declared(self.statics.get(name.as_str()), cfile);
        self.method_of_decl(decl, m, caller)
    }

    /// Of the declarations of one name (a static, a struct's field, an iterator's item), the
    /// one in the caller's crate, else the first.
    fn declared<'d>(
        &self,
        decls: Option<&'d Vec<(u32, &'a str)>>,
        cfile: &FileSummary,
    ) -> Option<&'d (u32, &'a str)> {
        let v = decls?;
        v.iter()
            .find(|(fi, _)| {
                self.files
                    .get(*fi as usize)
                    .is_some_and(|f| f.crate_root == cfile.crate_root)
            })
            .or_else(|| v.first())
    }

    /// The method `m` of a declared type ([`Self::method_of_declared`]); with no declaration
    /// in the tree (a unit struct's value, another crate's static), as a method of a receiver
    /// of unknown type.
    fn method_of_decl(&self, decl: Option<&(u32, &'a str)>, m: &str, caller: FnId) -> Resolution {
        match decl {
            Some(&(fi, ty)) => self.method_of_declared(fi, ty, m, caller),
            None => self.any_method(m, caller),
        }
    }

    /// The method `m` of a type as written in file `fi` (a static's or a field's declaration):
    /// the type's path expanded with that file's `use`s, then matched as a qualified call, else
    /// by the type's own name wherever the tree defines it.
    fn method_of_declared(&self, fi: u32, ty: &str, m: &str, caller: FnId) -> Resolution {
        let written: Vec<&str> = ty.split("::").collect();
        let qual = in_crate_terms(self.expand_use_in(fi, &written));
        let cands = self.candidates(m);
        match self.match_qualified(cands, &qual, caller) {
            // The type's own name, wherever the tree defines it.
            Resolution::NotFound => {
                let own: Vec<FnId> = cands
                    .iter()
                    .copied()
                    .filter(|c| {
                        self.func(*c)
                            .is_some_and(|f| f.owner.as_deref() == qual.last().copied())
                    })
                    .collect();
                self.pick(own, caller)
            }
            r => r,
        }
    }

    /// A method `m` called on a value whose type the syntax cannot tell: the only visible
    /// method of that name, or every implementation of one trait.
    fn any_method(&self, m: &str, caller: FnId) -> Resolution {
        let methods: Vec<FnId> = self
            .candidates(m)
            .iter()
            .copied()
            .filter(|c| self.func(*c).is_some_and(|f| f.has_self) && self.visible(*c, caller, &[]))
            .collect();
        match methods.len() {
            0 => Resolution::NotFound,
            1 => Resolution::Resolved(methods[0]),
            n => self
                .one_trait(self.in_crate_of(&methods, caller))
                .unwrap_or(Resolution::Ambiguous(n)),
        }
    }

    /// Dispatch into `cands` when they are all implementations of one trait (at least two, at
    /// most [`MAX_DISPATCH`]): a method called on a value whose type the syntax cannot tell.
    fn one_trait(&self, cands: Vec<FnId>) -> Option<Resolution> {
        let first = self.func(*cands.first()?)?.trait_name.as_ref()?;
        let same = cands.iter().all(|c| {
            self.func(*c)
                .is_some_and(|f| f.trait_name.as_ref() == Some(first) && f.owner.as_ref() != Some(first))
        });
        (same && (2..=MAX_DISPATCH).contains(&cands.len())).then_some(Resolution::Many(cands))
    }

    fn resolve_path(&self, segs: &[String], caller: FnId, cf: &FnSummary, cfile: &FileSummary) -> Resolution {
        // Follow a `use` for the first segment.
        let segs = in_crate_terms(self.expand_use(segs, caller));
        let Some((name, qual)) = segs.split_last() else {
            return Resolution::NotFound;
        };
        // `u64::from_str_radix(…)`: the primitive type's own method, which Rust prefers to an
        // in-tree trait's method of that name implemented for the type.
        if let [ty] = qual {
            if is_primitive(ty) && is_primitive_method(name) {
                return Resolution::NotFound;
            }
        }
        let cands = self.candidates(name);
        if cands.is_empty() {
            return Resolution::NotFound;
        }
        if qual.is_empty() {
            let free_same_module: Vec<FnId> = cands
                .iter()
                .copied()
                .filter(|c| {
                    self.func(*c)
                        .is_some_and(|f| f.owner.is_none() && f.module == cf.module)
                        && self.file_of(*c).is_some_and(|f| f.crate_root == cfile.crate_root)
                })
                .collect();
            if free_same_module.len() == 1 {
                return Resolution::Resolved(free_same_module[0]);
            }
            let free_same_crate: Vec<FnId> = cands
                .iter()
                .copied()
                .filter(|c| {
                    self.func(*c).is_some_and(|f| f.owner.is_none())
                        && self.file_of(*c).is_some_and(|f| f.crate_root == cfile.crate_root)
                })
                .collect();
            return match free_same_crate.len() {
                0 => Resolution::NotFound,
                1 => Resolution::Resolved(free_same_crate[0]),
                n => Resolution::Ambiguous(n),
            };
        }
        let r = self.match_qualified(cands, qual, caller);
        if r != Resolution::NotFound {
            return r;
        }
        // `KBox::new` with `type KBox<T> = Box<T, Kmalloc>`: try the aliased type.
        if let Some(q) = qual.last() {
            if let Some(target) = self.aliases.get(q) {
                return self.match_qualified(cands, &[*target], caller);
            }
        }
        Resolution::NotFound
    }

    fn match_qualified(&self, cands: &[FnId], qual: &[&str], caller: FnId) -> Resolution {
        // `Trait::m(…)` (or `Self::m(…)` in a trait's default method, or a method called on a
        // `dyn Trait`, whose path a `use` may have lengthened): dispatch.
        if let Some(t) = qual.last() {
            let impls: Vec<FnId> = cands
                .iter()
                .copied()
                .filter(|c| {
                    self.func(*c).is_some_and(|f| f.trait_name.as_deref() == Some(*t))
                        && self.related(*c, caller)
                })
                .collect();
            // A type of that name with an inherent method `m` wins over dispatch.
            let inherent = cands.iter().any(|c| {
                self.func(*c)
                    .is_some_and(|f| f.owner.as_deref() == Some(*t) && f.trait_name.as_deref() != Some(*t))
            });
            if !inherent && impls.len() > 1 && impls.len() <= MAX_DISPATCH {
                return Resolution::Many(impls);
            }
            if !inherent && qual.len() > 1 {
                if let [one] = impls.as_slice() {
                    return Resolution::Resolved(*one);
                }
            }
        }
        let matching: Vec<FnId> = cands
            .iter()
            .copied()
            .filter(|c| self.visible(*c, caller, qual))
            .filter(|c| {
                let (Some(f), Some(file)) = (self.func(*c), self.file_of(*c)) else {
                    return false;
                };
                let mut full: Vec<&str> = Vec::with_capacity(f.module.len() + 2);
                full.push(file.crate_name.as_str());
                full.extend(f.module.iter().map(String::as_str));
                if let Some(o) = &f.owner {
                    full.push(o.as_str());
                }
                if full.ends_with(qual) {
                    return true;
                }
                // `Trait::f(…)` or `Type::f(…)` with the type's module path written.
                match (&f.trait_name, qual.last()) {
                    (Some(t), Some(q)) => t == q && qual.len() == 1,
                    _ => false,
                }
            })
            .collect();
        if matching.is_empty() && qual.len() > 1 {
            // A type re-exported under another module (`pub(crate) use self::wrapper::Crit;` in
            // `node`, called as `node::Crit::new()` after `use crate::node::Crit`): the type's
            // own name, in the caller's crate.
            // Or a type defined in a submodule of the module the path names, in another crate
            // (`kernel::drm::gpuvm::UniqueRefGpuVm`, defined in `gpuvm::sm_ops` and
            // re-exported with `pub use self::sm_ops::*`).
            if let Some((ty, module)) = qual.split_last() {
                let of_type: Vec<FnId> = cands
                    .iter()
                    .copied()
                    .filter(|c| self.func(*c).is_some_and(|f| f.owner.as_deref() == Some(*ty)))
                    .collect();
                let below: Vec<FnId> = of_type
                    .iter()
                    .copied()
                    .filter(|c| {
                        let (Some(f), Some(file)) = (self.func(*c), self.file_of(*c)) else {
                            return false;
                        };
                        let full = core::iter::once(file.crate_name.as_str())
                            .chain(f.module.iter().map(String::as_str));
                        full.take(module.len()).eq(module.iter().copied())
                            && f.module.len() >= module.len()
                            && self.visible(*c, caller, qual)
                    })
                    .collect();
                if !below.is_empty() {
                    return self.pick(below, caller);
                }
                return self.pick(self.in_crate_of(&of_type, caller), caller);
            }
        }
        // `NovaObject::new(…)` with an inherent `new` and a trait's `new` for the same type:
        // the inherent one, as rustc takes it.
        if matching.len() > 1 {
            let inherent: Vec<FnId> = matching
                .iter()
                .copied()
                .filter(|c| {
                    self.func(*c)
                        .is_some_and(|f| f.trait_name.is_none() && f.owner.is_some())
                })
                .collect();
            if !inherent.is_empty() {
                return self.pick(inherent, caller);
            }
        }
        self.pick(matching, caller)
    }
}

/// A path without its leading `crate`, `self` and `super` (the candidates' paths start at
/// the crate's name).
fn in_crate_terms(segs: Vec<&str>) -> Vec<&str> {
    segs.into_iter()
        .skip_while(|s| matches!(*s, "crate" | "self" | "super"))
        .collect()
}

/// One kind of declaration (a static's type, a field's, an iterator's item) of every file, by
/// its key: each declaring file's index with the type as written there.
fn declarations<'a, K: Eq + std::hash::Hash>(
    files: &'a [FileSummary],
    of_file: impl Fn(&'a FileSummary) -> Vec<(K, &'a str)>,
) -> HashMap<K, Vec<(u32, &'a str)>> {
    let mut by_key: HashMap<K, Vec<(u32, &'a str)>> = HashMap::new();
    for (fi, f) in files.iter().enumerate() {
        for (key, ty) in of_file(f) {
            by_key.entry(key).or_default().push((fi as u32, ty));
        }
    }
    by_key
}

/// The module a file's path names: its stem (`platform` for `rust/kernel/platform.rs`), or its
/// folder's name for a `mod.rs`.
fn file_module(path: &str) -> Option<&str> {
    let path = std::path::Path::new(path);
    match path.file_stem()?.to_str()? {
        "mod" => path.parent()?.file_name()?.to_str(),
        stem => Some(stem),
    }
}

/// The primitive types, by name.
const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64",
    "bool", "char", "str",
];

/// Methods the primitive types define themselves (inherent), which a path call such as
/// `u64::from_str_radix(…)` means even where an in-tree trait gives the type a method of the
/// same name; and the prefixes of their families (`checked_add`, `wrapping_mul`, …).
const PRIMITIVE_METHODS: &[&str] = &[
    "from_str_radix",
    "from_be_bytes",
    "from_le_bytes",
    "from_ne_bytes",
    "pow",
    "abs",
    "min",
    "max",
    "count_ones",
    "leading_zeros",
    "trailing_zeros",
    "swap_bytes",
    "to_be",
    "to_le",
    "from_be",
    "from_le",
    "is_power_of_two",
    "next_power_of_two",
    "from_u32",
    "from_digit",
];
const PRIMITIVE_METHOD_FAMILIES: &[&str] = &["checked_", "wrapping_", "saturating_", "overflowing_"];

fn is_primitive(name: &str) -> bool {
    PRIMITIVES.contains(&name)
}

fn is_primitive_method(name: &str) -> bool {
    PRIMITIVE_METHODS.contains(&name) || PRIMITIVE_METHOD_FAMILIES.iter().any(|p| name.starts_with(p))
}
