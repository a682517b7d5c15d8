#pragma once
/// \file weir/ifds/builder.hpp
/// `weir::ifds::problem_builder`: builds a `problem` the way a frontend (C or
/// LLVM) produces one, statement by statement, and checks it with the same
/// well-formedness routine the `.ifds` loader uses (`detail::problem_checker`),
/// so every rule of the spec (ifds-format.md) is written once.
///
/// Flow functions are written with `ff`:
/// `ff::id()`, `ff::id().kill({x}).gen({y})`, `ff::none().pair(y, x)`.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include <vyre/core/huge_pages.hpp>
#include <vyre/core/result.hpp>
#include <weir/ifds/problem.hpp>

namespace weir::ifds {

/// An error found by `problem_builder::finish`: the first broken rule, in the
/// order of the builder calls.
struct build_error {
    /// 1-based index of the builder call at fault (declarations count too);
    /// for an error that shows only at the end (no seed), the number of calls.
    std::size_t statement = 0;
    /// The offending name, or `#N` for an id that names nothing; may be empty.
    std::string token;
    /// What is wrong and what was expected.
    std::string message;

    /// `statement N: error: MESSAGE (at 'TOKEN')`.
    std::string what() const {
        std::string s = "statement " + std::to_string(statement) + ": error: " + message;
        if (!token.empty()) s += " (at '" + token + "')";
        return s;
    }
};

/// A fluent way to write a flow function; converts to `flow_function`.
/// `ff::id().kill({x}).gen({y})` is `id kill:x gen:y`; `ff::none()` is the
/// empty list (`{0 → 0}` only).
struct ff {
    /// The function being written.
    flow_function fn;

