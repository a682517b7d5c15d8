#pragma once
/// \file weir/llvm/analysis.hpp
/// The interface of an IFDS analysis over LLVM IR, in the spirit of PhASAR's
/// flow functions: an analysis says, for each instruction, call, return and
/// call-to-return edge, how its facts flow, and where analysis starts. Its
/// facts are LLVM values and abstract memory objects (`fact_table`), and a
/// flow function is written sparsely (`flow`: identity, kills, gens,
/// transfers), so that `compile_problem` (compile.hpp) turns it into a weir
/// problem where most edges are `id` terms and a procedure holds only the
/// facts that can reach it.
///
/// A model of `ifds_analysis`:
/// \code
/// struct my_analysis {
///     static constexpr std::string_view name = "mine";
///     void initial_seeds(analysis_context& cx, seed_list& seeds);
///     void normal_flow(analysis_context& cx, const llvm::Instruction& i, flow& out);   // calls without a body too
///     void call_flow(analysis_context& cx, const llvm::CallBase& c, const llvm::Function& callee, flow& out);
///     void return_flow(analysis_context& cx, const llvm::CallBase& c, const llvm::Function& callee, flow& out);
///     void call_to_return_flow(analysis_context& cx, const llvm::CallBase& c, flow& out);
/// };
/// \endcode

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <llvm/ADT/DenseMap.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Instruction.h>

#include <weir/ifds/problem.hpp>
#include <weir/llvm/program.hpp>

namespace weir::llvm {

using weir::ifds::fact_id;
using weir::ifds::zero_fact;

/// What a fact stands for.
enum class fact_kind : std::uint8_t {
    value,     ///< an SSA value (instruction, argument) has the property
    object,    ///< an abstract memory object has the property
    returned,  ///< the value a function returns has the property (at its exit)
};

/// The meaning of one fact.
struct fact_key {
    fact_kind kind = fact_kind::value;
    const ::llvm::Value* value = nullptr;   ///< value: the value; returned: the function
    object_id object = ~0u;                 ///< object: the object
};

/// The fact domain of one analysis run: facts are interned on first use, so
/// the domain holds only what some flow function mentions.
class fact_table {
public:
    /// Value facts by the program's value slots from now on: values that are
    /// never live at once share a fact (`program::value_slot`).
    void use_slots_of(const program& prog) { prog_ = &prog; }
    /// The fact "value `v` has the property" (of its slot, see `use_slots_of`).
    fact_id value(const ::llvm::Value* v) {
        if (const std::uint32_t s = prog_ ? prog_->value_slot(v) : ~0u; s != ~0u) {
            auto [it, fresh] = slots_.try_emplace(s, 0);
            if (fresh) {
                keys_.push_back({fact_kind::value, v, ~0u});
                it->second = static_cast<fact_id>(keys_.size());
            }
            return it->second;
        }
        return intern(values_, v, {fact_kind::value, v, ~0u});
    }
    /// The fact of value `v` when some flow function mentioned it, else nullopt.
    std::optional<fact_id> find_value(const ::llvm::Value* v) const {
        if (const std::uint32_t s = prog_ ? prog_->value_slot(v) : ~0u; s != ~0u) {
            if (auto it = slots_.find(s); it != slots_.end()) return it->second;
            return std::nullopt;
        }
        if (auto it = values_.find(v); it != values_.end()) return it->second;
        return std::nullopt;
    }
    /// The fact "object `o` has the property".
    fact_id object(object_id o) {
        if (o < objects_.size() && objects_[o]) return objects_[o];
        if (o >= objects_.size()) objects_.resize(o + 1, 0);
        keys_.push_back({fact_kind::object, nullptr, o});
        return objects_[o] = static_cast<fact_id>(keys_.size());
    }
    /// The fact of object `o` when some flow function mentioned it, else nullopt.
    std::optional<fact_id> find_object(object_id o) const {
        if (o < objects_.size() && objects_[o]) return objects_[o];
        return std::nullopt;
    }
    /// The fact "the value `f` returns has the property".
    fact_id returned(const ::llvm::Function* f) { return intern(returns_, f, {fact_kind::returned, f, ~0u}); }
    /// What fact `f` (≥ 1) stands for.
    const fact_key& key(fact_id f) const { return keys_[f - 1]; }
    /// Number of facts, the zero fact excluded.
    std::size_t size() const { return keys_.size(); }

private:
    fact_id intern(::llvm::DenseMap<const ::llvm::Value*, fact_id>& map, const ::llvm::Value* v, fact_key k) {
        auto [it, fresh] = map.try_emplace(v, 0);
        if (fresh) {
            keys_.push_back(k);
            it->second = static_cast<fact_id>(keys_.size());
        }
        return it->second;
    }
    const program* prog_ = nullptr;
    std::vector<fact_key> keys_;
    ::llvm::DenseMap<const ::llvm::Value*, fact_id> values_, returns_;
    ::llvm::DenseMap<std::uint32_t, fact_id> slots_;
    std::vector<fact_id> objects_;
};

/// A flow function under construction: `0 → 0` always, plus what is added.
/// Starts as the empty function (nothing passes but the zero fact).
class flow {
public:
    /// Every fact passes unchanged (except those killed).
    flow& identity() {
        fn_.identity = true;
        return *this;
    }
    /// Removes `f` from the identity.
    flow& kill(fact_id f) {
        if (f != zero_fact) fn_.kill.push_back(f);
        return *this;
    }
    /// `0 → f`: `f` holds after the edge whatever held before.
    flow& gen(fact_id f) {
        if (f != zero_fact) fn_.gen.push_back(f);
        return *this;
    }
    /// `from → to`: when `from` holds before the edge, `to` holds after it.
    flow& transfer(fact_id from, fact_id to) {
        if (to == zero_fact) return *this;
        if (from == zero_fact) return gen(to);
        if (from != to || !fn_.identity) fn_.pairs.emplace_back(from, to);
        return *this;
    }
    /// `from → to` as an explicit pair, even where the identity would relate
    /// it (after a `kill`, or for a pair that carries an edge function).
    flow& pair(fact_id from, fact_id to) {
        if (to == zero_fact) return *this;
        if (from == zero_fact) return gen(to);
        fn_.pairs.emplace_back(from, to);
        return *this;
    }
    /// True when nothing but the identity was said (the cheapest edge).
    bool is_identity() const { return fn_.identity && fn_.kill.empty() && fn_.gen.empty() && fn_.pairs.empty(); }
    /// The function written, for the builder.
    weir::ifds::flow_function take() { return std::move(fn_); }

private:
    weir::ifds::flow_function fn_;
};

/// Initial facts: `fact` holds at the start of `function` (zero fact: the
/// function is reached).
struct seed_fact {
    const ::llvm::Function* function = nullptr;
    fact_id fact = zero_fact;
};
/// The list an analysis fills in `initial_seeds`.
using seed_list = std::vector<seed_fact>;

/// What an analysis sees while its flow functions are written.
class analysis_context {
public:
    /// A context over `prog`, interning into `facts`.
    analysis_context(const program& prog, fact_table& facts) : prog_(&prog), facts_(&facts) {}

