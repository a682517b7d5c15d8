// The program model: entries, points-to, mod/ref, interprocedural CFG (program.hpp).

#include <weir/llvm/program.hpp>

#include <algorithm>
#include <map>

#include <llvm/IR/Constants.h>
#include <llvm/ADT/DepthFirstIterator.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IntrinsicInst.h>

#include <weir/llvm/error.hpp>
#include <weir/llvm/taint_config.hpp>

#include "names.hpp"
#include "scc.hpp"

namespace weir::llvm {

namespace L = ::llvm;

bool throws_always(const L::Instruction& i) {
    const auto* call = L::dyn_cast<L::CallBase>(&i);
    if (!call) return false;
    const L::Function* f = direct_callee(*call);
    if (!f) return false;
    const L::StringRef n = f->getName();
    return n == "__cxa_throw" || n == "__cxa_rethrow" || n == "_Unwind_Resume";
}

bool program::skipped(const L::Instruction& i) {
    if (L::isa<L::DbgInfoIntrinsic>(&i)) return true;
    if (const auto* ii = L::dyn_cast<L::IntrinsicInst>(&i))
        return ii->getIntrinsicID() == L::Intrinsic::lifetime_start || ii->getIntrinsicID() == L::Intrinsic::lifetime_end;
    return false;
}

namespace {
/// The functions of `llvm.global_ctors` / `llvm.global_dtors`, by priority.
std::vector<const L::Function*> structors(const L::Module& m, const char* name) {
    std::vector<std::pair<std::uint64_t, const L::Function*>> v;
    const auto* gv = m.getNamedGlobal(name);
    if (!gv || !gv->hasInitializer()) return {};
    const auto* arr = L::dyn_cast<L::ConstantArray>(gv->getInitializer());
    if (!arr) return {};
    for (const L::Use& u : arr->operands()) {
        const auto* s = L::dyn_cast<L::ConstantStruct>(u.get());
        if (!s || s->getNumOperands() < 2) continue;
        const auto* prio = L::dyn_cast<L::ConstantInt>(s->getOperand(0));
        const auto* f = L::dyn_cast<L::Function>(s->getOperand(1)->stripPointerCasts());
        if (f && !f->isDeclaration()) v.emplace_back(prio ? prio->getZExtValue() : 65535, f);
    }
    std::stable_sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.first < b.first; });
    std::vector<const L::Function*> out;
    for (auto& [p, f] : v) out.push_back(f);
    return out;
}
} // namespace

