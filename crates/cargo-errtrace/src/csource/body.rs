//! What one C function definition does on failure, read from its syntax tree: which values
//! it returns as failures (an errno, `NULL`, a callee's result), and whether a print is on the
//! path of each.
//!
//! The reading follows how kernel C is written: `return -EINVAL;`, `ret = f(…); if (ret)
//! return ret;`, `err = -EBUSY; goto out;` … `out: return err;`, `return ERR_PTR(-ENOMEM);`,
//! `return PTR_ERR(p);` with `p = f(…)`, `if (ret) { dev_err(…); return ret; }`, `return
//! dev_err_probe(dev, ret, …);`, `if (WARN_ON(!p)) return -EINVAL;`. It is not a data-flow
//! analysis: a value the reading cannot place is [`Source::Unknown`], and the caller treats a
//! function with only such failures as not known.

use tree_sitter::{Node, Parser};

/// What the function returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Returns {
    /// An integer: a negative errno on failure.
    Errno,
    /// A pointer: `NULL` or an `ERR_PTR` on failure.
    Pointer,
    /// Nothing: it cannot fail with an error.
    Void,
    /// A `bool` or another type that carries no errno.
    Other,
}

/// Where a failure's value comes from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Source {
    /// An errno written here (`-EBUSY`), without its minus.
    Code(String),
    /// `NULL` from a pointer function.
    Null,
    /// The failure of a called function, returned on.
    Callee(String),
    /// The `ERR_PTR` failure of a called function that returns a pointer (`PTR_ERR(p)` with
    /// `p = f(…)`): its `NULL` is no failure here.
    CalleeErrPtr(String),
    /// `EINVAL` returned when a check of the arguments alone fails (`if (!name) return
    /// -EINVAL;`), or a code returned by a `switch`'s `default:` case: a misuse a well-formed
    /// call does not make.
    Precondition(String),
    /// A value the reading cannot place (a parameter, arithmetic).
    Unknown,
}

/// One way the function fails.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Failure {
    /// Where the value comes from.
    pub source: Source,
    /// A print is on its path (in the branch that returns it, or the return is a print's value).
    pub printed: bool,
}

/// A function definition, read.
#[derive(Debug, Clone)]
pub(crate) struct Body {
    /// What it returns.
    pub returns: Returns,
    /// Its failures, deduplicated.
    pub failures: Vec<Failure>,
}

/// Kernel print functions and macros whose output is in the log at the default level. The
/// debug ones (`pr_debug`, `dev_dbg`) are off on a production kernel and do not count.
fn is_print(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "printk",
        "dev_err_probe",
        "dev_warn_probe",
        "WARN",
        "WARN_ON",
        "WARN_ONCE",
        "WARN_ON_ONCE",
        "WARN_TAINT",
        "dev_WARN",
        "dev_WARN_ONCE",
        "BUG",
        "BUG_ON",
        "DRM_ERROR",
        "DRM_DEV_ERROR",
        "DRM_WARN",
        "DRM_INFO",
        "pr_err_once",
        "pr_warn_once",
    ];
    const PREFIXES: &[&str] = &[
        "pr_",
        "dev_",
        "netdev_",
        "pci_",
        "drm_",
        "hid_",
        "phydev_",
        "ibdev_",
        "mmc_",
        "sdev_",
        "shost_",
        "bt_dev_",
        "wiphy_",
        "v4l2_",
        "ata_dev_",
        "ata_link_",
        "ata_port_",
        "snd_soc_",
        "dprintk_",
    ];
    const LEVELS: &[&str] = &[
        "emerg", "alert", "crit", "err", "warn", "warning", "notice", "info",
    ];
    if EXACT.contains(&name) {
        return true;
    }
    PREFIXES.iter().any(|p| {
        name.strip_prefix(p).is_some_and(|rest| {
            let level = rest
                .strip_suffix("_once")
                .or_else(|| rest.strip_suffix("_ratelimited"))
                .unwrap_or(rest);
            LEVELS.contains(&level)
        })
    })
}

