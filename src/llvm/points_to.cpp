// Inclusion-based (Andersen) points-to analysis with an on-the-fly call graph (points_to.hpp).

#include <weir/llvm/points_to.hpp>

#include <deque>

#include <llvm/ADT/DenseSet.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Operator.h>

#include "scc.hpp"

namespace weir::llvm {

namespace L = ::llvm;

bool is_allocator(const L::Function& f) {
    const L::StringRef n = f.getName();
    return n == "malloc" || n == "calloc" || n == "realloc" || n == "reallocarray" || n == "strdup" || n == "strndup" ||
           n == "aligned_alloc" || n == "valloc" || n == "memalign" || n == "_Znwm" || n == "_Znam" ||
           n == "_ZnwmRKSt9nothrow_t" || n == "_ZnamRKSt9nothrow_t" || n == "_ZnwmSt11align_val_t" ||
           n == "_ZnamSt11align_val_t" || n == "__cxa_allocate_exception";
}

const L::Function* direct_callee(const L::CallBase& call) {
    return L::dyn_cast<L::Function>(call.getCalledOperand()->stripPointerCasts());
}

const L::Function* exit_handler(const L::CallBase& call, const L::Value*& arg) {
    arg = nullptr;
    const L::Function* callee = direct_callee(call);
    if (!callee || call.arg_size() < 1) return nullptr;
    const L::StringRef n = callee->getName();
    const bool cxa = n == "__cxa_atexit" || n == "__cxa_thread_atexit" || n == "__cxa_thread_atexit_impl";
    if (!cxa && n != "atexit") return nullptr;
    const auto* f = L::dyn_cast<L::Function>(call.getArgOperand(0)->stripPointerCasts());
    if (!f || f->isDeclaration()) return nullptr;
    if (cxa && call.arg_size() >= 2) arg = call.getArgOperand(1);
    return f;
}

namespace {
/// Calls whose destination memory receives the source memory's contents
/// (dst, src argument indices; `va_copy` copies a `va_list`).
bool copies_memory(L::StringRef n, unsigned& dst, unsigned& src) {
    dst = 0;
    src = 1;
    return n.startswith("llvm.memcpy") || n.startswith("llvm.memmove") || n == "llvm.va_copy" || n == "memcpy" || n == "memmove" ||
           n == "strcpy" || n == "strncpy" || n == "strcat" || n == "strncat" || n == "stpcpy" || n == "wcscpy" ||
           n == "__memcpy_chk" || n == "__strcpy_chk";
}
/// True when the argument's type may carry an address.
bool may_hold_address(const L::Type* t) { return t->isPointerTy() || t->isIntegerTy(64) || t->isAggregateType() || t->isVectorTy(); }
/// Arity and parameter kinds of a function are compatible with a call.
bool compatible(const L::CallBase& call, const L::Function& f) {
    const unsigned n = call.arg_size(), p = static_cast<unsigned>(f.arg_size());
    if (f.isVarArg() ? n < p : n != p) return false;
    for (unsigned i = 0; i < p; ++i)
        if (call.getArgOperand(i)->getType()->isPointerTy() != f.getArg(i)->getType()->isPointerTy()) return false;
    return call.getType()->isVoidTy() == f.getReturnType()->isVoidTy() || call.getType()->isVoidTy();
}

/// A named struct's name without the `.N` suffix that linking modules adds
/// to a second copy of the same type.
L::StringRef base_struct_name(L::StringRef n) {
    const std::size_t dot = n.rfind('.');
    if (dot == L::StringRef::npos || dot + 1 == n.size()) return n;
    for (char c : n.drop_front(dot + 1))
        if (c < '0' || c > '9') return n;
    return n.take_front(dot);
}

/// Types equal up to the renaming of named structs by linking.
bool same_type(const L::Type* a, const L::Type* b, int depth = 0) {
    if (a == b) return true;
    if (a->getTypeID() != b->getTypeID() || depth > 8) return false;
    if (const auto* pa = L::dyn_cast<L::PointerType>(a)) {
        const auto* pb = L::cast<L::PointerType>(b);
        if (pa->getAddressSpace() != pb->getAddressSpace() || pa->isOpaque() != pb->isOpaque()) return false;
        return pa->isOpaque() || same_type(pa->getPointerElementType(), pb->getPointerElementType(), depth + 1);
    }
    if (const auto* sa = L::dyn_cast<L::StructType>(a)) {
        const auto* sb = L::cast<L::StructType>(b);
        return sa->hasName() && sb->hasName() && base_struct_name(sa->getName()) == base_struct_name(sb->getName());
    }
    if (const auto* fa = L::dyn_cast<L::FunctionType>(a)) {
        const auto* fb = L::cast<L::FunctionType>(b);
        if (fa->isVarArg() != fb->isVarArg() || fa->getNumParams() != fb->getNumParams()) return false;
        if (!same_type(fa->getReturnType(), fb->getReturnType(), depth + 1)) return false;
        for (unsigned i = 0; i < fa->getNumParams(); ++i)
            if (!same_type(fa->getParamType(i), fb->getParamType(i), depth + 1)) return false;
        return true;
    }
    if (const auto* aa = L::dyn_cast<L::ArrayType>(a))
        return aa->getNumElements() == L::cast<L::ArrayType>(b)->getNumElements() &&
               same_type(aa->getElementType(), b->getArrayElementType(), depth + 1);
    return false;
}

/// True when `v` (a function, or a cast of one) is only ever called
/// directly: no use of it keeps its address under another type.
bool only_called(const L::Value& v) {
    for (const L::Use& u : v.uses()) {
        if (const auto* c = L::dyn_cast<L::CallBase>(u.getUser()); c && c->isCallee(&u)) continue;
        if (const auto* ce = L::dyn_cast<L::ConstantExpr>(u.getUser()); ce && ce->isCast() && only_called(*ce)) continue;
        return false;
    }
    return true;
}

/// True when every use of `f`'s address keeps `f`'s own type: it is stored,
/// passed and compared as what it is, never cast (a cast whose only use is
/// a direct call does not count). Such a function is a target only of
/// indirect calls of its own type.
bool address_keeps_type(const L::Function& f) {
    for (const L::Use& u : f.uses()) {
        const L::User* user = u.getUser();
        if (const auto* c = L::dyn_cast<L::CallBase>(user); c && c->isCallee(&u)) continue;
        if (L::isa<L::GlobalAlias>(user)) return false;
        if (const auto* ce = L::dyn_cast<L::ConstantExpr>(user)) {
            if (ce->isCast() && only_called(*ce)) continue;
            return false;
        }
    }
    return true;
}
} // namespace

bool is_va_list(const L::Value* v) {
    const auto* pt = L::dyn_cast<L::PointerType>(v->getType());
    if (!pt || pt->isOpaque()) return false;
    const auto* st = L::dyn_cast<L::StructType>(pt->getNonOpaquePointerElementType());
    if (!st || !st->hasName()) return false;
    const L::StringRef n = base_struct_name(st->getName());  // linking may add `.N`
    return n == "struct.__va_list_tag" || n == "struct.__va_list";
}

/// Builds the constraint graph and solves it (the body of `points_to`'s constructor).
struct points_to_builder {
    points_to& r;
    const L::Module& m;
    std::vector<std::vector<std::uint32_t>> succ;    // copy edges
    std::vector<std::vector<std::uint32_t>> loads;   // node p -> dsts (dst ⊇ *p)
    std::vector<std::vector<std::uint32_t>> stores;  // node p -> srcs (*p ⊇ src)
    std::vector<std::vector<const L::CallBase*>> icalls;  // node fp -> indirect calls through it
    std::vector<object_set> done;                    // what each node has propagated already
    L::DenseSet<std::uint64_t> edges;                // copy edges present (from << 32 | to)
    std::vector<char> queued;
    std::deque<std::uint32_t> work;
    std::vector<std::uint32_t> rep;                  // union-find: nodes of a collapsed cycle share one
    // Unification (Steensgaard): a node's class has at most one pointee class;
    // a class holds the objects whose content node is in it.
    bool unify = false;
    std::vector<std::uint32_t> uptr, usize;
    std::vector<std::vector<object_id>> uobjs;
    std::vector<std::pair<std::uint32_t, const L::CallBase*>> ucalls;
    L::DenseSet<std::uint64_t> checked;              // edges lazy cycle detection has looked behind
    L::DenseMap<const L::Function*, std::uint32_t> ret_node;  // a function's returned values
    L::DenseMap<const L::Function*, object_id> fn_object;
    object_id exception_slot = 0;  // the object a thrown exception's address goes through