program::program(const L::Module& m, const std::vector<std::string>& entry_names, points_to_options pto) : m_(&m) {
    if (!entry_names.empty()) {
        for (const auto& n : entry_names) {
            const L::Function* f = m.getFunction(n);
            if (!f) {  // a C++ name, demangled with or without its parameter list (`ns::f(int)`, `ns::f`)
                for (const L::Function& g : m)
                    if (!f && !g.isDeclaration() && g.getName().startswith("_Z") &&
                        (demangle(g.getName()) == n || short_function_name(g.getName()) == n))
                        f = &g;
            }
            if (!f || f->isDeclaration())
                throw input_error("", 0, "--entry " + n + ": no function with a body has this name in the module");
            if (std::find(entries_.begin(), entries_.end(), f) == entries_.end()) entries_.push_back(f);
        }
    } else if (const L::Function* main = m.getFunction("main"); main && !main->isDeclaration()) {
        entries_.push_back(main);
    } else {
        for (const L::Function& f : m)
            if (!f.isDeclaration() && !f.hasLocalLinkage()) entries_.push_back(&f);
    }
    if (entries_.empty())
        throw nothing_to_analyze(m.getModuleIdentifier(), 0,
                                 "nothing to analyze: no externally visible function with a body (name one with --entry)");
    // `main` among the entries: constructors run before it and destructors after it.
    for (const L::Function* e : entries_)
        if (e->getName() == "main") main_ = e;
    const bool has_main = main_ != nullptr;
    if (has_main) {
        ctors_ = structors(m, "llvm.global_ctors");
        // At exit: the functions named at atexit/__cxa_atexit calls (a C++
        // static object's destructor), in the reverse of the calls' order
        // in the module, then the module's destructors (glibc runs
        // .fini_array after the handlers).
        for (const L::Function& f : m)
            for (const L::BasicBlock& b : f)
                for (const L::Instruction& i : b)
                    if (const auto* c = L::dyn_cast<L::CallBase>(&i)) {
                        const L::Value* arg = nullptr;
                        if (const L::Function* h = exit_handler(*c, arg);
                            h && std::find(dtors_.begin(), dtors_.end(), h) == dtors_.end())
                            dtors_.push_back(h);
                    }
        std::reverse(dtors_.begin(), dtors_.end());
        for (const L::Function* f : structors(m, "llvm.global_dtors")) dtors_.push_back(f);
    }
    pts_ = std::make_unique<points_to>(m, entries_, pto);

    // Mod/ref: what each function touches directly, then through its callees.
    // A stack object whose address never leaves its frame (not stored, not
    // passed, not returned) is no business of any other function: it is left
    // out, so the sets stay small and callers keep it around their calls.
    object_set escaped;
    for (object_id o = 0; o < pts_->objects().size(); ++o) escaped |= pts_->contents(o);
    for (const L::Function& f : m)
        for (const L::BasicBlock& b : f)
            for (const L::Instruction& i : b) {
                if (const auto* c = L::dyn_cast<L::CallBase>(&i)) {
                    for (const L::Use& a : c->args()) escaped |= pts_->pointees(a.get());
                } else if (const auto* r = L::dyn_cast<L::ReturnInst>(&i); r && r->getReturnValue()) {
                    escaped |= pts_->pointees(r->getReturnValue());
                }
            }
    auto shared = [&](const object_set& s) {
        object_set out;
        for (object_id o : s)
            if (pts_->objects()[o].kind != object_kind::stack || escaped.test(o)) out.set(o);
        return out;
    };
    std::vector<const L::Function*> fns;
    L::DenseMap<const L::Function*, std::vector<const L::Function*>> callers;
    for (const L::Function& f : m) {
        if (f.isDeclaration()) continue;
        fns.push_back(&f);
        object_set& acc = access_[&f];
        for (const L::BasicBlock& b : f)
            for (const L::Instruction& i : b) {
                if (const auto* ld = L::dyn_cast<L::LoadInst>(&i)) acc |= shared(pts_->pointees(ld->getPointerOperand()));
                else if (const auto* st = L::dyn_cast<L::StoreInst>(&i)) acc |= shared(pts_->pointees(st->getPointerOperand()));
                else if (const auto* c = L::dyn_cast<L::CallBase>(&i)) {
                    if (skipped(i)) continue;
                    for (const L::Function* g : defined_callees(*c)) callers[g].push_back(&f);
                    if (may_call_external(*c))
                        for (const L::Use& a : c->args())
                            if (a->getType()->isPointerTy()) acc |= shared(pts_->reachable_from(a.get()));
                } else if (const auto* x = L::dyn_cast<L::AtomicCmpXchgInst>(&i)) {
                    acc |= shared(pts_->pointees(x->getPointerOperand()));
                } else if (const auto* x = L::dyn_cast<L::AtomicRMWInst>(&i)) {
                    acc |= shared(pts_->pointees(x->getPointerOperand()));
                }
            }
    }
    std::vector<const L::Function*> work(fns.rbegin(), fns.rend());
    L::DenseMap<const L::Function*, char> queued;
    for (const auto* f : fns) queued[f] = 1;
    while (!work.empty()) {
        const L::Function* f = work.back();
        work.pop_back();
        queued[f] = 0;
        const object_set mine = access_[f];
        for (const L::Function* c : callers[f])
            if ((access_[c] |= mine) && !queued[c]) {
                queued[c] = 1;
                work.push_back(c);
            }
    }

    find_recursion(fns, callers);
    for (const L::Function* f : fns) assign_slots(*f);

    // The ICFG: per procedure a start and an exit node, then its instructions.
    for (const L::Function* f : fns) {
        const auto p = static_cast<std::uint32_t>(procs_.size());
        procs_.push_back(f);
        proc_of_[f] = p;
        proc_start_.push_back(static_cast<std::uint32_t>(nodes_.size()));
        nodes_.push_back({node_role::start, p, nullptr});
        nodes_.push_back({node_role::exit, p, nullptr});
        for (const L::BasicBlock& b : *f)
            for (const L::Instruction& i : b) {
                if (skipped(i)) continue;
                node_of_[&i] = static_cast<std::uint32_t>(nodes_.size());
                nodes_.push_back({node_role::instruction, p, &i});
                if (const auto* inv = L::dyn_cast<L::InvokeInst>(&i); inv && !defined_callees(*inv).empty()) {
                    invoke_ret_[&i] = static_cast<std::uint32_t>(nodes_.size());
                    nodes_.push_back({node_role::invoke_return, p, &i});
                }
            }
    }
    if (has_main && (!ctors_.empty() || !dtors_.empty())) {
        root_ = static_cast<std::uint32_t>(procs_.size());
        procs_.push_back(nullptr);
        proc_start_.push_back(static_cast<std::uint32_t>(nodes_.size()));
        nodes_.push_back({node_role::program_start, root_, nullptr});
        nodes_.push_back({node_role::program_exit, root_, nullptr});
        for (std::size_t k = 0; k < ctors_.size() + 1 + dtors_.size(); ++k) nodes_.push_back({node_role::program_call, root_, nullptr});
    }
}