/// Whether a called name is one of the kernel's memory allocators (they warn when they fail,
/// unless told `__GFP_NOWARN`).
pub(crate) fn is_allocator(name: &str) -> bool {
    const STEMS: &[&str] = &[
        "kmalloc",
        "kzalloc",
        "kcalloc",
        "kvmalloc",
        "kvzalloc",
        "kvcalloc",
        "vmalloc",
        "vzalloc",
        "kmem_cache_alloc",
        "kmem_cache_zalloc",
        "krealloc",
        "kvrealloc",
        "kstrdup",
        "kstrndup",
        "kmemdup",
        "kasprintf",
        "kvasprintf",
        "devm_kmalloc",
        "devm_kzalloc",
        "devm_kcalloc",
        "devm_kstrdup",
        "devm_kasprintf",
        "devm_kmemdup",
        "alloc_pages",
        "__get_free_pages",
        "get_zeroed_page",
        "kmalloc_array",
        "kvmalloc_array",
        "__kmalloc",
        "kmalloc_node",
    ];
    let name = name.strip_suffix("_noprof").unwrap_or(name);
    STEMS.iter().any(|s| {
        name.strip_prefix(s)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('_'))
    })
}

/// Read the first function definition in `text` (a definition cut out of its file). `None`
/// when the text holds none the parser recognises.
pub(crate) fn read(text: &str) -> Option<Body> {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_c::LANGUAGE.into()).ok()?;
    let tree = parser.parse(text, None)?;
    let root = tree.root_node();
    let mut cursor = root.walk();
    let def = root
        .children(&mut cursor)
        .find(|n| n.kind() == "function_definition")?;
    let reader = Reader::new(text, def);
    Some(reader.read())
}

struct Reader<'t> {
    src: &'t str,
    def: Node<'t>,
    body: Node<'t>,
    returns: Returns,
    /// Assignments in the body: (the assigned place as written, the value, the statement).
    assignments: Vec<(String, Node<'t>, Node<'t>)>,
}