    points_to_builder(points_to& res, const L::Module& mod) : r(res), m(mod) {}

    std::uint32_t new_node() {
        r.pts_.emplace_back();
        succ.emplace_back();
        loads.emplace_back();
        stores.emplace_back();
        icalls.emplace_back();
        done.emplace_back();
        queued.push_back(0);
        rep.push_back(static_cast<std::uint32_t>(rep.size()));
        if (unify) {
            uptr.push_back(~0u);
            usize.push_back(1);
            uobjs.emplace_back();
        }
        return static_cast<std::uint32_t>(r.pts_.size() - 1);
    }
    object_id new_object(object_kind k, const L::Value* site, const L::Function* owner, std::string name) {
        r.objects_.push_back({k, site, owner, std::move(name)});
        r.content_node_.push_back(new_node());
        const auto o = static_cast<object_id>(r.objects_.size() - 1);
        if (unify) uobjs[r.content_node_.back()].push_back(o);
        if (site && k != object_kind::external) r.object_of_[site] = o;
        return o;
    }
    /// The representative of a node (path halving).
    std::uint32_t find(std::uint32_t n) {
        while (rep[n] != n) n = rep[n] = rep[rep[n]];
        return n;
    }
    std::uint32_t content(object_id o) { return find(r.content_node_[o]); }
    /// Unification: the class node `n`'s values point to (made on first use).
    std::uint32_t ptr_of(std::uint32_t n) {
        n = find(n);
        if (uptr[n] == ~0u) {
            const std::uint32_t c = new_node();
            uptr[n] = c;
        }
        return find(uptr[n]);
    }
    /// Unification: makes a and b one class, and so their pointees (iteratively).
    void join(std::uint32_t a, std::uint32_t b) {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> pending{{a, b}};
        while (!pending.empty()) {
            auto [x, y] = pending.back();
            pending.pop_back();
            x = find(x);
            y = find(y);
            if (x == y) continue;
            if (usize[x] < usize[y]) std::swap(x, y);
            rep[y] = x;
            usize[x] += usize[y];
            uobjs[x].insert(uobjs[x].end(), uobjs[y].begin(), uobjs[y].end());
            std::vector<object_id>().swap(uobjs[y]);
            if (uptr[y] != ~0u) {
                if (uptr[x] == ~0u) uptr[x] = uptr[y];
                else pending.emplace_back(uptr[x], uptr[y]);
            }
            ++r.stats_.collapsed;
        }
    }

