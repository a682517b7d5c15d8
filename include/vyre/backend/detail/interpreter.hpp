#pragma once
/// \file vyre/backend/detail/interpreter.hpp
/// The reference interpreter: a validated `ir::program` is resolved once into
/// a compact form (flat node arrays, variables as slots, buffers as indices,
/// every node typed), then executed workgroup by workgroup. Inside a
/// workgroup each invocation runs on an explicit statement stack until it
/// reaches a barrier or finishes, so barriers interleave invocations exactly
/// as the spec allows and a divergent barrier is detected.

#include <array>
#include <atomic>
#include <type_traits>
#include <cstdint>
#include <memory>
#include <string>
#include <optional>
#include <unordered_map>
#include <vector>

#include <vyre/backend/config.hpp>
#include <vyre/backend/detail/scalar.hpp>
#include <vyre/core/result.hpp>
#include <vyre/ir/program.hpp>
#include <vyre/ops/registry.hpp>

namespace vyre::detail {

/// A typed, resolved expression node.
struct cexpr {
    ir::expr_kind kind{};
    ir::op_code op{};
    ir::scalar_type type{};      ///< result type
    ir::scalar_type arg_type{};  ///< operand type (unary, binary, cast source, atomic element)
    ir::builtin bi{};
    std::uint8_t ax = 0;
    std::uint32_t slot = 0;      ///< variable slot or buffer index
    std::uint64_t bits = 0;      ///< literal bits
    std::array<std::uint32_t, 3> a{};  ///< child node indices
};

/// A resolved statement.
struct cstmt {
    ir::stmt_kind kind{};
    std::uint32_t slot = 0;            ///< variable slot or buffer index
    std::array<std::uint32_t, 3> e{};  ///< expression indices
    std::uint32_t body = 0, body_n = 0, else_ = 0, else_n = 0;  ///< ranges in `lists`
    std::uint32_t barrier_no = 0;      ///< ordinal of a barrier statement
};

/// A program resolved for execution. Build with `compile` from a *valid* program.
struct compiled_program {
    ir::program source;
    std::vector<cexpr> exprs;
    std::vector<cstmt> stmts;
    std::vector<std::uint32_t> lists;
    std::uint32_t root = 0, root_n = 0;
    std::uint32_t num_slots = 0;
    bool has_barrier = false;
    /// When the body is one op: the op, its bound arguments, and the
    /// backend's native implementation of it (type-erased; nullptr: none,
    /// the reference runs), resolved once when the program is compiled.
    const ops::op_info* op = nullptr;
    std::vector<ir::expr> op_args;
    ops::erased_native_fn native = nullptr;
};

namespace compile_detail {
struct builder {
    compiled_program& out;
    std::vector<std::pair<std::string, std::pair<std::uint32_t, ir::scalar_type>>> scope;  // name → slot, type
    std::vector<std::size_t> marks;
    std::uint32_t barriers = 0;

    std::uint32_t buffer_index(const std::string& n) const {
        for (std::uint32_t i = 0; i < out.source.buffers.size(); ++i)
            if (out.source.buffers[i].name == n) return i;
        return 0;
    }
    std::pair<std::uint32_t, ir::scalar_type> lookup(const std::string& n) const {
        for (auto it = scope.rbegin(); it != scope.rend(); ++it)
            if (it->first == n) return it->second;
        return {0, ir::scalar_type::u32};
    }
    std::uint32_t bind(const std::string& n, ir::scalar_type t) {
        std::uint32_t s = out.num_slots++;
        scope.push_back({n, {s, t}});
        return s;
    }