impl<'t> Reader<'t> {
    fn new(src: &'t str, def: Node<'t>) -> Reader<'t> {
        let body = def.child_by_field_name("body").unwrap_or(def);
        let returns = return_kind(src, def);
        let mut r = Reader {
            src,
            def,
            body,
            returns,
            assignments: Vec::new(),
        };
        r.collect_assignments(body);
        r
    }

    fn text(&self, n: Node<'_>) -> &'t str {
        self.src.get(n.byte_range()).unwrap_or("")
    }

    fn collect_assignments(&mut self, n: Node<'t>) {
        let mut stack = vec![n];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "assignment_expression" => {
                    let op = n.child_by_field_name("operator").map(|o| self.text(o));
                    if let (Some("="), Some(l), Some(v)) =
                        (op, n.child_by_field_name("left"), n.child_by_field_name("right"))
                    {
                        let key = compact(self.text(l));
                        self.assignments.push((key, v, statement_of(n)));
                    }
                }
                "init_declarator" => {
                    if let (Some(d), Some(v)) = (
                        n.child_by_field_name("declarator"),
                        n.child_by_field_name("value"),
                    ) {
                        let key = compact(self.text(declared_name(d)));
                        self.assignments.push((key, v, statement_of(n)));
                    }
                }
                _ => {}
            }
            let mut c = n.walk();
            stack.extend(n.children(&mut c));
        }
    }

    fn read(&self) -> Body {
        let mut failures = Vec::new();
        if matches!(self.returns, Returns::Errno | Returns::Pointer) {
            let mut stack = vec![self.body];
            while let Some(n) = stack.pop() {
                if n.kind() == "return_statement" {
                    if let Some(e) = n.named_child(0) {
                        let mut seen = Vec::new();
                        self.value(e, n, &mut failures, &mut seen, 0);
                    }
                    continue;
                }
                let mut c = n.walk();
                stack.extend(n.children(&mut c));
            }
        }
        failures.sort();
        failures.dedup();
        Body {
            returns: self.returns,
            failures,
        }
    }

    /// The failures a returned value `e` can carry; `at` is the statement whose context decides
    /// whether a print is on the path.
    fn value(&self, e: Node<'t>, at: Node<'t>, out: &mut Vec<Failure>, seen: &mut Vec<String>, depth: u32) {
        if depth > 8 {
            out.push(Failure {
                source: Source::Unknown,
                printed: self.printed_at(at),
            });
            return;
        }
        let e = strip(e);
        let text = compact(self.text(e));
        match e.kind() {
            "number_literal" | "true" | "false" | "char_literal" | "sizeof_expression" => {}
            "null" => self.null(at, out),
            "unary_expression" => {
                let op = e.child_by_field_name("operator").map(|o| self.text(o));
                let arg = e.child_by_field_name("argument").map(strip);
                match (op, arg) {
                    (Some("-"), Some(a)) if a.kind() == "identifier" && is_errno(self.text(a)) => {
                        let code = self.text(a).to_string();
                        // `EINVAL` is the code of a misuse; another code after a test of the
                        // arguments' state (`if (dev->driver) return -EBUSY;`) is a real failure.
                        let source = if (code == "EINVAL" && self.argument_check(at)) || in_default_case(at) {
                            Source::Precondition(code)
                        } else {
                            Source::Code(code)
                        };
                        out.push(Failure {
                            source,
                            printed: self.printed_at(at),
                        });
                    }
                    (Some("-"), Some(a)) if a.kind() == "number_literal" => {
                        out.push(Failure {
                            source: Source::Unknown,
                            printed: self.printed_at(at),
                        });
                    }
                    (Some("-"), Some(a)) => self.value(a, at, out, seen, depth + 1),
                    _ => out.push(Failure {
                        source: Source::Unknown,
                        printed: self.printed_at(at),
                    }),
                }
            }
            "conditional_expression" => {
                for f in ["consequence", "alternative"] {
                    if let Some(b) = e.child_by_field_name(f) {
                        self.value(b, at, out, seen, depth + 1);
                    }
                }
            }
            "call_expression" => {
                let name = e
                    .child_by_field_name("function")
                    .map(|f| self.text(f))
                    .unwrap_or("");
                let args: Vec<Node<'t>> = e
                    .child_by_field_name("arguments")
                    .map(|a| {
                        let mut c = a.walk();
                        a.named_children(&mut c).collect()
                    })
                    .unwrap_or_default();
                if is_print(name) {
                    // `return dev_err_probe(dev, ret, "…");`: printed, whatever `ret` was.
                    out.push(Failure {
                        source: Source::Unknown,
                        printed: true,
                    });
                } else if name == "ERR_PTR" {
                    if let Some(a) = args.first() {
                        self.value(*a, at, out, seen, depth + 1);
                    }
                } else if matches!(name, "PTR_ERR" | "ERR_CAST" | "PTR_ERR_OR_ZERO") {
                    match args.first() {
                        Some(a) => self.pointer(*a, at, out, seen, depth),
                        None => out.push(Failure {
                            source: Source::Unknown,
                            printed: false,
                        }),
                    }
                } else if is_allocator(name) {
                    out.push(Failure {
                        source: Source::Code("ENOMEM".to_string()),
                        printed: self.printed_at(at),
                    });
                } else if name.is_empty() || name.contains("->") || name.contains('.') {
                    // A call through a function pointer (an ops table's callback).
                    out.push(Failure {
                        source: Source::Unknown,
                        printed: self.printed_at(at),
                    });
                } else {
                    out.push(Failure {
                        source: Source::Callee(name.to_string()),
                        printed: self.printed_at(at),
                    });
                }
            }
            "identifier" if text == "NULL" => self.null(at, out),
            "identifier" | "field_expression" | "pointer_expression" => {
                if is_errno(&text) {
                    // `return EINVAL;` in a function returning a positive code: not a failure
                    // the reading can tell from a value.
                    out.push(Failure {
                        source: Source::Unknown,
                        printed: self.printed_at(at),
                    });
                    return;
                }
                if seen.contains(&text) {
                    return;
                }
                seen.push(text.clone());
                let assigned: Vec<(Node<'t>, Node<'t>)> = self
                    .assignments
                    .iter()
                    .filter(|(k, _, _)| *k == text)
                    .map(|(_, v, s)| (*v, *s))
                    .collect();
                if assigned.is_empty() {
                    out.push(Failure {
                        source: Source::Unknown,
                        printed: self.printed_at(at),
                    });
                    return;
                }
                let printed_here = self.printed_at(at);
                for (v, stmt) in assigned {
                    let mut inner = Vec::new();
                    self.value(v, stmt, &mut inner, seen, depth + 1);
                    for mut f in inner {
                        f.printed |= printed_here || self.printed_after(stmt, &text);
                        out.push(f);
                    }
                }
            }
            _ => out.push(Failure {
                source: Source::Unknown,
                printed: self.printed_at(at),
            }),
        }
    }

    /// `PTR_ERR(p)`: the failure of whatever call `p` was assigned from.
    fn pointer(&self, p: Node<'t>, at: Node<'t>, out: &mut Vec<Failure>, seen: &mut Vec<String>, depth: u32) {
        let p = strip(p);
        if p.kind() == "call_expression" {
            let mut inner = Vec::new();
            self.value(p, at, &mut inner, seen, depth + 1);
            out.extend(inner.into_iter().map(err_ptr));
            return;
        }
        let key = compact(self.text(p));
        let printed_here = self.printed_at(at);
        let mut any = false;
        for (k, v, stmt) in &self.assignments {
            if *k != key {
                continue;
            }
            let v = strip(*v);
            if v.kind() != "call_expression" {
                continue;
            }
            any = true;
            let mut inner = Vec::new();
            self.value(v, *stmt, &mut inner, seen, depth + 1);
            for mut f in inner.into_iter().map(err_ptr) {
                f.printed |= printed_here || self.printed_after(*stmt, &key);
                out.push(f);
            }
        }
        if !any {
            out.push(Failure {
                source: Source::Unknown,
                printed: printed_here,
            });
        }
    }

    /// Whether `at` runs only when a check of the function's arguments fails: the nearest
    /// `if` above it tests nothing but parameters (and their fields) and constants.
    fn argument_check(&self, at: Node<'t>) -> bool {
        let Some(cond) = enclosing_condition(at) else {
            return false;
        };
        let params = self.parameters();
        let mut stack = vec![cond];
        let mut tested = false;
        while let Some(n) = stack.pop() {
            match n.kind() {
                "call_expression" => return false,
                "identifier" => {
                    let t = self.text(n);
                    if params.contains(&t) {
                        tested = true;
                    } else if !is_constant(t) {
                        return false;
                    }
                    continue;
                }
                "field_identifier" => continue,
                _ => {}
            }
            let mut c = n.walk();
            stack.extend(n.children(&mut c));
        }
        tested
    }

    /// The names of the function's parameters.
    fn parameters(&self) -> Vec<&'t str> {
        let mut out = Vec::new();
        let mut d = self.def.child_by_field_name("declarator");
        while let Some(n) = d {
            if n.kind() == "function_declarator" {
                if let Some(list) = n.child_by_field_name("parameters") {
                    let mut c = list.walk();
                    for p in list.named_children(&mut c) {
                        if let Some(decl) = p.child_by_field_name("declarator") {
                            out.push(self.text(declared_name(decl)));
                        }
                    }
                }
                break;
            }
            d = n.child_by_field_name("declarator");
        }
        out
    }

    /// `return NULL;`: after a failed allocation (the condition tests what an allocator
    /// returned), an allocation failure; otherwise a silent `NULL`.
    fn null(&self, at: Node<'t>, out: &mut Vec<Failure>) {
        let printed = self.printed_at(at);
        let alloc = enclosing_condition(at).is_some_and(|c| {
            let tested = identifiers(self.src, c);
            self.assignments.iter().any(|(k, v, _)| {
                tested.iter().any(|t| t == k)
                    && strip(*v).kind() == "call_expression"
                    && strip(*v)
                        .child_by_field_name("function")
                        .is_some_and(|f| is_allocator(self.text(f)))
            })
        });
        let source = if alloc {
            Source::Code("ENOMEM".to_string())
        } else {
            Source::Null
        };
        out.push(Failure { source, printed });
    }

    /// Whether a print is on the path that reaches the statement `at`: in the branch that
    /// holds it (an `if`'s block or its condition, `WARN_ON(…)`), or after the label it follows.
    fn printed_at(&self, at: Node<'t>) -> bool {
        let mut cur = at;
        while let Some(parent) = cur.parent() {
            if cur.id() == self.body.id() {
                return false;
            }
            match parent.kind() {
                "compound_statement" => {
                    let branch = parent.parent().is_some_and(|g| is_branch(g.kind()));
                    if branch {
                        if self.block_prints(parent) || self.condition_prints(parent) {
                            return true;
                        }
                        cur = parent;
                        continue;
                    }
                    // The function's body or a loop's: only a print after a label before `at`.
                    return self.printed_after_label(parent, cur);
                }
                "if_statement" => {
                    if parent
                        .child_by_field_name("condition")
                        .is_some_and(|c| self.contains_print(c))
                    {
                        return true;
                    }
                    if parent.child_by_field_name("consequence").map(|c| c.id()) == Some(cur.id())
                        && self.contains_print_stmt(cur)
                    {
                        return true;
                    }
                }
                "case_statement" if self.block_prints(parent) => return true,
                _ => {}
            }
            cur = parent;
        }
        false
    }

    /// After `var = f(…);`, a later statement of the same block tests `var` and its branch
    /// prints (`if (ret) { dev_err(…); goto out; }`, `if (IS_ERR(p)) return dev_err_probe(…)`),
    /// before anything assigns `var` again; statements that test `var` without printing may sit
    /// between (`if (ret == -ENOENT) ret = fallback(…);`).
    fn printed_after(&self, stmt: Node<'t>, var: &str) -> bool {
        let bare = var.trim_start_matches('*');
        let mut next = stmt.next_named_sibling();
        let mut budget = 12;
        while let Some(n) = next {
            budget -= 1;
            if budget == 0 {
                return false;
            }
            next = n.next_named_sibling();
            match n.kind() {
                "comment" | "preproc_if" | "preproc_ifdef" => continue,
                "if_statement" => {
                    let Some(cond) = n.child_by_field_name("condition") else {
                        return false;
                    };
                    if !compact(self.text(cond)).contains(bare) {
                        continue;
                    }
                    if self.contains_print(cond)
                        || n.child_by_field_name("consequence")
                            .is_some_and(|c| self.contains_print_stmt(c))
                    {
                        return true;
                    }
                }
                "expression_statement" => {
                    // `var = …;` again: what follows is about the new value.
                    let assigns = n.named_child(0).is_some_and(|e| {
                        e.kind() == "assignment_expression"
                            && e.child_by_field_name("left")
                                .is_some_and(|l| compact(self.text(l)) == var)
                    });
                    if assigns {
                        return false;
                    }
                }
                _ => return false,
            }
        }
        false
    }

    /// A print in the statements between the last label before `cur` and `cur` (`out:
    /// pr_err(…); return err;`).
    fn printed_after_label(&self, block: Node<'t>, cur: Node<'t>) -> bool {
        let mut c = block.walk();
        let mut since_label: Option<bool> = None;
        for s in block.named_children(&mut c) {
            if s.id() == cur.id() {
                break;
            }
            if s.kind() == "labeled_statement" {
                since_label = Some(self.contains_print_stmt(s));
            } else if let Some(p) = since_label.as_mut() {
                *p |= self.contains_print_stmt(s);
            }
        }
        // A `return` that is itself the labelled statement (`out: return err;`).
        since_label.unwrap_or(false)
    }

    /// A print in a branch block, also under a test of its own (`if (!(flags & NO_WARN))
    /// dev_warn(…);`: printed in the usual configuration).
    fn block_prints(&self, block: Node<'t>) -> bool {
        let mut c = block.walk();
        let found = block.named_children(&mut c).any(|s| self.contains_print_stmt(s));
        found
    }

    /// The `if` whose block `block` is has a print in its condition (`if (WARN_ON(…)) { … }`).
    fn condition_prints(&self, block: Node<'t>) -> bool {
        let Some(parent) = block.parent() else {
            return false;
        };
        let cond_of = |n: Node<'t>| {
            n.child_by_field_name("condition")
                .is_some_and(|c| self.contains_print(c))
        };
        parent.kind() == "if_statement" && cond_of(parent)
    }

    /// A statement that is, or whose expressions hold, a print call: directly, or in the
    /// branch of an `if` without an `else` (a print the usual configuration makes).
    fn contains_print_stmt(&self, s: Node<'t>) -> bool {
        match s.kind() {
            "expression_statement" | "return_statement" | "declaration" => self.contains_print(s),
            "if_statement" => {
                s.child_by_field_name("alternative").is_none()
                    && s.child_by_field_name("consequence")
                        .is_some_and(|c| self.contains_print_stmt(c))
            }
            "labeled_statement" | "compound_statement" => {
                let mut c = s.walk();
                let found = s
                    .named_children(&mut c)
                    .any(|n| n.kind() != "if_statement" && self.contains_print_stmt(n));
                found
            }
            _ => false,
        }
    }

    /// Whether an expression holds a call of a print function.
    fn contains_print(&self, n: Node<'t>) -> bool {
        let mut stack = vec![n];
        while let Some(n) = stack.pop() {
            if n.kind() == "call_expression" {
                if let Some(f) = n.child_by_field_name("function") {
                    if is_print(self.text(f)) {
                        return true;
                    }
                }
            }
            let mut c = n.walk();
            stack.extend(n.children(&mut c));
        }
        false
    }
}