    /// The identity (`id`).
    static ff id() { return ff{flow_function::id()}; }
    /// The empty list: only `0 → 0`.
    static ff none() { return ff{}; }
    /// Adds `kill:` facts (removed from `id`).
    ff kill(std::initializer_list<fact_id> facts) const {
        ff r = *this;
        r.fn.kill.insert(r.fn.kill.end(), facts.begin(), facts.end());
        return r;
    }
    /// Adds `kill:` facts from a vector.
    ff kill(const std::vector<fact_id>& facts) const {
        ff r = *this;
        r.fn.kill.insert(r.fn.kill.end(), facts.begin(), facts.end());
        return r;
    }
    /// Adds `gen:` facts (`0 → f`).
    ff gen(std::initializer_list<fact_id> facts) const {
        ff r = *this;
        r.fn.gen.insert(r.fn.gen.end(), facts.begin(), facts.end());
        return r;
    }
    /// Adds `gen:` facts from a vector.
    ff gen(const std::vector<fact_id>& facts) const {
        ff r = *this;
        r.fn.gen.insert(r.fn.gen.end(), facts.begin(), facts.end());
        return r;
    }
    /// Adds the pair `from > to`.
    ff pair(fact_id from, fact_id to) const {
        ff r = *this;
        r.fn.pairs.emplace_back(from, to);
        return r;
    }
    /// The written function.
    operator flow_function() const& { return fn; }
    /// The written function (moved out).
    operator flow_function() && { return std::move(fn); }
};

namespace detail {

/// "No id" / "no value" marker for u32 ids.
inline constexpr std::uint32_t none32 = 0xFFFFFFFFu;
/// "No position" marker.
inline constexpr std::uint64_t no_pos = ~std::uint64_t{0};

/// First character of a name: `[A-Za-z_]`.
constexpr bool is_name_start(unsigned char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
/// Later characters of a name: `[A-Za-z0-9_.$@]`.
constexpr bool is_name_char(unsigned char c) noexcept {
    return is_name_start(c) || (c >= '0' && c <= '9') || c == '.' || c == '$' || c == '@';
}
/// `is_name_char` as a table (one load a byte where names are checked).
inline constexpr auto name_char_table = [] {
    std::array<bool, 256> t{};
    for (unsigned c = 0; c < 256; ++c) t[c] = is_name_char(static_cast<unsigned char>(c));
    return t;
}();
/// Whether `s` is a name, `[A-Za-z_][A-Za-z0-9_.$@]*`.
constexpr bool is_valid_name(std::string_view s) noexcept {
    if (s.empty() || !is_name_start(static_cast<unsigned char>(s[0]))) return false;
    bool ok = true;  // (no early exit: names are short and almost always valid)
    for (std::size_t i = 1; i < s.size(); ++i) ok &= name_char_table[static_cast<unsigned char>(s[i])];
    return ok;
}

/// Whether the `n` bytes at `a` and at `b` are equal: a few word loads for
/// the short names of a problem, `memcmp` from 17 bytes up.
inline bool same_bytes(const char* a, const char* b, std::size_t n) noexcept {
    auto eq = [&](auto word) {  // the first and the last sizeof(word) bytes (they overlap when n < 2 words)
        decltype(word) x0, y0, x1, y1;
        std::memcpy(&x0, a, sizeof x0);
        std::memcpy(&y0, b, sizeof y0);
        std::memcpy(&x1, a + n - sizeof x1, sizeof x1);
        std::memcpy(&y1, b + n - sizeof y1, sizeof y1);
        return ((x0 ^ y0) | (x1 ^ y1)) == 0;
    };
    if (n >= 8) return n <= 16 ? eq(std::uint64_t{}) : std::memcmp(a, b, n) == 0;
    if (n >= 4) return eq(std::uint32_t{});
    if (n >= 2) return eq(std::uint16_t{});
    return n == 0 || *a == *b;
}
/// Whether two names are equal (`same_bytes` when the sizes match).
inline bool same_name(std::string_view a, std::string_view b) noexcept {
    return a.size() == b.size() && same_bytes(a.data(), b.data(), a.size());
}

/// Messages of the flow-function term rules (shared by loader and checker).
inline constexpr std::string_view msg_kill_zero =
    "the zero fact cannot be killed: expected declared facts after 'kill:'";
/// See `msg_kill_zero`.
inline constexpr std::string_view msg_gen_zero =
    "the zero fact cannot be generated (0 -> 0 always holds): expected declared facts after 'gen:'";
/// See `msg_kill_zero`.
inline constexpr std::string_view msg_pair_zero_zero =
    "'0>0' may not be written (0 -> 0 always holds): expected a pair a>b with b a declared fact";
/// See `msg_kill_zero`.
inline constexpr std::string_view msg_pair_to_zero =
    "a pair may not lead to the zero fact: expected a pair a>b with b a declared fact";
/// Message for a name that breaks the name syntax.
inline constexpr std::string_view name_syntax = "[A-Za-z_][A-Za-z0-9_.$@]*";

/// Mixes 64 bits (a finaliser of the murmur family).
constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/// A fast hash of a byte string (8 bytes a step).
inline std::uint64_t hash_bytes(const char* s, std::size_t n) noexcept {
    std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0x100000001b3ULL);
    while (n >= 8) {
        std::uint64_t w;
        std::memcpy(&w, s, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 31;
        s += 8;
        n -= 8;
    }
    // the last 0-7 bytes as one word, from fixed-size loads that together
    // cover them (the length is in h, so this is one-to-one for each length)
    std::uint64_t w = 0;
    if (n >= 4) {
        std::uint32_t lo, hi;
        std::memcpy(&lo, s, 4);
        std::memcpy(&hi, s + n - 4, 4);
        w = lo | (std::uint64_t{hi} << 32);
    } else if (n > 0) {
        w = static_cast<unsigned char>(s[0]) | (std::uint64_t{static_cast<unsigned char>(s[n / 2])} << 8) |
            (std::uint64_t{static_cast<unsigned char>(s[n - 1])} << 16);
    }
    return mix64(h ^ w);
}

/// A flat open-addressing map from u64 keys (never `~0`) to values V
/// (linear probing, load factor at most 0.7).
template <class V>
class u64_map {
public:
    /// Reserves room for n keys.
    void reserve(std::size_t n) {
        const std::size_t want = capacity_for(n);
        if (want > slots_.size()) rehash(want);
    }
    /// The value of `key`, or nullptr.
    V* find(std::uint64_t key) noexcept {
        if (slots_.empty()) return nullptr;
        for (std::size_t i = mix64(key) & mask_;; i = (i + 1) & mask_) {
            if (slots_[i].key == key) return &slots_[i].val;
            if (slots_[i].key == empty) return nullptr;
        }
    }
    /// Inserts `key → v` unless present; returns the stored value and whether it was inserted.
    std::pair<V*, bool> try_emplace(std::uint64_t key, V v) {
        if (10 * (size_ + 1) > 7 * slots_.size()) rehash(capacity_for(size_ + 1) * 2);
        std::size_t i = mix64(key) & mask_;
        for (;; i = (i + 1) & mask_) {
            if (slots_[i].key == key) return {&slots_[i].val, false};
            if (slots_[i].key == empty) break;
        }
        slots_[i].key = key;
        slots_[i].val = std::move(v);
        ++size_;
        return {&slots_[i].val, true};
    }
    /// Number of keys.
    std::size_t size() const noexcept { return size_; }

private:
    static constexpr std::uint64_t empty = ~std::uint64_t{0};
    struct slot {
        std::uint64_t key = empty;
        V val{};
    };
    static std::size_t capacity_for(std::size_t n) noexcept {
        std::size_t c = 16;
        while (7 * c < 10 * n) c *= 2;
        return c;
    }
    void rehash(std::size_t cap) {
        std::vector<slot> old = std::move(slots_);
        vyre::detail::assign_huge(slots_, cap, slot{}, vyre::detail::huge_blocks::whole);
        mask_ = cap - 1;
        for (slot& o : old)
            if (o.key != empty) {
                std::size_t i = mix64(o.key) & mask_;
                while (slots_[i].key != empty) i = (i + 1) & mask_;
                slots_[i] = std::move(o);
            }
    }
    std::vector<slot> slots_;
    std::size_t mask_ = 0;
    std::size_t size_ = 0;
};

/// The hash of a name that `name_map` takes.
inline std::uint64_t name_hash(std::string_view name) noexcept { return hash_bytes(name.data(), name.size()); }

/// A flat open-addressing map from names to u32 ids (linear probing, load
/// factor at most 0.7) that does not keep the names: `NameOf` gives the name
/// of a stored id (the caller's own list of names), so a slot is 8 bytes, a
/// 32-bit piece of the name's hash and the id. A lookup compares a name only
/// where the hash pieces agree, almost always the name it looks for.
template <class NameOf>
class name_map {
public:
    /// A map whose stored ids are named by `name_of`. The map calls it only
    /// for ids stored by earlier inserts (never for the one an `insert` is
    /// storing), so a caller may record a name right after inserting its id.
    explicit name_map(NameOf name_of = {}) : name_of_(std::move(name_of)) {}

    /// Reserves room for n names.
    void reserve(std::size_t n) {
        const std::size_t want = capacity_for(n);
        if (want > slots_.size()) rehash(want);
    }
    /// The id of `name`, or `none32`.
    std::uint32_t find(std::string_view name) const noexcept { return find_hashed(name, name_hash(name)); }
    /// `find` with the name's hash `h` (`name_hash(name)`) known.
    std::uint32_t find_hashed(std::string_view name, std::uint64_t h) const noexcept {
        if (slots_.empty()) return none32;
        const auto t = tag(h);
        for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
            const slot s = slots_[i];
            if (s.id == none32) return none32;
            if (s.tag == t && same_name(name_of_(s.id), name)) return s.id;
        }
    }
    /// Asks the CPU to fetch the slot where a name with hash `h` starts its probe.
    void prefetch(std::uint64_t h) const noexcept {
#if defined(__GNUC__) || defined(__clang__)
        if (!slots_.empty()) __builtin_prefetch(&slots_[h & mask_], 1);
#else
        (void)h;
#endif
    }
    /// Inserts `name → id` (`id` other than `none32`) unless present; returns
    /// the stored id and whether it was inserted.
    std::pair<std::uint32_t, bool> insert(std::string_view name, std::uint32_t id) {
        return insert_hashed(name, name_hash(name), id);
    }
    /// `insert` with the name's hash `h` (`name_hash(name)`) known.
    std::pair<std::uint32_t, bool> insert_hashed(std::string_view name, std::uint64_t h, std::uint32_t id) {
        if (10 * (size_ + 1) > 7 * slots_.size()) rehash(capacity_for(size_ + 1) * 2);
        const auto t = tag(h);
        std::size_t i = h & mask_;
        for (;; i = (i + 1) & mask_) {
            const slot s = slots_[i];
            if (s.id == none32) break;
            if (s.tag == t && same_name(name_of_(s.id), name)) return {s.id, false};
        }
        slots_[i] = slot{t, id};
        ++size_;
        return {id, true};
    }

private:
    struct slot {
        std::uint32_t tag = 0;
        std::uint32_t id = none32;  ///< none32: empty slot
    };
    /// The hash bits kept in a slot (the high half: the index takes the low bits).
    static std::uint32_t tag(std::uint64_t h) noexcept { return static_cast<std::uint32_t>(h >> 32); }
    static std::size_t capacity_for(std::size_t n) noexcept {
        std::size_t c = 16;
        while (7 * c < 10 * n) c *= 2;
        return c;
    }
    void rehash(std::size_t cap) {
        std::vector<slot> old = std::move(slots_);
        vyre::detail::assign_huge(slots_, cap, slot{}, vyre::detail::huge_blocks::whole);
        mask_ = cap - 1;
        for (const slot& s : old)
            if (s.id != none32) {
                std::size_t i = name_hash(name_of_(s.id)) & mask_;
                while (slots_[i].id != none32) i = (i + 1) & mask_;
                slots_[i] = s;
            }
    }
    NameOf name_of_;
    std::vector<slot> slots_;
    std::size_t mask_ = 0;
    std::size_t size_ = 0;
};

/// One error: where (a line or a statement index), the offending token, and
/// what was expected.
struct diagnostic {
    std::uint64_t pos = no_pos;
    std::string token;
    std::string message;
};

/// Keeps the first error in position order (ties: the one reported first).
class first_error {
public:
    /// Records an error unless one at an earlier or equal position is known.
    /// Long tokens are cut to 64 bytes followed by `...`.
    void report(std::uint64_t pos, std::string_view token, std::string message) {
        if (best_ && best_->pos <= pos) return;
        diagnostic d;
        d.pos = pos;
        if (token.size() > 64) {
            d.token.assign(token.substr(0, 64));
            d.token += "...";
        } else {
            d.token.assign(token);
        }
        d.message = std::move(message);
        best_ = std::move(d);
    }
    /// Whether an error at `pos` would still be reported (no earlier one known).
    bool open_at(std::uint64_t pos) const noexcept { return !best_ || pos < best_->pos; }
    /// Whether any error was recorded.
    bool any() const noexcept { return best_.has_value(); }
    /// Position of the recorded error (`no_pos` when none).
    std::uint64_t pos() const noexcept { return best_ ? best_->pos : no_pos; }
    /// The recorded error.
    const std::optional<diagnostic>& get() const noexcept { return best_; }

private:
    std::optional<diagnostic> best_;
};

/// Sorts and deduplicates the lists of a flow function (its canonical form;
/// the relation it denotes is unchanged).
inline void canonicalize(flow_function& f) {
    auto su = [](auto& v) {
        // already strictly increasing (as frontends and the printer write them): nothing to do
        if (std::adjacent_find(v.begin(), v.end(), std::greater_equal<>{}) == v.end()) return;
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    };
    su(f.kill);
    su(f.gen);
    su(f.pairs);
}

/// Node roles used by the checker.
enum class node_role : std::uint8_t { plain, start, exit };

/// The spec's well-formedness rules for everything after the declarations,
/// fed statement by statement in file (or call) order; used by the loader and
/// by `problem_builder`. Valid statements are appended to the problem; errors go
/// to a `first_error`. `pos_word` names positions in messages ("line" or
/// "statement").
///
/// Declarations (facts, procedures with their start and exit, nodes) are in
/// the problem before construction, or announced with `add_node` as they are
/// made (procedures before their nodes); facts may be added at any time. A node whose procedure could not be
/// resolved has `proc == none32`; statements using it are skipped silently (its
/// declaration has been reported).
class problem_checker {
public:
    /// Starts checking `p` (declarations complete, no statements yet).
    problem_checker(problem& p, first_error& err, std::string_view pos_word)
        : p_(p), err_(err), word_(pos_word) {
        const std::size_t n = p.nodes.size();
        role_.assign(n, node_role::plain);
        for (const procedure& pr : p.procs) {
            if (pr.start < n) role_[pr.start] = node_role::start;
            if (pr.exit < n) role_[pr.exit] = node_role::exit;
        }
        retsite_.assign(n, none32);
        call_seen_.assign(n, 0);
        flow_pos_.assign(n, no_pos);
        call_pos_.assign(n, no_pos);
    }

