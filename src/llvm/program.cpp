// The program model: entries, points-to, mod/ref, interprocedural CFG (program.hpp).

#include <weir/llvm/program.hpp>

#include <algorithm>
#include <map>

#include <llvm/IR/Constants.h>
#include <llvm/IR/IntrinsicInst.h>

#include <weir/llvm/error.hpp>

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

program::program(const L::Module& m, const std::vector<std::string>& entry_names) : m_(&m) {
    if (!entry_names.empty()) {
        for (const auto& n : entry_names) {
            const L::Function* f = m.getFunction(n);
            if (!f) {  // a demangled or unmangled C++ name
                for (const L::Function& g : m)
                    if (!g.isDeclaration() && (g.getName() == n)) f = &g;
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
        throw input_error(m.getModuleIdentifier(), 0,
                          "nothing to analyze: no externally visible function with a body (name one with --entry)");
    const bool has_main = entries_.size() == 1 && entries_[0]->getName() == "main";
    if (has_main) {
        ctors_ = structors(m, "llvm.global_ctors");
        dtors_ = structors(m, "llvm.global_dtors");
    }
    pts_ = std::make_unique<points_to>(m, entries_);

    // Mod/ref: what each function touches directly, then through its callees.
    std::vector<const L::Function*> fns;
    L::DenseMap<const L::Function*, std::vector<const L::Function*>> callers;
    for (const L::Function& f : m) {
        if (f.isDeclaration()) continue;
        fns.push_back(&f);
        object_set& acc = access_[&f];
        for (const L::BasicBlock& b : f)
            for (const L::Instruction& i : b) {
                if (const auto* ld = L::dyn_cast<L::LoadInst>(&i)) acc |= pts_->pointees(ld->getPointerOperand());
                else if (const auto* st = L::dyn_cast<L::StoreInst>(&i)) acc |= pts_->pointees(st->getPointerOperand());
                else if (const auto* c = L::dyn_cast<L::CallBase>(&i)) {
                    if (skipped(i)) continue;
                    for (const L::Function* g : defined_callees(*c)) callers[g].push_back(&f);
                    if (may_call_external(*c))
                        for (const L::Use& a : c->args())
                            if (a->getType()->isPointerTy()) acc |= pts_->reachable_from(a.get());
                } else if (const auto* x = L::dyn_cast<L::AtomicCmpXchgInst>(&i)) {
                    acc |= pts_->pointees(x->getPointerOperand());
                } else if (const auto* x = L::dyn_cast<L::AtomicRMWInst>(&i)) {
                    acc |= pts_->pointees(x->getPointerOperand());
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