/// Whether `n` is in a `switch`'s `default:` case: the rejection of a kind the caller should
/// not have passed (`default: dev_err(…, "Unsupported transaction %d\n", size); return
/// -EOPNOTSUPP;`), a misuse as an argument check is.
fn in_default_case(n: Node<'_>) -> bool {
    let mut cur = n;
    while let Some(p) = cur.parent() {
        match p.kind() {
            "case_statement" => return p.child_by_field_name("value").is_none(),
            "function_definition" => return false,
            _ => cur = p,
        }
    }
    false
}

/// A `PTR_ERR(p)`'s view of `p`'s failure: a callee's `NULL` is no error there.
fn err_ptr(f: Failure) -> Failure {
    let source = match f.source {
        Source::Callee(g) => Source::CalleeErrPtr(g),
        Source::Null => Source::Unknown,
        other => other,
    };
    Failure { source, ..f }
}

/// An upper-case name: a constant or a macro's value (`MAX_MINOR`, `NULL`).
fn is_constant(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// Branch statements, whose block runs only on one side of a test.
fn is_branch(kind: &str) -> bool {
    matches!(kind, "if_statement" | "else_clause" | "case_statement")
}

/// The condition of the nearest `if` whose branch holds `n`.
fn enclosing_condition(n: Node<'_>) -> Option<Node<'_>> {
    let mut cur = n;
    while let Some(p) = cur.parent() {
        if p.kind() == "if_statement" {
            return p.child_by_field_name("condition");
        }
        if p.kind() == "function_definition" {
            return None;
        }
        cur = p;
    }
    None
}

/// The identifiers in `n`.
fn identifiers(src: &str, n: Node<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        if matches!(n.kind(), "identifier" | "field_expression") {
            out.push(compact(src.get(n.byte_range()).unwrap_or("")));
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
    out
}

/// The statement an expression is in.
fn statement_of(n: Node<'_>) -> Node<'_> {
    let mut cur = n;
    while let Some(p) = cur.parent() {
        if cur.kind().ends_with("_statement") || cur.kind() == "declaration" {
            return cur;
        }
        if p.kind() == "compound_statement" {
            return cur;
        }
        cur = p;
    }
    cur
}

/// The name a declarator declares (`*p`, `p[4]` → `p`).
fn declared_name(d: Node<'_>) -> Node<'_> {
    let mut d = d;
    while let Some(inner) = d.child_by_field_name("declarator") {
        d = inner;
    }
    d
}

/// Parentheses and casts around a value.
fn strip(n: Node<'_>) -> Node<'_> {
    let mut n = n;
    loop {
        match n.kind() {
            "parenthesized_expression" => match n.named_child(0) {
                Some(c) => n = c,
                None => return n,
            },
            "cast_expression" => match n.child_by_field_name("value") {
                Some(c) => n = c,
                None => return n,
            },
            _ => return n,
        }
    }
}

/// A text with its white space removed (`dev -> x` and `dev->x` compare equal).
fn compact(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// `EINVAL`, `EPROBE_DEFER`: an errno's name.
fn is_errno(s: &str) -> bool {
    s.len() > 2
        && s.starts_with('E')
        && s.bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// The function's return type, read from its declaration.
fn return_kind(src: &str, def: Node<'_>) -> Returns {
    let mut d = def.child_by_field_name("declarator");
    let mut pointer = false;
    while let Some(n) = d {
        match n.kind() {
            "pointer_declarator" => {
                pointer = true;
                d = n.child_by_field_name("declarator");
            }
            "function_declarator" => break,
            "parenthesized_declarator" => d = n.named_child(0),
            _ => break,
        }
    }
    if pointer {
        return Returns::Pointer;
    }
    let ty = def
        .child_by_field_name("type")
        .and_then(|t| src.get(t.byte_range()))
        .unwrap_or("");
    match ty {
        "void" => Returns::Void,
        "bool" | "_Bool" => Returns::Other,
        "int" | "long" | "ssize_t" | "s32" | "s64" | "int32_t" | "long long" => Returns::Errno,
        _ => Returns::Other,
    }
}