    /// Announces a node just appended to the problem (its procedure, when it
    /// has one, already in `procs`).
    void add_node(node_role r) {
        role_.push_back(r);
        retsite_.push_back(none32);
        call_seen_.push_back(0);
        flow_pos_.push_back(no_pos);
        call_pos_.push_back(no_pos);
    }

    /// Reserves room for about `nodes` nodes and `flows` flow edges.
    void reserve(std::size_t nodes, std::size_t flows) {
        using vyre::detail::reserve_huge;
        constexpr auto whole = vyre::detail::huge_blocks::whole;  // filled as the input is read
        reserve_huge(role_, nodes, whole);
        reserve_huge(retsite_, nodes, whole);
        reserve_huge(call_seen_, nodes, whole);
        reserve_huge(flow_pos_, nodes, whole);
        reserve_huge(call_pos_, nodes, whole);
        reserve_huge(flow_keys_, flows, whole);
        reserve_huge(p_.flows, flows, whole);
    }

    /// The storage `reserve` and `reserve_calls` set aside, in the order the
    /// statements fill it (per node, then flows, then calls), appended to
    /// `out` for `vyre::detail::background_populate`.
    void reserved_regions(std::vector<vyre::detail::background_populate::region>& out) const {
        auto add = [&out](const auto& v) { out.push_back({v.data(), v.capacity() * sizeof(*v.data())}); };
        add(role_), add(retsite_), add(call_seen_), add(flow_pos_), add(call_pos_);
        add(flow_keys_), add(p_.flows), add(p_.calls);
    }