    std::uint32_t expr(const ir::expr& e) {
        cexpr c;
        c.kind = e.kind;
        c.op = e.op;
        std::array<std::uint32_t, 3> kids{};
        for (std::size_t i = 0; i < e.args.size() && i < 3; ++i) kids[i] = expr(e.args[i]);
        c.a = kids;
        auto kid_type = [&](std::size_t i) { return out.exprs[kids[i]].type; };
        using ir::expr_kind;
        switch (e.kind) {
        case expr_kind::literal: c.type = e.type; c.bits = e.bits & value_mask(e.type); break;
        case expr_kind::var: {
            auto [s, t] = lookup(e.name);
            c.slot = s;
            c.type = t;
            break;
        }
        case expr_kind::builtin: c.type = ir::scalar_type::u32; c.bi = e.bi; c.ax = static_cast<std::uint8_t>(e.ax); break;
        case expr_kind::len: c.type = ir::scalar_type::u32; c.slot = buffer_index(e.name); break;
        case expr_kind::load:
            c.slot = buffer_index(e.name);
            c.arg_type = out.source.buffers[c.slot].type;
            c.type = ir::widened(c.arg_type);
            break;
        case expr_kind::unary:
            c.arg_type = kid_type(0);
            c.type = c.arg_type;
            break;
        case expr_kind::binary:
            c.arg_type = kid_type(0);
            c.type = ir::is_comparison(e.op) ? ir::scalar_type::bool_ : c.arg_type;
            break;
        case expr_kind::select: c.type = kid_type(1); break;
        case expr_kind::cast:
        case expr_kind::bitcast:
            c.arg_type = kid_type(0);
            c.type = e.type;
            break;
        case expr_kind::fma: c.type = kid_type(0); break;
        case expr_kind::atomic:
            c.slot = buffer_index(e.name);
            c.arg_type = out.source.buffers[c.slot].type;
            c.type = c.arg_type;
            break;
        }
        out.exprs.push_back(c);
        return static_cast<std::uint32_t>(out.exprs.size() - 1);
    }

    std::pair<std::uint32_t, std::uint32_t> list(const std::vector<ir::stmt>& body) {
        marks.push_back(scope.size());
        std::vector<std::uint32_t> ids;
        ids.reserve(body.size());
        for (const auto& s : body) ids.push_back(stmt(s));
        scope.resize(marks.back());
        marks.pop_back();
        auto start = static_cast<std::uint32_t>(out.lists.size());
        out.lists.insert(out.lists.end(), ids.begin(), ids.end());
        return {start, static_cast<std::uint32_t>(ids.size())};
    }