    /// The program model.
    const program& prog() const { return *prog_; }
    /// The points-to result.
    const points_to& pointers() const { return prog_->pointers(); }
    /// The fact table.
    fact_table& facts() { return *facts_; }
    /// The fact of value `v`, or nullopt when `v` can hold no property
    /// (constants, basic blocks, metadata, functions).
    std::optional<fact_id> value_fact(const ::llvm::Value* v) {
        if (::llvm::isa<::llvm::Instruction>(v) || ::llvm::isa<::llvm::Argument>(v)) return facts_->value(v);
        return std::nullopt;
    }
    /// The facts of the objects `v` may point to.
    std::vector<fact_id> pointee_facts(const ::llvm::Value* v) {
        std::vector<fact_id> out;
        for (object_id o : pointers().pointees(v)) out.push_back(facts_->object(o));
        return out;
    }

private:
    const program* prog_;
    fact_table* facts_;
};

/// An IFDS analysis over LLVM IR (see the file comment).
template <class A>
concept ifds_analysis = requires(A& a, analysis_context& cx, const ::llvm::Instruction& i, const ::llvm::CallBase& c,
                                 const ::llvm::Function& f, flow& out, seed_list& seeds) {
    { A::name } -> std::convertible_to<std::string_view>;
    a.initial_seeds(cx, seeds);
    a.normal_flow(cx, i, out);
    a.call_flow(cx, c, f, out);
    a.return_flow(cx, c, f, out);
    a.call_to_return_flow(cx, c, out);
};

} // namespace weir::llvm