    /// Reserves room for about `calls` call lines, `callee_flows`
    /// callflow/retflow lines and `ctrflows` ctrflow lines: the arrays
    /// (untouched until filled) and the key tables (the caller bounds the
    /// counts, so that a file of one line repeated stays small).
    void reserve_calls(std::size_t calls, std::size_t callee_flows, std::size_t ctrflows) {
        vyre::detail::reserve_huge(p_.calls, calls, vyre::detail::huge_blocks::whole);
        // the key tables too, at once (growing them by doubling touches twice the memory)
        calls_.reserve(calls);
        callf_keys_.reserve(callee_flows / 2);
        ret_keys_.reserve(callee_flows / 2);
        ctr_keys_.reserve(ctrflows);
        p_.ctrflows.reserve(ctrflows);
    }

    /// Skips the term rules on the flow functions handed in from now on: for
    /// a caller (the loader) that applies them, with the same messages, as
    /// it reads the terms.
    void terms_checked_by_caller() noexcept { terms_checked_ = true; }

    /// `flow FROM TO FF`.
    void flow(std::uint64_t pos, node_id from, node_id to, flow_function&& f) {
        if (!node_ok(pos, from) || !node_ok(pos, to) || !ff_ok(pos, f)) return;
        const proc_id pf = p_.nodes[from].proc, pt = p_.nodes[to].proc;
        if (pf == none32 || pt == none32) return;
        bool ok = true;
        if (role_[from] == node_role::exit) {
            report(pos, node_name(from), "no flow edge may leave an exit node: '" + node_name(from) +
                                             "' is the exit of procedure '" + p_.procs[pf].name + "'");
            ok = false;
        } else if (retsite_[from] != none32 || call_seen_[from]) {
            report(pos, node_name(from),
                   "no flow edge may leave a call site: '" + node_name(from) + "' calls at " + where(call_pos_[from]) +
                       "; its successors are its callees' starts and its return site");
            ok = false;
        }
        if (pf != pt) {
            report(pos, node_name(to), "a flow edge stays inside one procedure: expected a node of procedure '" +
                                           p_.procs[pf].name + "', but '" + node_name(to) + "' belongs to '" +
                                           p_.procs[pt].name + "'");
            ok = false;
        }
        if (!ok) return;
        // repeated edges are found by sorting, in finish(): no random access here
        flow_keys_.push_back(flow_key{key(from, to), pos});
        if (flow_pos_[from] == no_pos) flow_pos_[from] = pos;
        canonicalize(f);
        p_.flows.push_back(flow_edge{from, to, std::move(f)});
    }

