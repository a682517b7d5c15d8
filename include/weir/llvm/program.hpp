#pragma once
/// \file weir/llvm/program.hpp
/// `weir::llvm::program`: what every analysis of one module shares — the
/// entry procedures, the points-to result and call graph, the objects each
/// function may access (itself or through its callees), and the
/// interprocedural CFG over instructions (one node per instruction, a start
/// and an exit node per function with a body, a return node after each
/// `invoke` so that exceptions follow both edges).

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <weir/llvm/points_to.hpp>

namespace weir::llvm {

/// Node roles in the interprocedural CFG.
enum class node_role : std::uint8_t { start, exit, instruction, invoke_return, program_start, program_exit, program_call };

/// One node of the interprocedural CFG.
struct icfg_node {
    node_role role = node_role::instruction;
    std::uint32_t proc = 0;                       ///< index into `program::procedures()`
    const ::llvm::Instruction* inst = nullptr;    ///< the instruction (instruction, invoke_return: the invoke)
};

/// The module's program model: entries, points-to, call graph, mod/ref and ICFG.
class program {
public:
    /// Builds the model of `m` (which must outlive it). `entry_names` empty:
    /// `main` when defined, else every externally visible defined function.
    /// Throws `input_error` for an entry that names no defined function, or
    /// when there is no entry at all.
    program(const ::llvm::Module& m, const std::vector<std::string>& entry_names, points_to_options pto = {});

    /// The module.
    const ::llvm::Module& module() const { return *m_; }
    /// Where analysis starts (defined functions).
    std::span<const ::llvm::Function* const> entries() const { return entries_; }
    /// Global constructors then destructors run around `main` (`llvm.global_ctors`/`dtors`, by priority).
    std::span<const ::llvm::Function* const> constructors() const { return ctors_; }
    /// What runs after `main`: the functions named at calls of `atexit` or
    /// `__cxa_atexit` (C++ static objects' destructors), in the reverse of
    /// the order the calls appear in the module, then `llvm.global_dtors`.
    std::span<const ::llvm::Function* const> destructors() const { return dtors_; }
    /// The points-to result (also the call graph: `points_to::callees`).
    const points_to& pointers() const { return *pts_; }
    /// The callees of a call that have a body.
    std::vector<const ::llvm::Function*> defined_callees(const ::llvm::CallBase& call) const;
    /// True when the call may reach code without a body (a declaration, or an unresolved pointer).
    bool may_call_external(const ::llvm::CallBase& call) const;
    /// The objects `f` may read or write, itself or through its callees
    /// (transitively), leaving out stack objects whose address never leaves
    /// their frame (only their own function touches them).
    const object_set& accessed_by(const ::llvm::Function& f) const;
    /// True when `f` may call itself, directly or through other functions
    /// (it lies on a cycle of the call graph, indirect calls resolved): a
    /// frame of `f` may then see an older frame's locals through pointers.
    bool recursive(const ::llvm::Function& f) const { return recursive_.contains(&f); }

    /// Procedures of the ICFG: the functions with a body, then (when the
    /// module has global constructors or destructors and `main`) a synthetic
    /// root that calls constructors, `main`, destructors (a null entry here).
    const std::vector<const ::llvm::Function*>& procedures() const { return procs_; }
    /// Every ICFG node.
    const std::vector<icfg_node>& nodes() const { return nodes_; }
    /// Start and exit node of procedure p.
    std::uint32_t start_node(std::uint32_t p) const { return proc_start_[p]; }
    /// Exit node of procedure p.
    std::uint32_t exit_node(std::uint32_t p) const { return proc_start_[p] + 1; }
    /// The procedure index of a function with a body, or ~0u.
    std::uint32_t procedure_of(const ::llvm::Function& f) const;
    /// The node of an instruction (debug intrinsics have none: ~0u).
    std::uint32_t node_of(const ::llvm::Instruction& i) const;
    /// The nodes control reaches after node n inside its procedure (for a
    /// call with defined callees: its return node).
    std::vector<std::uint32_t> successors(std::uint32_t n) const;
    /// The return node of an instruction that is a call with defined callees.
    std::uint32_t return_node(const ::llvm::CallBase& call) const;
    /// True when instruction nodes skip `i` (debug intrinsics).
    static bool skipped(const ::llvm::Instruction& i);
    /// The root procedure (constructors, main, destructors), or ~0u: there
    /// is one when `main` is an entry and the module has constructors or
    /// destructors; the other entries start on their own.
    std::uint32_t root() const { return root_; }
    /// The entry the root procedure calls (`main`), or null when there is no root.
    const ::llvm::Function* root_entry() const { return root_ == ~0u ? nullptr : main_; }

    /// The value slot of an SSA value (argument or instruction with a
    /// result), unique in the module, or ~0u for anything else. Values of
    /// one function whose live ranges never overlap share a slot (as
    /// registers do), so an analysis whose facts are "value v has the
    /// property" needs only as many value facts per function as values are
    /// live at once: `fact_table` interns value facts by slot. Values that
    /// `phi`s use or define, and values in unreachable blocks, keep a slot of
    /// their own.
    std::uint32_t value_slot(const ::llvm::Value* v) const;
    /// The number of value slots in the module.
    std::uint32_t value_slots() const { return slot_count_; }

private:
    const ::llvm::Module* m_;
    std::vector<const ::llvm::Function*> entries_, ctors_, dtors_;
    std::unique_ptr<points_to> pts_;
    ::llvm::DenseMap<const ::llvm::Function*, object_set> access_;
    object_set none_;
    ::llvm::DenseSet<const ::llvm::Function*> recursive_;
    std::vector<const ::llvm::Function*> procs_;
    ::llvm::DenseMap<const ::llvm::Function*, std::uint32_t> proc_of_;
    std::vector<std::uint32_t> proc_start_;
    std::vector<icfg_node> nodes_;
    ::llvm::DenseMap<const ::llvm::Instruction*, std::uint32_t> node_of_;
    ::llvm::DenseMap<const ::llvm::Instruction*, std::uint32_t> invoke_ret_;
    std::uint32_t root_ = ~0u;
    const ::llvm::Function* main_ = nullptr;  // `main`, when it is an entry
    ::llvm::DenseMap<const ::llvm::Value*, std::uint32_t> slot_;
    std::uint32_t slot_count_ = 0;
    void assign_slots(const ::llvm::Function& f);
    /// Fills `recursive_`: the functions on a cycle of `callers` (callee ->
    /// its callers), by Tarjan's strongly connected components.
    void find_recursion(const std::vector<const ::llvm::Function*>& fns,
                        const ::llvm::DenseMap<const ::llvm::Function*, std::vector<const ::llvm::Function*>>& callers);
};

/// True for calls after which control never comes back except by unwinding
/// (`__cxa_throw`, `__cxa_rethrow`, `_Unwind_Resume`): the `unreachable`
/// after them leads to the function's exit, so exceptions leave it.
bool throws_always(const ::llvm::Instruction& i);

} // namespace weir::llvm