std::uint32_t program::value_slot(const L::Value* v) const {
    if (auto it = slot_.find(v); it != slot_.end()) return it->second;
    return ~0u;
}

void program::assign_slots(const L::Function& f) {
    // Which values share: not phi-related, defined in a reachable block.
    L::DominatorTree dt(const_cast<L::Function&>(f));
    auto own_slot = [&](const L::Value* v) { slot_[v] = slot_count_++; };
    std::vector<const L::Value*> shared;
    auto phi_related = [](const L::Value* v) {
        if (L::isa<L::PHINode>(v)) return true;
        for (const L::User* u : v->users())
            if (L::isa<L::PHINode>(u)) return true;
        return false;
    };
    for (const L::Argument& a : f.args()) (phi_related(&a) ? own_slot(&a) : shared.push_back(&a));
    for (const L::BasicBlock& b : f)
        for (const L::Instruction& i : b) {
            if (i.getType()->isVoidTy()) continue;
            if (!dt.isReachableFromEntry(&b) || phi_related(&i)) own_slot(&i);
            else shared.push_back(&i);
        }
    // Liveness of the shared values, block by block (uses are never phis).
    L::DenseMap<const L::BasicBlock*, std::vector<const L::Value*>> live_in, live_out;
    L::DenseSet<const L::BasicBlock*> seen;
    std::vector<const L::BasicBlock*> work;
    for (const L::Value* v : shared) {
        const L::BasicBlock* def = L::isa<L::Instruction>(v) ? L::cast<L::Instruction>(v)->getParent() : &f.getEntryBlock();
        seen.clear();
        work.clear();
        for (const L::User* u : v->users()) {
            const auto* ui = L::dyn_cast<L::Instruction>(u);
            if (!ui || ui->getParent() == def || !dt.isReachableFromEntry(ui->getParent())) continue;
            if (seen.insert(ui->getParent()).second) work.push_back(ui->getParent());
        }
        for (const L::BasicBlock* b : work) live_in[b].push_back(v);
        while (!work.empty()) {
            const L::BasicBlock* b = work.back();
            work.pop_back();
            for (const L::BasicBlock* p : L::predecessors(b)) {
                auto& out = live_out[p];
                if (out.empty() || out.back() != v) out.push_back(v);
                if (p != def && seen.insert(p).second) {
                    live_in[p].push_back(v);
                    work.push_back(p);
                }
            }
        }
    }
    // Colouring in dominator-tree order: a value takes the lowest slot free at
    // its definition; a slot is free again after the value's last use.
    const std::uint32_t base = slot_count_;
    std::uint32_t used = 0;
    L::DenseMap<const L::Value*, std::uint32_t> colour;
    L::DenseSet<const L::Value*> is_shared(shared.begin(), shared.end());
    std::vector<char> busy;
    auto take = [&](const L::Value* v) {
        std::uint32_t c = 0;
        while (c < busy.size() && busy[c]) ++c;
        if (c == busy.size()) busy.push_back(0);
        busy[c] = 1;
        colour[v] = c;
        used = std::max(used, c + 1);
    };
    for (const L::DomTreeNode* node : L::depth_first(dt.getRootNode())) {
        const L::BasicBlock* b = node->getBlock();
        busy.assign(busy.size(), 0);
        for (const L::Value* v : live_in.lookup(b)) busy[colour.lookup(v)] = 1;
        if (b == &f.getEntryBlock()) {
            for (const L::Argument& a : f.args())
                if (is_shared.count(&a)) take(&a);
            for (const L::Argument& a : f.args())
                if (is_shared.count(&a) && a.use_empty()) busy[colour[&a]] = 0;
        }
        // Last use in this block of each value that dies here.
        const std::vector<const L::Value*> out_list = live_out.lookup(b);
        L::DenseSet<const L::Value*> out(out_list.begin(), out_list.end());
        L::DenseMap<const L::Value*, const L::Instruction*> last;
        for (const L::Instruction& i : *b)
            for (const L::Use& op : i.operands())
                if (is_shared.count(op.get()) && !out.count(op.get())) last[op.get()] = &i;
        for (const L::Instruction& i : *b) {
            if (is_shared.count(&i)) take(&i);
            for (const L::Use& op : i.operands())
                if (auto it = last.find(op.get()); it != last.end() && it->second == &i) busy[colour[op.get()]] = 0;
            if (is_shared.count(&i) && i.use_empty()) busy[colour[&i]] = 0;  // dead on arrival
        }
    }
    for (const L::Value* v : shared) slot_[v] = base + colour.lookup(v);
    slot_count_ = base + used;
}