    /// Registers that a `call SITE CALLEE` line exists (even a faulty one), so
    /// that `callflow`/`retflow`/`ctrflow` lines are matched against it.
    void note_call(std::uint64_t pos, node_id site, proc_id callee) {
        if (site >= p_.nodes.size()) return;
        if (!call_seen_[site]) call_pos_[site] = pos, call_seen_[site] = 1;
        if (callee < p_.procs.size()) calls_.try_emplace(key(site, callee), call_info{pos, none32});
    }

    /// `call SITE CALLEE RETSITE`.
    void call(std::uint64_t pos, node_id site, proc_id callee, node_id retsite) {
        if (!node_ok(pos, site)) return;
        // A call line with an error still counts as the call that an earlier
        // `ctrflow` (at SITE) or `callflow`/`retflow` (SITE CALLEE) matches:
        // the first error in line order is then this line's own.
        if (!proc_ok(pos, callee) || !node_ok(pos, retsite)) {
            note_call(pos, site, callee);
            return;
        }
        const auto [info, fresh] = calls_.try_emplace(key(site, callee), call_info{pos, none32});
        if (!fresh) {
            report(pos, p_.procs[callee].name, "repeated call: '" + node_name(site) + "' already calls '" +
                                                   p_.procs[callee].name + "' at " + where(info->pos));
            return;
        }
        if (!call_seen_[site]) call_pos_[site] = pos, call_seen_[site] = 1;
        const proc_id ps = p_.nodes[site].proc, pr = p_.nodes[retsite].proc;
        if (ps == none32 || pr == none32) return;
        bool ok = true;
        if (role_[site] == node_role::exit) {
            report(pos, node_name(site), "a call site cannot be an exit node: '" + node_name(site) +
                                             "' is the exit of procedure '" + p_.procs[ps].name + "'");
            ok = false;
        }
        if (flow_pos_[site] != no_pos) {
            report(pos, node_name(site), "a call site cannot have flow edges: a flow edge leaves '" +
                                             node_name(site) + "' at " + where(flow_pos_[site]));
            ok = false;
        }
        if (retsite == site) {
            report(pos, node_name(retsite), "the return site must differ from the call site '" + node_name(site) + "'");
            ok = false;
        } else if (pr != ps) {
            report(pos, node_name(retsite), "the return site must be a node of the caller '" + p_.procs[ps].name +
                                                "', but '" + node_name(retsite) + "' belongs to '" +
                                                p_.procs[pr].name + "'");
            ok = false;
        } else if (retsite_[site] != none32 && retsite_[site] != retsite) {
            report(pos, node_name(retsite), "call site '" + node_name(site) + "' already returns to '" +
                                                node_name(retsite_[site]) +
                                                "': every call from one site must name the same return site");
            ok = false;
        }
        if (!ok) return;
        retsite_[site] = retsite;
        info->idx = static_cast<std::uint32_t>(p_.calls.size());
        p_.calls.push_back(call_edge{site, callee, retsite, flow_function::id(), flow_function::id()});
    }

    /// `callflow SITE CALLEE FF` (`is_ret == false`) or `retflow SITE CALLEE FF`.
    void callee_flow(std::uint64_t pos, bool is_ret, node_id site, proc_id callee, flow_function&& f) {
        if (!node_ok(pos, site) || !proc_ok(pos, callee) || !ff_ok(pos, f)) return;
        auto& keys = is_ret ? ret_keys_ : callf_keys_;
        const auto [prev, fresh] = keys.try_emplace(key(site, callee), pos);
        if (!fresh) {
            report(pos, p_.procs[callee].name,
                   std::string("repeated ") + (is_ret ? "retflow" : "callflow") + " for '" + node_name(site) +
                       "' and '" + p_.procs[callee].name + "': already given at " + where(*prev));
            return;
        }
        canonicalize(f);
        if (const call_info* ci = calls_.find(key(site, callee))) {  // the call came first: attach now
            if (ci->idx != none32) (is_ret ? p_.calls[ci->idx].retflow : p_.calls[ci->idx].callflow) = std::move(f);
            return;
        }
        pending_.push_back(pending{pos, is_ret ? kind_ret : kind_call, site, callee, std::move(f)});
    }

    /// `ctrflow SITE FF`.
    void ctrflow(std::uint64_t pos, node_id site, flow_function&& f) {
        if (!node_ok(pos, site) || !ff_ok(pos, f)) return;
        const auto [prev, fresh] = ctr_keys_.try_emplace(site, pos);
        if (!fresh) {
            report(pos, node_name(site), "repeated ctrflow for '" + node_name(site) + "': already given at " + where(*prev));
            return;
        }
        canonicalize(f);
        if (call_seen_[site]) {  // a call line at the site came first: attach now
            p_.ctrflows[site] = std::move(f);
            return;
        }
        pending_.push_back(pending{pos, kind_ctr, site, 0, std::move(f)});
    }