    void add_edge(std::uint32_t from, std::uint32_t to) {
        if (unify) return join(ptr_of(from), ptr_of(to));
        from = find(from);
        to = find(to);
        if (from == to || !edges.insert((std::uint64_t{from} << 32) | to).second) return;
        succ[from].push_back(to);
        ++r.stats_.copy_edges;
        const bool grew = r.pts_[to] |= r.pts_[from];  // SparseBitVector: true when it changed
        if (grew) enqueue(to);
    }
    void enqueue(std::uint32_t n) {
        n = find(n);
        if (!queued[n]) {
            queued[n] = 1;
            work.push_back(n);
        }
    }
    /// dst ⊇ *p
    void add_load(std::uint32_t p, std::uint32_t dst) {
        if (unify) return join(ptr_of(dst), ptr_of(ptr_of(p)));
        p = find(p);
        loads[p].push_back(dst);
        const object_set now = r.pts_[p];
        for (object_id o : now) add_edge(content(o), dst);
    }
    /// *p ⊇ src
    void add_store(std::uint32_t p, std::uint32_t src) {
        if (unify) return join(ptr_of(ptr_of(p)), ptr_of(src));
        p = find(p);
        stores[p].push_back(src);
        const object_set now = r.pts_[p];
        for (object_id o : now) add_edge(src, content(o));
    }
    void add_icall(std::uint32_t fp, const L::CallBase* call) {
        if (unify) return ucalls.emplace_back(fp, call), void();
        fp = find(fp);
        icalls[fp].push_back(call);
        const object_set now = r.pts_[fp];
        for (object_id o : now)
            if (r.objects_[o].kind == object_kind::function) resolve(*call, *L::cast<L::Function>(r.objects_[o].site));
    }
    void add_pointee(std::uint32_t n, object_id o) {
        if (unify) return join(ptr_of(n), r.content_node_[o]);
        n = find(n);
        if (r.pts_[n].test_and_set(o)) enqueue(n);
    }
    /// The object an `alloca` or global variable is, when `p` is one (its
    /// address is then known without solving: loads and stores through it
    /// are plain copies), else ~0u.
    object_id known_object(const L::Value* p) {
        if (!L::isa<L::AllocaInst>(p) && !L::isa<L::GlobalVariable>(p)) return ~0u;
        node(p);  // its node answers `pointees` for the analyses
        return r.object_of_.lookup(p);
    }