    std::uint32_t stmt(const ir::stmt& s) {
        cstmt c;
        c.kind = s.kind;
        using ir::stmt_kind;
        switch (s.kind) {
        case stmt_kind::let_: {
            c.e[0] = expr(s.args[0]);
            c.slot = bind(s.name, out.exprs[c.e[0]].type);
            break;
        }
        case stmt_kind::set:
            c.e[0] = expr(s.args[0]);
            c.slot = lookup(s.name).first;
            break;
        case stmt_kind::store:
            c.slot = buffer_index(s.name);
            c.e[0] = expr(s.args[0]);
            c.e[1] = expr(s.args[1]);
            break;
        case stmt_kind::if_: {
            c.e[0] = expr(s.args[0]);
            auto [b, bn] = list(s.body);
            auto [e, en] = list(s.else_body);
            c.body = b, c.body_n = bn, c.else_ = e, c.else_n = en;
            break;
        }
        case stmt_kind::loop: {
            c.e[0] = expr(s.args[0]);
            c.e[1] = expr(s.args[1]);
            marks.push_back(scope.size());
            c.slot = bind(s.name, ir::scalar_type::u32);
            auto [b, bn] = list(s.body);
            scope.resize(marks.back());
            marks.pop_back();
            c.body = b, c.body_n = bn;
            break;
        }
        case stmt_kind::block: {
            auto [b, bn] = list(s.body);
            c.body = b, c.body_n = bn;
            break;
        }
        case stmt_kind::barrier:
            out.has_barrier = true;
            c.barrier_no = barriers++;
            break;
        case stmt_kind::return_:
        case stmt_kind::op: break;
        }
        out.stmts.push_back(c);
        return static_cast<std::uint32_t>(out.stmts.size() - 1);
    }
};
} // namespace compile_detail

/// Resolves a program that `ir::validate` accepted.
inline std::shared_ptr<compiled_program> compile(const ir::program& p) {
    auto cp = std::make_shared<compiled_program>();
    cp->source = p;
    if (p.body.size() == 1 && p.body[0].kind == ir::stmt_kind::op) {
        cp->op = ops::find_op(p.body[0].name);
        cp->op_args = p.body[0].args;
        return cp;
    }
    compile_detail::builder b{*cp, {}, {}, 0};
    auto [r, rn] = b.list(p.body);
    cp->root = r;
    cp->root_n = rn;
    return cp;
}

/// One buffer as bound for a dispatch.
struct bound_buffer {
    std::uint8_t* data = nullptr;
    std::uint64_t count = 0;
    ir::scalar_type type{};
    bool local = false;  ///< workgroup memory (never shared between threads)
};

/// Atomic read-modify-write of element `idx` through `std::atomic_ref`, for
/// buffers that several threads may touch at once. Returns the old value.
inline std::uint64_t shared_atomic(const bound_buffer& b, std::uint64_t idx, ir::op_code op, std::uint64_t v,
                                   std::uint64_t v2) {
    auto rmw = [&](auto* p) -> std::uint64_t {
        using T = std::remove_pointer_t<decltype(p)>;
        std::atomic_ref<T> a(*p);
        const T x = static_cast<T>(v);
        switch (op) {
        case ir::op_code::atomic_add: return a.fetch_add(x);
        case ir::op_code::atomic_sub: return a.fetch_sub(x);
        case ir::op_code::atomic_and: return a.fetch_and(x);
        case ir::op_code::atomic_or: return a.fetch_or(x);
        case ir::op_code::atomic_xor: return a.fetch_xor(x);
        case ir::op_code::atomic_exchange: return a.exchange(x);
        case ir::op_code::atomic_cas: {
            T expected = x;
            a.compare_exchange_strong(expected, static_cast<T>(v2));
            return expected;
        }
        default: {  // min / max: a compare-exchange loop
            T old = a.load();
            while (!a.compare_exchange_weak(old, static_cast<T>(atomic_combine(op, b.type, old, v)))) {
            }
            return old;
        }
        }
    };
    std::uint8_t* p = b.data + idx * ir::size_of(b.type);
    if (ir::size_of(b.type) == 8) return rmw(reinterpret_cast<std::uint64_t*>(p));
    return rmw(reinterpret_cast<std::uint32_t*>(p));
}

/// The bound arguments of a whole-dispatch op.
inline std::vector<ops::op_arg> bind_op_args(const compiled_program& cp, std::span<const bound_buffer> bufs) {
    std::vector<ops::op_arg> args;
    for (const auto& a : cp.op_args) {
        ops::op_arg x;
        if (a.kind == ir::expr_kind::var) {
            for (std::size_t i = 0; i < cp.source.buffers.size(); ++i)
                if (cp.source.buffers[i].name == a.name)
                    x.bytes = std::span<std::uint8_t>(bufs[i].data, bufs[i].count * ir::size_of(bufs[i].type));
        } else {
            x.literal = static_cast<std::uint32_t>(a.bits);
        }
        args.push_back(x);
    }
    return args;
}

/// The default grid of the spec: [ceil(E / x), 1, 1], E the largest element
/// count among output and read_write buffers (among all inputs if none).
inline std::array<std::uint32_t, 3> default_grid(const ir::program& p, std::span<const bound_buffer> bufs,
                                                 std::uint32_t wg_x) {
    std::uint64_t e = 0;
    bool any_out = false;
    for (std::size_t i = 0; i < p.buffers.size(); ++i)
        if (ir::is_output(p.buffers[i].acc)) {
            any_out = true;
            e = std::max(e, bufs[i].count);
        }
    if (!any_out)
        for (std::size_t i = 0; i < p.buffers.size(); ++i)
            if (ir::is_input(p.buffers[i].acc)) e = std::max(e, bufs[i].count);
    std::uint64_t g = (e + wg_x - 1) / wg_x;
    return {static_cast<std::uint32_t>(std::min<std::uint64_t>(g, 0xffffffffu)), 1, 1};
}

/// Executes a compiled program over bound buffers (workgroup buffers are
/// allocated here). `bufs` has one entry per declared buffer; entries of
/// workgroup buffers are ignored.
class executor {
public:
    /// An executor for one thread. `concurrent`: other threads run other
    /// workgroups of the same dispatch at the same time, so atomics on shared
    /// buffers use hardware atomics and the step budget is counted in `shared_steps`.
    executor(const compiled_program& cp, std::span<const bound_buffer> bufs, std::array<std::uint32_t, 3> wg,
             std::array<std::uint32_t, 3> grid, std::uint64_t step_budget, bool concurrent = false,
             std::atomic<std::uint64_t>* shared_steps = nullptr)
        : cp_(cp), bufs_(bufs.begin(), bufs.end()), wg_(wg), grid_(grid), budget_(step_budget),
          concurrent_(concurrent), shared_steps_(shared_steps) {}

    /// Number of workgroups of the dispatch.
    std::uint64_t workgroup_count() const { return std::uint64_t(grid_[0]) * grid_[1] * grid_[2]; }