    /// `seed NODE FACT`.
    void seed(std::uint64_t pos, node_id n, fact_id fact) {
        if (!node_ok(pos, n)) return;
        if (role_[n] != node_role::start) {
            report(pos, node_name(n), "a seed must be at the start node of a procedure, but '" + node_name(n) +
                                          "' is not a start node");
            return;
        }
        if (!fact_ok(pos, fact)) return;
        const auto [prev, fresh] = seed_keys_.try_emplace(key(n, fact), pos);
        if (!fresh) {
            report(pos, p_.fact_name(fact), "repeated seed '" + node_name(n) + "' '" + p_.fact_name(fact) +
                                                "': already given at " + where(*prev));
            return;
        }
        p_.seeds.push_back(weir::ifds::seed{n, fact});
    }

    /// Runs the checks that need the whole input (matching `callflow`,
    /// `retflow`, `ctrflow` to calls; at least one seed) and attaches the
    /// pending flow functions. `last_pos` is where end-of-input errors go.
    void finish(std::uint64_t last_pos) {
        report_repeated_flows();
        for (pending& pe : pending_) {
            if (!err_.open_at(pe.pos)) continue;
            if (pe.kind == kind_ctr) {
                if (!call_seen_[pe.site]) {
                    report(pe.pos, node_name(pe.site), "ctrflow needs a call at '" + node_name(pe.site) +
                                                           "': expected a `call " + node_name(pe.site) +
                                                           " CALLEE RETSITE` line");
                    continue;
                }
                p_.ctrflows[pe.site] = std::move(pe.f);
                continue;
            }
            const char* what_kw = pe.kind == kind_ret ? "retflow" : "callflow";
            call_info* ci = calls_.find(key(pe.site, pe.callee));
            if (!ci) {
                report(pe.pos, p_.procs[pe.callee].name,
                       std::string(what_kw) + " needs a matching call: expected a `call " + node_name(pe.site) + " " +
                           p_.procs[pe.callee].name + " RETSITE` line");
                continue;
            }
            if (ci->idx == none32) continue;
            (pe.kind == kind_ret ? p_.calls[ci->idx].retflow : p_.calls[ci->idx].callflow) = std::move(pe.f);
        }
        pending_.clear();
        if (p_.seeds.empty())
            report(last_pos, "", "no seed: expected at least one `seed NODE FACT` line");
    }

private:
    struct call_info {
        std::uint64_t pos = no_pos;
        std::uint32_t idx = none32;  ///< index in problem::calls, none32 when the call was faulty
    };
    struct flow_key {
        std::uint64_t key;
        std::uint64_t pos;
    };
    enum pending_kind : std::uint8_t { kind_call, kind_ret, kind_ctr };
    struct pending {
        std::uint64_t pos;
        pending_kind kind;
        node_id site;
        proc_id callee;
        flow_function f;
    };

    /// Reports every flow edge that repeats an earlier one (same FROM and TO).
    /// The edges are grouped by FROM with a counting sort (linear: edges are
    /// many, and each node has few), then each group of two or more is sorted
    /// by (TO, position) and neighbours are compared.
    void report_repeated_flows() {
        if (flow_keys_.size() < none32) report_repeated_flows_as<std::uint32_t>();  // (half the memory)
        else report_repeated_flows_as<std::size_t>();
    }
    /// `report_repeated_flows` with edge indices of type `Index`.
    template <class Index>
    void report_repeated_flows_as() {
        const std::size_t n = flow_keys_.size(), nodes = p_.nodes.size();
        if (n < 2) return;
        std::vector<Index> first;  // group bounds, by FROM
        vyre::detail::assign_huge(first, nodes + 1, Index{0}, vyre::detail::huge_blocks::whole);
        for (const flow_key& k : flow_keys_) ++first[(k.key >> 32) + 1];
        for (std::size_t v = 0; v < nodes; ++v) first[v + 1] += first[v];
        std::vector<Index> order;  // edge indices grouped by FROM, in line order within a group
        vyre::detail::assign_huge(order, n, Index{0}, vyre::detail::huge_blocks::whole);
        {
            std::vector<Index> next(first.begin(), first.end() - 1);
            for (std::size_t i = 0; i < n; ++i) order[next[flow_keys_[i].key >> 32]++] = static_cast<Index>(i);
        }
        std::vector<flow_key> group;
        for (std::size_t v = 0; v < nodes; ++v) {
            const std::size_t b = first[v], e = first[v + 1];  // (Index widens)
            if (e - b < 2) continue;
            group.clear();
            for (std::size_t j = b; j < e; ++j) group.push_back(flow_keys_[order[j]]);
            std::sort(group.begin(), group.end(), [](const flow_key& x, const flow_key& y) {
                return x.key != y.key ? x.key < y.key : x.pos < y.pos;
            });
            for (std::size_t i = 1; i < group.size(); ++i) {
                const flow_key& x = group[i - 1];
                const flow_key& y = group[i];
                if (x.key != y.key || !err_.open_at(y.pos)) continue;
                const auto from = static_cast<node_id>(x.key >> 32), to = static_cast<node_id>(x.key);
                report(y.pos, node_name(to), "repeated flow edge '" + node_name(from) + "' -> '" + node_name(to) +
                                                 "': already given at " + where(x.pos));
            }
        }
    }