    /// Collapses the cycles reachable from `start` in the copy graph (Tarjan,
    /// iterative): each strongly connected component becomes one node.
    void collapse_cycles(std::uint32_t start) {
        detail::scc_walker<std::uint32_t>().walk(
            find(start), [&](std::uint32_t n) { return succ[n].size(); },
            [&](std::uint32_t n, std::size_t k) { return find(succ[n][k]); },
            [&](std::span<const std::uint32_t> scc) {
                if (scc.size() > 1) merge(scc);
            });
    }
    /// Makes the nodes of `scc` one node (its first).
    void merge(std::span<const std::uint32_t> scc) {
        const std::uint32_t root = scc[0];
        for (std::size_t k = 1; k < scc.size(); ++k) {
            const std::uint32_t m = scc[k];
            rep[m] = root;
            r.pts_[root] |= r.pts_[m];
            auto move_all = [](auto& to, auto& from) {
                to.insert(to.end(), from.begin(), from.end());
                std::vector<typename std::decay_t<decltype(from)>::value_type>().swap(from);
            };
            move_all(succ[root], succ[m]);
            move_all(loads[root], loads[m]);
            move_all(stores[root], stores[m]);
            move_all(icalls[root], icalls[m]);
            r.pts_[m].clear();
            done[m].clear();
            ++r.stats_.collapsed;
        }
        for (auto& t : succ[root]) t = find(t);
        std::sort(succ[root].begin(), succ[root].end());
        succ[root].erase(std::unique(succ[root].begin(), succ[root].end()), succ[root].end());
        succ[root].erase(std::remove(succ[root].begin(), succ[root].end(), root), succ[root].end());
        done[root].clear();  // everything goes out again through the merged constraints
        enqueue(root);
    }

    /// The node of a value, created on first use; constants that hold no
    /// address give ~0u.
    std::uint32_t node(const L::Value* v) {
        if (auto it = r.node_.find(v); it != r.node_.end()) return it->second;
        if (L::isa<L::ConstantData>(v) || L::isa<L::MetadataAsValue>(v) || L::isa<L::BasicBlock>(v) ||
            L::isa<L::InlineAsm>(v))
            return ~0u;
        const std::uint32_t n = new_node();
        r.node_[v] = n;
        if (const auto* gv = L::dyn_cast<L::GlobalVariable>(v)) {
            add_pointee(n, r.object_of_.lookup(gv));
        } else if (const auto* f = L::dyn_cast<L::Function>(v)) {
            add_pointee(n, function_object(f));
        } else if (const auto* ga = L::dyn_cast<L::GlobalAlias>(v)) {
            if (auto a = node(ga->getAliasee()); a != ~0u) add_edge(a, n);
        } else if (const auto* c = L::dyn_cast<L::Constant>(v)) {
            // Constant expressions and aggregates hold what their operands hold.
            for (const L::Use& op : c->operands())
                if (auto a = node(op.get()); a != ~0u) add_edge(a, n);
        }
        return n;
    }
    object_id function_object(const L::Function* f) {
        if (auto it = fn_object.find(f); it != fn_object.end()) return it->second;
        const object_id o = new_object(object_kind::function, f, nullptr, f->getName().str());
        fn_object[f] = o;
        return o;
    }
    std::uint32_t returns_of(const L::Function* f) {
        if (auto it = ret_node.find(f); it != ret_node.end()) return it->second;
        const std::uint32_t n = new_node();
        ret_node[f] = n;
        return n;
    }
    void copy(const L::Value* from, const L::Value* to) {
        const std::uint32_t a = node(from);
        if (a != ~0u) add_edge(a, node(to));
    }