    /// Runs the whole dispatch (an op runs by its reference implementation).
    result<void> run() {
        if (cp_.op) {
            auto args = bind_op_args(cp_, bufs_);
            return cp_.op->reference(args);
        }
        return run_workgroups(0, workgroup_count());
    }

    /// Runs workgroups [first, last) of the linearised grid (x fastest).
    result<void> run_workgroups(std::uint64_t first, std::uint64_t last) {
        const auto& decls = cp_.source.buffers;
        std::vector<std::size_t> wg_bufs;
        for (std::size_t i = 0; i < decls.size(); ++i)
            if (decls[i].acc == ir::access::workgroup) wg_bufs.push_back(i);
        std::vector<std::vector<std::uint8_t>> wg_store(wg_bufs.size());
        const std::uint64_t inv_per_wg = std::uint64_t(wg_[0]) * wg_[1] * wg_[2];
        for (std::uint64_t w = first; w < last; ++w) {
            wgid_ = {static_cast<std::uint32_t>(w % grid_[0]), static_cast<std::uint32_t>((w / grid_[0]) % grid_[1]),
                     static_cast<std::uint32_t>(w / (std::uint64_t(grid_[0]) * grid_[1]))};
            for (std::size_t k = 0; k < wg_bufs.size(); ++k) {
                const auto& d = decls[wg_bufs[k]];
                wg_store[k].assign(d.count * ir::size_of(d.type), 0);
                bufs_[wg_bufs[k]] = {wg_store[k].data(), d.count, d.type, true};
            }
            auto r = cp_.has_barrier ? run_workgroup_phased(inv_per_wg) : run_workgroup_simple(inv_per_wg);
            if (!r) return r;
        }
        return {};
    }

private:
    struct frame {
        std::uint32_t list, n, pc;
        std::int64_t loop_slot;  // -1 when not a loop body
        std::uint32_t loop_end;
    };
    struct invocation {
        std::array<std::uint32_t, 3> lid{};
        std::vector<std::uint64_t> slots;
        std::vector<frame> stack;
        bool done = false;
        bool returned = false;  ///< ended by `(return)` (excused from the barriers after it)
        std::int64_t at_barrier = -1;
    };
    enum class stop { finished, barrier, error };

    static std::array<std::uint32_t, 3> lid_of(std::uint64_t i, const std::array<std::uint32_t, 3>& wg) {
        return {static_cast<std::uint32_t>(i % wg[0]), static_cast<std::uint32_t>((i / wg[0]) % wg[1]),
                static_cast<std::uint32_t>(i / (std::uint64_t(wg[0]) * wg[1]))};
    }

    void start(invocation& inv, std::uint64_t i) {
        inv.lid = lid_of(i, wg_);
        inv.slots.assign(cp_.num_slots, 0);
        inv.stack.clear();
        inv.stack.push_back({cp_.root, cp_.root_n, 0, -1, 0});
        inv.done = false;
        inv.at_barrier = -1;
    }

    result<void> run_workgroup_simple(std::uint64_t n) {
        invocation inv;
        for (std::uint64_t i = 0; i < n; ++i) {
            if (budget_ && over_budget()) return make_unexpected(budget_error());
            start(inv, i);
            if (step(inv) == stop::error) return make_unexpected(*err_);
        }
        return {};
    }