    static std::uint64_t key(std::uint32_t a, std::uint32_t b) noexcept {
        return (std::uint64_t{a} << 32) | b;
    }
    void report(std::uint64_t pos, std::string_view token, std::string msg) {
        err_.report(pos, token, std::move(msg));
    }
    std::string where(std::uint64_t pos) const { return std::string(word_) + " " + std::to_string(pos); }
    std::string node_name(node_id n) const {
        return n < p_.nodes.size() ? p_.nodes[n].name : "#" + std::to_string(n);
    }
    bool node_ok(std::uint64_t pos, node_id n) {
        if (n < p_.nodes.size()) return true;
        report(pos, "#" + std::to_string(n), "unknown node id: expected an id returned by `proc` or `node`");
        return false;
    }
    bool proc_ok(std::uint64_t pos, proc_id q) {
        if (q < p_.procs.size()) return true;
        report(pos, "#" + std::to_string(q), "unknown procedure id: expected an id returned by `proc`");
        return false;
    }
    bool fact_ok(std::uint64_t pos, fact_id f) {
        if (f < p_.fact_count()) return true;
        report(pos, "#" + std::to_string(f), "unknown fact id: expected 0 or an id returned by `fact`");
        return false;
    }
    /// The term rules for a flow function given by ids (the loader applies the
    /// same rules, with the same messages, while it reads the terms).
    bool ff_ok(std::uint64_t pos, const flow_function& f) {
        if (terms_checked_) return true;
        for (fact_id x : f.kill) {
            if (!fact_ok(pos, x)) return false;
            if (x == zero_fact) return report(pos, "0", std::string(msg_kill_zero)), false;
        }
        for (fact_id x : f.gen) {
            if (!fact_ok(pos, x)) return false;
            if (x == zero_fact) return report(pos, "0", std::string(msg_gen_zero)), false;
        }
        for (const auto& [a, b] : f.pairs) {
            if (!fact_ok(pos, a) || !fact_ok(pos, b)) return false;
            if (b == zero_fact) {
                const std::string term = p_.fact_name(a) + ">0";
                return report(pos, term, std::string(a == zero_fact ? msg_pair_zero_zero : msg_pair_to_zero)), false;
            }
        }
        return true;
    }

    problem& p_;
    first_error& err_;
    std::string_view word_;
    std::vector<node_role> role_;
    std::vector<node_id> retsite_;          ///< return site of a (valid) call site
    std::vector<std::uint8_t> call_seen_;   ///< some call line names this site
    std::vector<std::uint64_t> flow_pos_;   ///< first flow edge leaving the node
    std::vector<std::uint64_t> call_pos_;   ///< first call line at the node
    std::vector<flow_key> flow_keys_;       ///< (from, to) of every valid flow edge
    bool terms_checked_ = false;            ///< see `terms_checked_by_caller`
    u64_map<call_info> calls_;              ///< (site, callee) → call
    u64_map<std::uint64_t> callf_keys_, ret_keys_, ctr_keys_, seed_keys_;
    std::vector<pending> pending_;          ///< callflow/retflow/ctrflow lines read before their call
};

} // namespace detail

/// Builds a `problem` statement by statement and checks it on `finish()`.
///
/// Ids are dense in declaration order: facts 1..N (0 is the zero fact and is
/// never declared), procedures and nodes from 0; `proc` declares its start
/// node, then its exit node. Statement methods take ids; errors (a repeated
/// name, an id that names nothing, any broken well-formedness rule) are
/// reported by `finish()`, the first one in call order.
class problem_builder {
public:
    /// Declares a fact; returns its id (for a repeated name, the first id).
    fact_id fact(std::string_view name) {
        const std::size_t pos = next();
        check_name(pos, name, "fact");
        const auto [it, fresh] = fact_ids_.try_emplace(std::string(name), p_.fact_count());
        if (!fresh) {
            err_.report(pos, name, "fact '" + std::string(name) + "' is already declared");
            return it->second;
        }
        p_.facts.emplace_back(name);
        return it->second;
    }

    /// Declares procedure `name` with new nodes `start_name` (declared first)
    /// and `exit_name`; returns the procedure's id.
    proc_id proc(std::string_view name, std::string_view start_name, std::string_view exit_name) {
        const std::size_t pos = next();
        check_name(pos, name, "procedure");
        check_name(pos, start_name, "node");
        check_name(pos, exit_name, "node");
        const auto q = static_cast<proc_id>(p_.procs.size());
        if (!proc_ids_.try_emplace(std::string(name), q).second)
            err_.report(pos, name, "procedure '" + std::string(name) + "' is already declared");
        const node_id s = add_node(pos, start_name, q);
        if (exit_name == start_name)
            err_.report(pos, exit_name, "the start and exit nodes of a procedure must be distinct");
        const node_id e = add_node(pos, exit_name, q);
        p_.procs.push_back(procedure{std::string(name), s, e});
        return q;
    }

    /// Declares a further node of procedure `owner`; returns its id.
    node_id node(std::string_view name, proc_id owner) {
        const std::size_t pos = next();
        check_name(pos, name, "node");
        if (owner >= p_.procs.size())
            err_.report(pos, "#" + std::to_string(owner), "unknown procedure id: expected an id returned by `proc`");
        return add_node(pos, name, owner < p_.procs.size() ? owner : detail::none32);
    }