    /// The object holding `f`'s variadic arguments (made on first use).
    object_id varargs_of(const L::Function& f) {
        auto [it, fresh] = r.varargs_.try_emplace(&f, ~0u);
        if (fresh) it->second = new_object(object_kind::external, nullptr, &f, f.getName().str() + ".varargs");
        return it->second;
    }
    /// Binds a call to a callee with a body: arguments to parameters (the
    /// extra arguments of a variadic callee into its varargs object),
    /// returned values to the result.
    void bind_call(const L::CallBase& call, const L::Function& f) {
        for (unsigned i = 0; i < f.arg_size() && i < call.arg_size(); ++i) copy(call.getArgOperand(i), f.getArg(i));
        if (f.isVarArg())
            for (unsigned i = static_cast<unsigned>(f.arg_size()); i < call.arg_size(); ++i)
                if (auto a = node(call.getArgOperand(i)); a != ~0u) add_edge(a, content(varargs_of(f)));
        if (!call.getType()->isVoidTy()) add_edge(returns_of(&f), node(&call));
    }
    /// What a call to a function without a body does to addresses.
    void external_call(const L::CallBase& call, const L::Function* f) {
        const L::StringRef n = f ? f->getName() : L::StringRef();
        unsigned dst = 0, src = 1;
        if (f && is_allocator(*f)) {
            const object_id o = new_object(object_kind::heap, &call, call.getFunction(),
                                           "heap@" + call.getFunction()->getName().str());
            add_pointee(node(&call), o);
            if (n == "realloc" || n == "reallocarray") copy(call.getArgOperand(0), &call);
            return;
        }
        if (f && copies_memory(n, dst, src) && call.arg_size() > src) {
            const std::uint32_t t = new_node();
            if (auto s = node(call.getArgOperand(src)); s != ~0u) add_load(s, t);
            if (auto d = node(call.getArgOperand(dst)); d != ~0u) add_store(d, t);
            if (!call.getType()->isVoidTy()) copy(call.getArgOperand(dst), &call);
            return;
        }
        if (const L::Value* arg = nullptr; const L::Function* h = exit_handler(call, arg)) {
            // Runs after main (program.cpp) with the registered argument.
            if (arg && h->arg_size() >= 1) copy(arg, h->getArg(0));
            return;
        }
        if (n == "__cxa_throw") {
            // The thrown object's address goes to every landing pad.
            if (auto a = node(call.getArgOperand(0)); a != ~0u) add_edge(a, r.content_node_[exception_slot]);
            return;
        }
        if (f && f->getIntrinsicID() == L::Intrinsic::vastart) {
            // The va_list now addresses the function's variadic arguments.
            const std::uint32_t t = new_node();
            add_pointee(t, varargs_of(*call.getFunction()));
            if (auto ap = node(call.getArgOperand(0)); ap != ~0u) add_store(ap, t);
            return;
        }
        if (f && f->isIntrinsic()) return;  // other intrinsics move no addresses
        if (!call.getType()->isPointerTy()) return;
        // An unknown function may return one of its pointer arguments (strchr)
        // or memory of its own.
        for (const L::Use& a : call.args())
            if (a->getType()->isPointerTy()) copy(a.get(), &call);
        const object_id o = new_object(object_kind::external, &call, call.getFunction(),
                                       (f ? f->getName().str() : std::string("indirect")) + "()@" +
                                           call.getFunction()->getName().str());
        add_pointee(node(&call), o);
    }