void program::find_recursion(const std::vector<const L::Function*>& fns,
                             const L::DenseMap<const L::Function*, std::vector<const L::Function*>>& callers) {
    // Components of the reversed call graph (they are the call graph's).
    static const std::vector<const L::Function*> no_callers;
    auto callers_of = [&](const L::Function* f) -> const std::vector<const L::Function*>& {
        auto it = callers.find(f);
        return it == callers.end() ? no_callers : it->second;
    };
    detail::scc_walker<const L::Function*> walker;
    for (const L::Function* root : fns)
        walker.walk(
            root, [&](const L::Function* f) { return callers_of(f).size(); },
            [&](const L::Function* f, std::size_t k) { return callers_of(f)[k]; },
            [&](std::span<const L::Function* const> scc) {
                const auto& self = callers_of(scc[0]);
                if (scc.size() > 1 || std::find(self.begin(), self.end(), scc[0]) != self.end())
                    recursive_.insert(scc.begin(), scc.end());
            });
}

std::vector<const L::Function*> program::defined_callees(const L::CallBase& call) const {
    std::vector<const L::Function*> out;
    for (const L::Function* f : pts_->callees(call))
        if (!f->isDeclaration()) out.push_back(f);
    return out;
}

bool program::may_call_external(const L::CallBase& call) const {
    const auto& cs = pts_->callees(call);
    if (cs.empty()) return true;
    for (const L::Function* f : cs)
        if (f->isDeclaration()) return true;
    return false;
}

const object_set& program::accessed_by(const L::Function& f) const {
    if (auto it = access_.find(&f); it != access_.end()) return it->second;
    return none_;
}

std::uint32_t program::procedure_of(const L::Function& f) const {
    if (auto it = proc_of_.find(&f); it != proc_of_.end()) return it->second;
    return ~0u;
}

std::uint32_t program::node_of(const L::Instruction& i) const {
    if (auto it = node_of_.find(&i); it != node_of_.end()) return it->second;
    return ~0u;
}

namespace {
const L::Instruction* first_node_inst(const L::BasicBlock& b) {
    for (const L::Instruction& i : b)
        if (!program::skipped(i)) return &i;
    return nullptr;
}
} // namespace

std::uint32_t program::return_node(const L::CallBase& call) const {
    if (auto it = invoke_ret_.find(&call); it != invoke_ret_.end()) return it->second;
    for (const L::Instruction* i = call.getNextNode(); i; i = i->getNextNode())
        if (!skipped(*i)) return node_of(*i);
    return ~0u;
}

std::vector<std::uint32_t> program::successors(std::uint32_t n) const {
    const icfg_node& node = nodes_[n];
    std::vector<std::uint32_t> out;
    auto block = [&](const L::BasicBlock* b) {
        if (const L::Instruction* i = first_node_inst(*b)) {
            const std::uint32_t t = node_of(*i);
            if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
        }
    };
    const std::uint32_t exit = exit_node(node.proc);
    switch (node.role) {
    case node_role::start: block(&procs_[node.proc]->getEntryBlock()); return out;
    case node_role::exit:
    case node_role::program_exit: return out;
    case node_role::program_start: return {proc_start_[node.proc] + 2};
    case node_role::program_call: return {n + 1 < nodes_.size() && nodes_[n + 1].role == node_role::program_call ? n + 1 : exit};
    case node_role::invoke_return: {
        const auto* inv = L::cast<L::InvokeInst>(node.inst);
        block(inv->getNormalDest());
        block(inv->getUnwindDest());
        return out;
    }
    case node_role::instruction: break;
    }
    const L::Instruction& i = *node.inst;
    if (const auto* call = L::dyn_cast<L::CallBase>(&i); call && !defined_callees(*call).empty())
        return {return_node(*call)};
    if (!i.isTerminator()) {
        for (const L::Instruction* j = i.getNextNode(); j; j = j->getNextNode())
            if (!skipped(*j)) return {node_of(*j)};
        return out;
    }
    if (L::isa<L::ReturnInst>(&i) || L::isa<L::ResumeInst>(&i)) return {exit};
    if (L::isa<L::UnreachableInst>(&i)) {
        const L::Instruction* prev = i.getPrevNode();
        while (prev && skipped(*prev)) prev = prev->getPrevNode();
        if (prev && throws_always(*prev)) return {exit};
        return out;
    }
    for (const L::BasicBlock* s : L::successors(&i)) block(s);
    // Windows-style EH terminators that unwind to the caller.
    if (const auto* cr = L::dyn_cast<L::CleanupReturnInst>(&i); cr && cr->unwindsToCaller()) out.push_back(exit);
    if (const auto* cs = L::dyn_cast<L::CatchSwitchInst>(&i); cs && cs->unwindsToCaller()) out.push_back(exit);
    return out;
}

} // namespace weir::llvm
