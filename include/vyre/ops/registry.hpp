#pragma once
/// \file vyre/ops/registry.hpp
/// Every op a program may name in `(op NAME ...)`: vyre's own catalogue
/// (vyre/ops/catalogue.hpp), then the extension ops that other libraries have
/// registered (vyre/ops/extension.hpp), with the native implementations
/// registered for each backend type. Validation, the text form and the
/// backends find ops here by name once, when a program is compiled; a
/// dispatch then calls the resolved function pointer (no lookup, no virtual
/// call on the hot path).

#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include <vyre/core/result.hpp>
#include <vyre/ops/catalogue.hpp>
#include <vyre/ops/op_info.hpp>

namespace vyre::ops {

/// A native implementation with its type erased; each backend casts it back
/// to its own `B::native_op_fn` (function pointers round-trip through any
/// function pointer type).
using erased_native_fn = void (*)();

/// The process-wide op registry. Thread-safe; entries are never removed, so
/// an `op_info*` it hands out stays valid for the life of the process.
class registry {
public:
    /// The one registry.
    static registry& instance() {
        static registry r;
        return r;
    }

    /// The op called `name`, or nullptr.
    const op_info* find(std::string_view name) const {
        std::lock_guard lk(mu_);
        for (const auto& e : entries_)
            if (e.info.name == name) return &e.info;
        return nullptr;
    }

    /// Every op's name: the catalogue's first, then extension ops in the
    /// order they were registered.
    std::vector<std::string> names() const {
        std::lock_guard lk(mu_);
        std::vector<std::string> v;
        for (const auto& e : entries_) v.emplace_back(e.info.name);
        return v;
    }

    /// The names of the ops that backend type `backend` runs natively
    /// through a registered implementation.
    std::vector<std::string> native_names(std::type_index backend) const {
        std::lock_guard lk(mu_);
        std::vector<std::string> v;
        for (const auto& e : entries_)
            for (const auto& n : e.natives)
                if (n.first == backend) v.emplace_back(e.info.name);
        return v;
    }

    /// Adds an extension op. Registering the same name again with the same
    /// signature returns the existing entry (headers may register from every
    /// translation unit); a name of the catalogue, or a known name with
    /// another signature, is an `invalid_argument` error.
    result<const op_info*> add(op_info info) {
        std::lock_guard lk(mu_);
        for (const auto& e : entries_) {
            if (e.info.name != info.name) continue;
            if (e.builtin)
                return fail(error_code::invalid_argument,
                            "extension op '" + std::string(info.name) + "' has the name of a vyre catalogue op",
                            "give the extension op a name of its own (for example with a library prefix)");
            if (!same_signature(e.info.params, info.params))
                return fail(error_code::invalid_argument,
                            "extension op '" + std::string(info.name) + "' is already registered with another signature",
                            "give each op a distinct name");
            return &e.info;
        }
        entries_.push_back({std::move(info), false, {}});
        return &entries_.back().info;
    }

    /// Records `fn` as backend type `backend`'s native implementation of
    /// `op` (an entry of this registry); a second registration replaces the first.
    void add_native(const op_info& op, std::type_index backend, erased_native_fn fn) {
        std::lock_guard lk(mu_);
        for (auto& e : entries_) {
            if (&e.info != &op) continue;
            for (auto& n : e.natives)
                if (n.first == backend) {
                    n.second = fn;
                    return;
                }
            e.natives.emplace_back(backend, fn);
            return;
        }
    }

    /// Backend type `backend`'s native implementation of `op`, or nullptr.
    erased_native_fn native(const op_info& op, std::type_index backend) const {
        std::lock_guard lk(mu_);
        for (const auto& e : entries_)
            if (&e.info == &op) {
                for (const auto& n : e.natives)
                    if (n.first == backend) return n.second;
                return nullptr;
            }
        return nullptr;
    }

private:
    struct entry {
        op_info info;
        bool builtin = false;
        std::vector<std::pair<std::type_index, erased_native_fn>> natives;
    };

    registry() {
        for (const auto& o : catalogue()) entries_.push_back({o, true, {}});
    }

    static bool same_signature(const std::vector<param>& a, const std::vector<param>& b) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i].kind != b[i].kind || a[i].name != b[i].name || a[i].writable != b[i].writable || a[i].type != b[i].type)
                return false;
        return true;
    }

    mutable std::mutex mu_;
    std::deque<entry> entries_;  // a deque: entries keep their addresses as it grows
};

/// The op called `name` (catalogue or registered extension), or nullptr.
inline const op_info* find_op(std::string_view name) { return registry::instance().find(name); }

/// Backend `B`'s native implementation of `op`, registered with
/// `register_op<Op, B>` or `register_native<B, Op>`, or nullptr.
template <class B>
typename B::native_op_fn native_for(const op_info& op) {
    return reinterpret_cast<typename B::native_op_fn>(registry::instance().native(op, std::type_index(typeid(B))));
}

} // namespace vyre::ops