    void instruction(const L::Instruction& i) {
        using namespace L;
        // Addresses written as constants (a global, `&g_buf[4]` as a
        // constant GEP) get their nodes whatever uses them, so that
        // `pointees` answers for every operand the analyses look at (a load
        // of an int from `g_arr[1]`, a global buffer passed to a sink). A
        // direct call's callee is not an address anything holds: no node.
        const auto* as_call = dyn_cast<CallBase>(&i);
        for (const Use& op : i.operands())
            if (isa<Constant>(op.get()) && op->getType()->isPointerTy() && !(as_call && as_call->isCallee(&op))) node(op.get());
        if (isa<AllocaInst>(&i)) {
            return;  // made before the constraints (run)
        } else if (const auto* ld = dyn_cast<LoadInst>(&i)) {
            if (!may_hold_address(ld->getType())) return;
            if (const object_id o = known_object(ld->getPointerOperand()); o != ~0u) add_edge(content(o), node(ld));
            else if (auto p = node(ld->getPointerOperand()); p != ~0u) add_load(p, node(ld));
        } else if (const auto* st = dyn_cast<StoreInst>(&i)) {
            auto v = node(st->getValueOperand());
            if (v == ~0u) return;
            if (const object_id o = known_object(st->getPointerOperand()); o != ~0u) add_edge(v, content(o));
            else if (auto p = node(st->getPointerOperand()); p != ~0u) add_store(p, v);
        } else if (const auto* cx = dyn_cast<AtomicCmpXchgInst>(&i)) {
            if (auto p = node(cx->getPointerOperand()); p != ~0u) {
                if (auto v = node(cx->getNewValOperand()); v != ~0u) add_store(p, v);
                add_load(p, node(cx));
            }
        } else if (const auto* rmw = dyn_cast<AtomicRMWInst>(&i)) {
            if (auto p = node(rmw->getPointerOperand()); p != ~0u) {
                if (auto v = node(rmw->getValOperand()); v != ~0u) add_store(p, v);
                add_load(p, node(rmw));
            }
        } else if (const auto* call = dyn_cast<CallBase>(&i)) {
            if (isa<DbgInfoIntrinsic>(call)) return;
            if (const Function* f = direct_callee(*call)) {
                if (f->isDeclaration()) external_call(*call, f);
                else bind_call(*call, *f);
                r.callees_[call] = {f};
            } else if (!call->isInlineAsm()) {
                ++r.stats_.indirect_calls;
                r.callees_[call];  // resolved while solving
                if (auto fp = node(call->getCalledOperand()); fp != ~0u) add_icall(fp, call);
            }
        } else if (const auto* ret = dyn_cast<ReturnInst>(&i)) {
            if (const Value* v = ret->getReturnValue()) {
                if (auto a = node(v); a != ~0u) add_edge(a, returns_of(ret->getFunction()));
            }
        } else if (isa<LandingPadInst>(&i)) {
            // A landing pad receives the address of whatever was thrown.
            add_edge(r.content_node_[exception_slot], node(&i));
        } else if (isa<GetElementPtrInst>(&i) || isa<CastInst>(&i) || isa<PHINode>(&i) || isa<SelectInst>(&i) ||
                   isa<BinaryOperator>(&i) || isa<ExtractValueInst>(&i) || isa<InsertValueInst>(&i) ||
                   isa<FreezeInst>(&i) || isa<ExtractElementInst>(&i) || isa<InsertElementInst>(&i) ||
                   isa<ShuffleVectorInst>(&i)) {
            // Field-insensitive: the result may hold any address an operand holds.
            if (isa<BinaryOperator>(&i) && !may_hold_address(i.getType())) return;
            if (isa<SelectInst>(&i)) {
                copy(i.getOperand(1), &i);
                copy(i.getOperand(2), &i);
                return;
            }
            if (const auto* gep = dyn_cast<GetElementPtrInst>(&i)) {
                copy(gep->getPointerOperand(), &i);
                return;
            }
            for (const Use& op : i.operands()) copy(op.get(), &i);
        }
    }