    result<void> run_workgroup_phased(std::uint64_t n) {
        std::vector<invocation> invs(n);
        for (std::uint64_t i = 0; i < n; ++i) {
            if (budget_ && over_budget()) return make_unexpected(budget_error());
            start(invs[i], i);
        }
        // Each phase runs every unfinished invocation to its next barrier or
        // its end. Those that wait must all wait at one barrier, and none may
        // have reached the end of the program meanwhile: only an invocation
        // that ran `(return)` is excused from the barriers after it (spec).
        for (;;) {
            std::int64_t barrier = -1;
            std::uint64_t first_at = 0;
            std::optional<std::uint64_t> ended;  // the first invocation that reached the end in this phase
            bool any_running = false;
            for (std::uint64_t i = 0; i < n; ++i) {
                auto& inv = invs[i];
                if (inv.done) continue;
                auto s = step(inv);
                if (s == stop::error) return make_unexpected(*err_);
                if (s == stop::finished) {
                    if (!inv.returned && !ended) ended = i;
                    continue;
                }
                any_running = true;
                if (barrier < 0) {
                    barrier = inv.at_barrier;
                    first_at = i;
                } else if (barrier != inv.at_barrier) {
                    return fail(error_code::dispatch_failed,
                                "divergent barrier in program '" + cp_.source.name + "', workgroup " + triple(wgid_) +
                                    ": invocation " + triple(invs[first_at].lid) + " waits at barrier #" +
                                    std::to_string(barrier) + " while invocation " + triple(inv.lid) +
                                    " waits at barrier #" + std::to_string(inv.at_barrier),
                                "make every invocation of a workgroup reach the same barriers in the same order");
                }
            }
            if (any_running && ended)
                return fail(error_code::dispatch_failed,
                            "divergent barrier in program '" + cp_.source.name + "', workgroup " + triple(wgid_) +
                                ": invocation " + triple(invs[first_at].lid) + " waits at barrier #" +
                                std::to_string(barrier) + " while invocation " + triple(invs[*ended].lid) +
                                " reached the end of the program without `(return)`",
                            "make every invocation of a workgroup reach the same barriers in the same order, or end "
                            "the ones that skip a barrier with (return)");
            if (!any_running) return {};
        }
    }

    static std::string triple(const std::array<std::uint32_t, 3>& a) {
        return "(" + std::to_string(a[0]) + "," + std::to_string(a[1]) + "," + std::to_string(a[2]) + ")";
    }

    /// Runs `inv` until it finishes or reaches a barrier.
    stop step(invocation& inv) {
        cur_ = &inv;
        auto& st = inv.stack;
        while (!st.empty()) {
            frame& f = st.back();
            if (f.pc == f.n) {
                if (f.loop_slot >= 0) {
                    auto& v = inv.slots[static_cast<std::size_t>(f.loop_slot)];
                    ++v;
                    if (v < f.loop_end) {
                        f.pc = 0;
                        continue;
                    }
                }
                st.pop_back();
                continue;
            }
            const cstmt& s = cp_.stmts[cp_.lists[f.list + f.pc]];
            ++f.pc;
            if (budget_ && over_budget()) {
                err_ = budget_error();
                return stop::error;
            }
            using ir::stmt_kind;
            switch (s.kind) {
            case stmt_kind::let_:
            case stmt_kind::set: inv.slots[s.slot] = eval(s.e[0]); break;
            case stmt_kind::store: {
                std::uint64_t idx = eval(s.e[0]);
                std::uint64_t v = eval(s.e[1]);
                const auto& b = bufs_[s.slot];
                if (idx < b.count) store_element(b.data, idx, b.type, v);
                break;
            }
            case stmt_kind::if_:
                if (eval(s.e[0])) {
                    if (s.body_n) st.push_back({s.body, s.body_n, 0, -1, 0});
                } else if (s.else_n) {
                    st.push_back({s.else_, s.else_n, 0, -1, 0});
                }
                break;
            case stmt_kind::loop: {
                auto from = static_cast<std::uint32_t>(eval(s.e[0]));
                auto to = static_cast<std::uint32_t>(eval(s.e[1]));
                if (from < to) {
                    inv.slots[s.slot] = from;
                    if (s.body_n) st.push_back({s.body, s.body_n, 0, static_cast<std::int64_t>(s.slot), to});
                    else if (budget_ && (steps_ += (to - from)) > budget_) {
                        err_ = budget_error();
                        return stop::error;
                    }
                }
                break;
            }
            case stmt_kind::block:
                if (s.body_n) st.push_back({s.body, s.body_n, 0, -1, 0});
                break;
            case stmt_kind::barrier: inv.at_barrier = s.barrier_no; return stop::barrier;
            case stmt_kind::return_:
                inv.returned = true;
                st.clear();
                break;
            case stmt_kind::op: break;
            }
        }
        inv.done = true;
        return stop::finished;
    }

    /// The error of a dispatch whose step budget is spent.
    backend_error budget_error() const {
        return backend_error(error_code::dispatch_failed,
                             "program '" + cp_.source.name + "' exceeded its step budget of " + std::to_string(budget_) +
                                 " steps (statements and invocation starts)",
                             "raise dispatch_config::step_budget or check the program for an endless loop");
    }

