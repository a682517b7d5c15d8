// Inclusion-based (Andersen) points-to analysis with an on-the-fly call graph (points_to.hpp).

#include <weir/llvm/points_to.hpp>

#include <deque>

#include <llvm/ADT/DenseSet.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Operator.h>

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

namespace {
/// Calls whose destination memory receives the source memory's contents (dst, src argument indices).
bool copies_memory(L::StringRef n, unsigned& dst, unsigned& src) {
    dst = 0;
    src = 1;
    return n.startswith("llvm.memcpy") || n.startswith("llvm.memmove") || n == "memcpy" || n == "memmove" ||
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
} // namespace

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
        return static_cast<std::uint32_t>(r.pts_.size() - 1);
    }
    object_id new_object(object_kind k, const L::Value* site, const L::Function* owner, std::string name) {
        r.objects_.push_back({k, site, owner, std::move(name)});
        r.content_node_.push_back(new_node());
        const auto o = static_cast<object_id>(r.objects_.size() - 1);
        if (site && k != object_kind::external) r.object_of_[site] = o;
        return o;
    }
    void add_edge(std::uint32_t from, std::uint32_t to) {
        if (from == to || !edges.insert((std::uint64_t{from} << 32) | to).second) return;
        succ[from].push_back(to);
        ++r.stats_.copy_edges;
        if (r.pts_[to] |= r.pts_[from]) enqueue(to);
    }
    void enqueue(std::uint32_t n) {
        if (!queued[n]) {
            queued[n] = 1;
            work.push_back(n);
        }
    }
    /// dst ⊇ *p
    void add_load(std::uint32_t p, std::uint32_t dst) {
        loads[p].push_back(dst);
        const object_set now = r.pts_[p];
        for (object_id o : now) add_edge(r.content_node_[o], dst);
    }
    /// *p ⊇ src
    void add_store(std::uint32_t p, std::uint32_t src) {
        stores[p].push_back(src);
        const object_set now = r.pts_[p];
        for (object_id o : now) add_edge(src, r.content_node_[o]);
    }
    void add_icall(std::uint32_t fp, const L::CallBase* call) {
        icalls[fp].push_back(call);
        const object_set now = r.pts_[fp];
        for (object_id o : now)
            if (r.objects_[o].kind == object_kind::function) resolve(*call, *L::cast<L::Function>(r.objects_[o].site));
    }
    void add_pointee(std::uint32_t n, object_id o) {
        if (r.pts_[n].test_and_set(o)) enqueue(n);
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

    /// Binds a call to a callee with a body: arguments to parameters, returned values to the result.
    void bind_call(const L::CallBase& call, const L::Function& f) {
        for (unsigned i = 0; i < f.arg_size() && i < call.arg_size(); ++i) copy(call.getArgOperand(i), f.getArg(i));
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
        if (n == "__cxa_throw") {
            // The thrown object's address goes to every landing pad.
            if (auto a = node(call.getArgOperand(0)); a != ~0u) add_edge(a, r.content_node_[exception_slot]);
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
        if (const auto* a = dyn_cast<AllocaInst>(&i)) {
            const object_id o = new_object(object_kind::stack, a, a->getFunction(),
                                           a->hasName() ? a->getName().str() : std::string("alloca"));
            add_pointee(node(a), o);
        } else if (const auto* ld = dyn_cast<LoadInst>(&i)) {
            if (!may_hold_address(ld->getType())) return;
            if (auto p = node(ld->getPointerOperand()); p != ~0u) add_load(p, node(ld));
        } else if (const auto* st = dyn_cast<StoreInst>(&i)) {
            auto v = node(st->getValueOperand());
            if (v == ~0u) return;
            if (auto p = node(st->getPointerOperand()); p != ~0u) add_store(p, v);
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
        while (!work.empty()) {
            const std::uint32_t n = work.front();
            work.pop_front();
            queued[n] = 0;
            ++r.stats_.iterations;
            object_set delta = r.pts_[n];
            delta.intersectWithComplement(done[n]);
            if (delta.empty()) continue;
            done[n] |= delta;
            // (index loops: resolving a call adds nodes, which moves these vectors)
            for (object_id o : delta) {
                const std::uint32_t c = r.content_node_[o];
                for (std::size_t k = 0; k < loads[n].size(); ++k) add_edge(c, loads[n][k]);
                for (std::size_t k = 0; k < stores[n].size(); ++k) add_edge(stores[n][k], c);
                if (r.objects_[o].kind == object_kind::function)
                    for (std::size_t k = 0; k < icalls[n].size(); ++k)
                        resolve(*icalls[n][k], *L::cast<L::Function>(r.objects_[o].site));
            }
            for (std::size_t k = 0; k < succ[n].size(); ++k)
                if (r.pts_[succ[n][k]] |= delta) enqueue(succ[n][k]);
        }
    }
    void resolve(const L::CallBase& call, const L::Function& f) {
        if (!compatible(call, f)) return;
        auto& targets = r.callees_[&call];
        for (const auto* t : targets)
            if (t == &f) return;
        targets.push_back(&f);
        ++r.stats_.resolved_targets;
        if (f.isDeclaration()) external_call(call, &f);
        else bind_call(call, f);
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
        for (const L::Function& f : m)
            for (const L::BasicBlock& b : f)
                for (const L::Instruction& i : b) instruction(i);
        solve();
        for (auto& [call, targets] : r.callees_)
            std::sort(targets.begin(), targets.end(), [](const L::Function* a, const L::Function* b) {
                return a->getName() < b->getName();
            });
        r.stats_.nodes = r.pts_.size();
        r.stats_.objects = r.objects_.size();
    }
};

points_to::points_to(const L::Module& m, std::span<const L::Function* const> entries) {
    points_to_builder b(*this, m);
    b.run(entries);
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

const std::vector<const L::Function*>& points_to::callees(const L::CallBase& call) const {
    if (auto it = callees_.find(&call); it != callees_.end()) return it->second;
    return no_callees_;
}

} // namespace weir::llvm