    void solve() {
        std::vector<std::uint32_t> suspects;
        while (!work.empty()) {
            const std::uint32_t n = work.front();
            work.pop_front();
            queued[n] = 0;
            if (find(n) != n) continue;  // merged into another node since
            ++r.stats_.iterations;
            object_set delta = r.pts_[n];
            delta.intersectWithComplement(done[n]);
            if (delta.empty()) continue;
            done[n] |= delta;
            // (index loops: resolving a call adds nodes, which moves these vectors)
            for (object_id o : delta) {
                const std::uint32_t c = content(o);
                for (std::size_t k = 0; k < loads[n].size(); ++k) add_edge(c, loads[n][k]);
                for (std::size_t k = 0; k < stores[n].size(); ++k) add_edge(stores[n][k], c);
                if (r.objects_[o].kind == object_kind::function)
                    for (std::size_t k = 0; k < icalls[n].size(); ++k)
                        resolve(*icalls[n][k], *L::cast<L::Function>(r.objects_[o].site));
            }
            suspects.clear();
            for (std::size_t k = 0; k < succ[n].size(); ++k) {
                const std::uint32_t s = find(succ[n][k]);
                if (s == n) continue;
                const bool grew = r.pts_[s] |= delta;
                if (grew) enqueue(s);
                // Lazy cycle detection: an edge whose ends hold the same set
                // may close a cycle; look once per edge.
                else if (r.pts_[s] == r.pts_[n] && checked.insert((std::uint64_t{n} << 32) | s).second)
                    suspects.push_back(s);
            }
            for (std::uint32_t s : suspects)
                if (find(s) != find(n)) collapse_cycles(s);
        }
    }
    L::DenseMap<const L::Function*, bool> keeps_type;  // address_keeps_type, once per function
    /// A target `f` for an indirect `call`: arity and parameter kinds fit,
    /// and when `f`'s address is never cast, the call's type is `f`'s.
    bool may_target(const L::CallBase& call, const L::Function& f) {
        if (!compatible(call, f)) return false;
        auto [it, fresh] = keeps_type.try_emplace(&f, false);
        if (fresh) it->second = address_keeps_type(f);
        return !it->second || same_type(call.getFunctionType(), f.getFunctionType());
    }
    bool resolve(const L::CallBase& call, const L::Function& f) {
        if (!may_target(call, f)) return false;
        auto& targets = r.callees_[&call];
        for (const auto* t : targets)
            if (t == &f) return false;
        targets.push_back(&f);
        ++r.stats_.resolved_targets;
        if (f.isDeclaration()) external_call(call, &f);
        else bind_call(call, f);
        return true;
    }

    /// Unification: binds indirect calls to the functions their pointer's
    /// class holds, until no call gains a target.
    void unify_calls() {
        for (bool changed = true; changed;) {
            changed = false;
            for (std::size_t k = 0; k < ucalls.size(); ++k) {
                const auto [fp, call] = ucalls[k];
                const std::vector<object_id> held = uobjs[ptr_of(fp)];  // a copy: binding joins classes
                for (object_id o : held)
                    if (r.objects_[o].kind == object_kind::function)
                        changed |= resolve(*call, *L::cast<L::Function>(r.objects_[o].site));
            }
        }
    }
    /// Unification: the answer as sets, one per class that holds objects; each
    /// value's node becomes the class it points to.
    void unify_answer() {
        const std::uint32_t none = new_node();  // points nowhere
        r.group_.assign(r.objects_.size(), 0);
        r.group_size_.assign(r.objects_.size(), 0);
        for (std::uint32_t n = 0; n < rep.size(); ++n) {
            r.pts_[n].clear();
            if (find(n) != n || uobjs[n].empty()) continue;
            const object_id g = *std::min_element(uobjs[n].begin(), uobjs[n].end());
            for (object_id o : uobjs[n]) r.group_[o] = g;
            r.group_size_[g] = static_cast<std::uint32_t>(uobjs[n].size());
            r.pts_[n].set(g);
        }
        auto target = [&](std::uint32_t n) { return uptr[find(n)] == ~0u ? none : find(uptr[find(n)]); };
        for (auto& [v, n] : r.node_) n = target(n);
        for (auto& n : r.content_node_) n = target(n);
    }

