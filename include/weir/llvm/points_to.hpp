#pragma once
/// \file weir/llvm/points_to.hpp
/// A whole-module, flow-insensitive, field-insensitive points-to analysis
/// with an on-the-fly call graph: it resolves function pointers and C++
/// virtual calls while it solves. Two engines: inclusion-based (Andersen,
/// with lazy cycle detection; the precise one) and unification-based
/// (Steensgaard, near-linear; for large modules, where inclusion's sets
/// grow past what a run can afford). `automatic` picks inclusion up to
/// `points_to_options::inclusion_max_instructions`. Abstract memory
/// objects are one per `alloca`, global variable, heap allocation site
/// (`malloc`, `calloc`, `realloc`, `strdup`, `operator new`, `new[]`, ...),
/// function, and external object (what an entry's pointer parameters, an
/// unknown external function's result, or a thrown exception address, and
/// a variadic function's extra arguments: `varargs_object`).
/// Memory is one cell per object (spec: analyze.md, "What each analysis reports").

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/SparseBitVector.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Module.h>

namespace weir::llvm {

/// Dense id of an abstract memory object.
using object_id = std::uint32_t;
/// A set of objects.
using object_set = ::llvm::SparseBitVector<>;

/// What an abstract object stands for.
enum class object_kind { stack, global, heap, function, external };

/// One abstract memory object.
struct memory_object {
    object_kind kind = object_kind::external;
    /// The `alloca`, global, allocating call, or function; the call or
    /// argument an external object belongs to (may be null for the exception slot).
    const ::llvm::Value* site = nullptr;
    /// The function whose frame holds it (stack objects, and a variadic
    /// function's varargs object), else null.
    const ::llvm::Function* owner = nullptr;
    /// A readable name (`x` for an alloca named x, `@g`, `heap@F:12`, ...).
    std::string name;
};

/// Which points-to engine solves a module.
enum class points_to_engine { automatic, inclusion, unification };

/// How to run the points-to analysis.
struct points_to_options {
    points_to_engine engine = points_to_engine::automatic;
    /// `automatic`: inclusion-based up to this many instructions in the module.
    std::size_t inclusion_max_instructions = 50000;
};

/// Statistics of one points-to solve.
struct points_to_stats {
    std::size_t nodes = 0, objects = 0, copy_edges = 0, iterations = 0, indirect_calls = 0, resolved_targets = 0;
    std::size_t collapsed = 0;  ///< nodes merged into others (cycles)
};

/// The result of the points-to analysis of one module.
class points_to {
public:
    /// Solves for `m`; `entries` get external objects behind their pointer
    /// parameters (and `main`'s `argv` strings behind `argv`).
    points_to(const ::llvm::Module& m, std::span<const ::llvm::Function* const> entries, points_to_options opt = {});

    /// The engine that solved (never `automatic`).
    points_to_engine engine() const { return engine_; }
    /// `inclusion` or `unification`.
    const char* engine_name() const;

    /// Every abstract object, by id.
    const std::vector<memory_object>& objects() const { return objects_; }
    /// The objects `v` may point to (empty for a value that holds no address).
    const object_set& pointees(const ::llvm::Value* v) const;
    /// The objects an object may hold addresses of.
    const object_set& contents(object_id o) const;
    /// The objects reachable from `v` through any number of dereferences (`v`'s pointees first).
    object_set reachable_from(const ::llvm::Value* v) const;
    /// The object an `alloca`, global variable or allocating call creates, or ~0u.
    object_id object_of(const ::llvm::Value* site) const;
    /// The object (group) that holds the variadic arguments of a call to
    /// `f` (`f.isVarArg()`, with a body that calls `va_start`): the calls'
    /// extra arguments are stored into it, and `va_start` makes the
    /// `va_list` point to it, so `va_arg` loads from it; ~0u when none.
    object_id varargs_object(const ::llvm::Function& f) const;
    /// The group of an object: objects no pointer tells apart. Under
    /// unification a class of objects is one group, named by its smallest
    /// object id, and `pointees`/`contents` answer with groups; under
    /// inclusion every object is its own group.
    object_id group_of(object_id o) const { return group_.empty() ? o : group_[o]; }
    /// The number of objects in `o`'s group (1: an update of it is strong).
    std::size_t group_size(object_id o) const { return group_.empty() ? 1 : group_size_[group_of(o)]; }
    /// The functions a call may invoke: its direct callee, or what the
    /// callee operand may point to (filtered by arity). May be empty.
    const std::vector<const ::llvm::Function*>& callees(const ::llvm::CallBase& call) const;
    /// The statistics.
    const points_to_stats& stats() const { return stats_; }

private:
    friend struct points_to_builder;
    std::vector<memory_object> objects_;
    std::vector<object_set> pts_;                                ///< per node
    ::llvm::DenseMap<const ::llvm::Value*, std::uint32_t> node_;  ///< value -> node
    std::vector<std::uint32_t> content_node_;                    ///< object -> node of what it holds
    ::llvm::DenseMap<const ::llvm::Value*, object_id> object_of_;
    ::llvm::DenseMap<const ::llvm::CallBase*, std::vector<const ::llvm::Function*>> callees_;
    ::llvm::DenseMap<const ::llvm::Function*, object_id> varargs_;  ///< see varargs_object
    object_set empty_;
    std::vector<const ::llvm::Function*> no_callees_;
    points_to_stats stats_;
    points_to_engine engine_ = points_to_engine::inclusion;
    std::vector<object_id> group_;            ///< unification: each object's group (empty: identity)
    std::vector<std::uint32_t> group_size_;   ///< unification: objects per group, at the group's id
};

/// True for the allocation functions whose calls are heap objects.
bool is_allocator(const ::llvm::Function& f);

/// The function a call invokes directly (through pointer casts), or null.
const ::llvm::Function* direct_callee(const ::llvm::CallBase& call);

/// True when `v` is the address of a `va_list` (a typed pointer to the
/// `__va_list_tag` or `__va_list` struct, as x86-64 and AArch64 declare
/// it, `.N` suffixes of linking aside; a target whose `va_list` is a plain
/// `char*`, and opaque pointers, are not recognised): what it reaches are
/// the variadic arguments (`points_to::varargs_object`).
bool is_va_list(const ::llvm::Value* v);

/// A function registered to run at exit by `call` (`atexit(F)`,
/// `__cxa_atexit(F, ARG, DSO)`: how C++ registers a static object's
/// destructor): F when it has a body, else null. `arg` is set to the value F
/// will receive (`__cxa_atexit`'s ARG), or null.
const ::llvm::Function* exit_handler(const ::llvm::CallBase& call, const ::llvm::Value*& arg);

} // namespace weir::llvm