    /// Counts one step (a statement, or the start of an invocation, so that
    /// a dispatch of many invocations with an empty body is bounded too);
    /// true when the dispatch's budget is spent.
    bool over_budget() {
        ++steps_;
        if (!shared_steps_) return steps_ > budget_;
        if (steps_ - flushed_ >= 1024) return flush_steps();
        return false;
    }

    /// Adds this thread's steps not yet counted to the dispatch's shared
    /// count; true when the dispatch's budget is spent.
    bool flush_steps() {
        const std::uint64_t d = steps_ - flushed_;
        flushed_ = steps_;
        return shared_steps_->fetch_add(d) + d > budget_;
    }

public:
    /// For a thread of a concurrent dispatch, once it has run its last
    /// workgroup: counts its remaining steps, so that the dispatch fails
    /// exactly where the whole count exceeds the budget, as one executor
    /// would (whichever thread counts last sees the whole count).
    result<void> settle_budget() {
        if (budget_ && shared_steps_ && flush_steps()) return make_unexpected(budget_error());
        return {};
    }

private:

    std::uint64_t builtin_value(const cexpr& c) const {
        const auto& inv = *cur_;
        switch (c.bi) {
        case ir::builtin::gid: return (std::uint64_t(wgid_[c.ax]) * wg_[c.ax] + inv.lid[c.ax]) & 0xffffffffull;
        case ir::builtin::lid: return inv.lid[c.ax];
        case ir::builtin::wgid: return wgid_[c.ax];
        case ir::builtin::wgsize: return wg_[c.ax];
        case ir::builtin::ngroups: return grid_[c.ax];
        }
        return 0;
    }

    std::uint64_t eval(std::uint32_t i) {
        const cexpr& c = cp_.exprs[i];
        using ir::expr_kind;
        switch (c.kind) {
        case expr_kind::literal: return c.bits;
        case expr_kind::var: return cur_->slots[c.slot];
        case expr_kind::builtin: return builtin_value(c);
        case expr_kind::len: return bufs_[c.slot].count & 0xffffffffull;
        case expr_kind::load: {
            std::uint64_t idx = eval(c.a[0]);
            const auto& b = bufs_[c.slot];
            return idx < b.count ? load_element(b.data, idx, b.type) : 0;
        }
        case expr_kind::unary: return eval_unary(c.op, c.arg_type, eval(c.a[0]));
        case expr_kind::binary: {
            std::uint64_t x = eval(c.a[0]);
            std::uint64_t y = eval(c.a[1]);
            return eval_binary(c.op, c.arg_type, x, y);
        }
        case expr_kind::select: {
            std::uint64_t cond = eval(c.a[0]);
            std::uint64_t x = eval(c.a[1]);
            std::uint64_t y = eval(c.a[2]);
            return cond ? x : y;
        }
        case expr_kind::cast: return eval_cast(c.type, c.arg_type, eval(c.a[0]));
        case expr_kind::bitcast: return eval(c.a[0]) & value_mask(c.type);
        case expr_kind::fma: {
            std::uint64_t x = eval(c.a[0]);
            std::uint64_t y = eval(c.a[1]);
            std::uint64_t z = eval(c.a[2]);
            return eval_fma(c.type, x, y, z);
        }
        case expr_kind::atomic: {
            std::uint64_t idx = eval(c.a[0]);
            std::uint64_t v = eval(c.a[1]);
            std::uint64_t v2 = c.op == ir::op_code::atomic_cas ? eval(c.a[2]) : 0;
            const auto& b = bufs_[c.slot];
            if (idx >= b.count) return 0;
            if (concurrent_ && !b.local) return shared_atomic(b, idx, c.op, v, v2);
            std::uint64_t old = load_element(b.data, idx, b.type);
            std::uint64_t nv = c.op == ir::op_code::atomic_cas ? (old == v ? v2 : old) : atomic_combine(c.op, b.type, old, v);
            store_element(b.data, idx, b.type, nv);
            return old;
        }
        }
        return 0;
    }

    const compiled_program& cp_;
    std::vector<bound_buffer> bufs_;
    std::array<std::uint32_t, 3> wg_, grid_, wgid_{};
    std::uint64_t budget_, steps_ = 0;
    bool concurrent_ = false;
    std::atomic<std::uint64_t>* shared_steps_ = nullptr;
    std::uint64_t flushed_ = 0;  ///< of `steps_`, those added to `*shared_steps_`
    invocation* cur_ = nullptr;
    std::optional<backend_error> err_;
};

} // namespace vyre::detail