    void run(std::span<const L::Function* const> entries) {
        exception_slot = new_object(object_kind::external, nullptr, nullptr, "exception");
        for (const L::GlobalVariable& g : m.globals())
            new_object(object_kind::global, &g, nullptr, "@" + g.getName().str());
        for (const L::GlobalVariable& g : m.globals())
            if (g.hasInitializer())
                if (auto init = node(g.getInitializer()); init != ~0u)
                    add_edge(init, r.content_node_[r.object_of_.lookup(&g)]);
        for (const L::Function* f : entries) {
            for (const L::Argument& a : f->args()) {
                if (!a.getType()->isPointerTy()) continue;
                const std::string base = f->getName().str() + "." + (a.hasName() ? a.getName().str() : std::to_string(a.getArgNo()));
                const object_id o = new_object(object_kind::external, &a, f, base + ".mem");
                const object_id inner = new_object(object_kind::external, &a, f, base + ".mem.mem");
                add_pointee(node(&a), o);
                add_pointee(r.content_node_[o], inner);
            }
        }
        for (const L::Function& f : m)  // stack objects first: loads may come before their alloca in block order
            for (const L::BasicBlock& b : f)
                for (const L::Instruction& i : b)
                    if (const auto* a = L::dyn_cast<L::AllocaInst>(&i))
                        add_pointee(node(a), new_object(object_kind::stack, a, a->getFunction(),
                                                        a->hasName() ? a->getName().str() : std::string("alloca")));
        for (const L::Function& f : m)
            for (const L::BasicBlock& b : f)
                for (const L::Instruction& i : b) instruction(i);
        if (unify) {
            unify_calls();
            unify_answer();
        } else {
            solve();
            // Queries read each value's representative.
            for (auto& [v, n] : r.node_) n = find(n);
            for (auto& n : r.content_node_) n = find(n);
            for (std::uint32_t n = 0; n < rep.size(); ++n)
                if (find(n) != n) r.pts_[n].clear();
        }
        for (auto& [call, targets] : r.callees_)
            std::sort(targets.begin(), targets.end(), [](const L::Function* a, const L::Function* b) {
                return a->getName() < b->getName();
            });
        r.stats_.nodes = r.pts_.size();
        r.stats_.objects = r.objects_.size();
    }
};

points_to::points_to(const L::Module& m, std::span<const L::Function* const> entries, points_to_options opt) {
    engine_ = opt.engine;
    if (engine_ == points_to_engine::automatic) {
        std::size_t instructions = 0;
        for (const L::Function& f : m) instructions += f.getInstructionCount();
        engine_ = instructions <= opt.inclusion_max_instructions ? points_to_engine::inclusion : points_to_engine::unification;
    }
    points_to_builder b(*this, m);
    b.unify = engine_ == points_to_engine::unification;
    b.run(entries);
}

const char* points_to::engine_name() const {
    return engine_ == points_to_engine::unification ? "unification" : "inclusion";
}

const object_set& points_to::pointees(const L::Value* v) const {
    if (auto it = node_.find(v); it != node_.end()) return pts_[it->second];
    return empty_;
}

const object_set& points_to::contents(object_id o) const { return pts_[content_node_[o]]; }

object_set points_to::reachable_from(const L::Value* v) const {
    object_set seen = pointees(v);
    std::vector<object_id> stack;
    for (object_id o : seen) stack.push_back(o);
    while (!stack.empty()) {
        const object_id o = stack.back();
        stack.pop_back();
        for (object_id p : contents(o))
            if (seen.test_and_set(p)) stack.push_back(p);
    }
    return seen;
}

object_id points_to::object_of(const L::Value* site) const {
    if (auto it = object_of_.find(site); it != object_of_.end()) return it->second;
    return ~0u;
}

object_id points_to::varargs_object(const L::Function& f) const {
    const auto it = varargs_.find(&f);
    return it == varargs_.end() ? ~0u : group_of(it->second);
}

const std::vector<const L::Function*>& points_to::callees(const L::CallBase& call) const {
    if (auto it = callees_.find(&call); it != callees_.end()) return it->second;
    return no_callees_;
}

} // namespace weir::llvm