    /// An intraprocedural edge `from → to` with flow function `f`.
    void flow(node_id from, node_id to, flow_function f) {
        stmts_.push_back(stmt{next(), stmt_kind::flow, from, to, 0, std::move(f)});
    }
    /// A call from `site` to `callee`, returning to `retsite`.
    void call(node_id site, proc_id callee, node_id retsite) {
        stmts_.push_back(stmt{next(), stmt_kind::call, site, callee, retsite, {}});
    }
    /// The flow function on the edge `site → start(callee)` (default: `id`).
    void callflow(node_id site, proc_id callee, flow_function f) {
        stmts_.push_back(stmt{next(), stmt_kind::callflow, site, callee, 0, std::move(f)});
    }
    /// The flow function on the edge `exit(callee) → retsite(site)` (default: `id`).
    void retflow(node_id site, proc_id callee, flow_function f) {
        stmts_.push_back(stmt{next(), stmt_kind::retflow, site, callee, 0, std::move(f)});
    }
    /// The call-to-return flow function of `site` (default: `id`).
    void ctrflow(node_id site, flow_function f) {
        stmts_.push_back(stmt{next(), stmt_kind::ctrflow, site, 0, 0, std::move(f)});
    }
    /// A seed: `f` holds at `start_node` (which must be a procedure's start).
    void seed(node_id start_node, fact_id f) {
        stmts_.push_back(stmt{next(), stmt_kind::seed, start_node, f, 0, {}});
    }

    /// The id of a declared fact (`"0"` is the zero fact).
    std::optional<fact_id> find_fact(std::string_view name) const {
        if (name == "0") return zero_fact;
        auto it = fact_ids_.find(std::string(name));
        return it == fact_ids_.end() ? std::nullopt : std::optional<fact_id>(it->second);
    }
    /// The id of a declared procedure.
    std::optional<proc_id> find_proc(std::string_view name) const {
        auto it = proc_ids_.find(std::string(name));
        return it == proc_ids_.end() ? std::nullopt : std::optional<proc_id>(it->second);
    }
    /// The id of a declared node.
    std::optional<node_id> find_node(std::string_view name) const {
        auto it = node_ids_.find(std::string(name));
        return it == node_ids_.end() ? std::nullopt : std::optional<node_id>(it->second);
    }
    /// Start node of a declared procedure.
    node_id start_of(proc_id q) const { return q < p_.procs.size() ? p_.procs[q].start : detail::none32; }
    /// Exit node of a declared procedure.
    node_id exit_of(proc_id q) const { return q < p_.procs.size() ? p_.procs[q].exit : detail::none32; }
    /// The declarations so far (facts, procedures, nodes; statements come with `finish`).
    const problem& declared() const noexcept { return p_; }

    /// Checks every well-formedness rule and returns the problem, or the first
    /// error in call order. The builder is left unchanged.
    vyre::result<problem, build_error> finish() const& {
        problem p = p_;
        std::vector<stmt> s = stmts_;
        return run(std::move(p), std::move(s), err_, count_);
    }
    /// As `finish() const&`, moving the builder's state out.
    vyre::result<problem, build_error> finish() && {
        return run(std::move(p_), std::move(stmts_), err_, count_);
    }

private:
    enum class stmt_kind : std::uint8_t { flow, call, callflow, retflow, ctrflow, seed };
    struct stmt {
        std::size_t pos;
        stmt_kind kind;
        std::uint32_t a, b, c;
        flow_function f;
    };

    std::size_t next() noexcept { return ++count_; }

    void check_name(std::size_t pos, std::string_view name, const char* what) {
        if (!detail::is_valid_name(name))
            err_.report(pos, name, std::string("malformed ") + what + " name: expected " +
                                       std::string(detail::name_syntax));
    }

    node_id add_node(std::size_t pos, std::string_view name, proc_id owner) {
        const auto n = static_cast<node_id>(p_.nodes.size());
        if (!node_ids_.try_emplace(std::string(name), n).second)
            err_.report(pos, name, "node '" + std::string(name) + "' is already declared");
        p_.nodes.push_back(weir::ifds::node{std::string(name), owner});
        return n;
    }

    static vyre::result<problem, build_error> run(problem p, std::vector<stmt> stmts, detail::first_error err,
                                                  std::size_t count) {
        {
            detail::problem_checker ck(p, err, "statement");
            for (stmt& s : stmts) {
                switch (s.kind) {
                case stmt_kind::flow: ck.flow(s.pos, s.a, s.b, std::move(s.f)); break;
                case stmt_kind::call: ck.call(s.pos, s.a, s.b, s.c); break;
                case stmt_kind::callflow: ck.callee_flow(s.pos, false, s.a, s.b, std::move(s.f)); break;
                case stmt_kind::retflow: ck.callee_flow(s.pos, true, s.a, s.b, std::move(s.f)); break;
                case stmt_kind::ctrflow: ck.ctrflow(s.pos, s.a, std::move(s.f)); break;
                case stmt_kind::seed: ck.seed(s.pos, s.a, s.b); break;
                }
            }
            ck.finish(count == 0 ? 1 : count);
        }
        if (const auto& d = err.get())
            return vyre::make_unexpected(build_error{static_cast<std::size_t>(d->pos), d->token, d->message});
        return p;
    }

    problem p_;
    std::vector<stmt> stmts_;
    detail::first_error err_;
    std::size_t count_ = 0;
    std::unordered_map<std::string, fact_id> fact_ids_;
    std::unordered_map<std::string, proc_id> proc_ids_;
    std::unordered_map<std::string, node_id> node_ids_;
};

} // namespace weir::ifds
