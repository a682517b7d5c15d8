#pragma once
// Strongly connected components of a graph given by callables (internal to libweir-llvm).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>

namespace weir::llvm::detail {

/// Tarjan's strongly connected components, iterative. One walker remembers
/// the nodes it has walked, so `walk` from several starts visits each node
/// once; a fresh walker per start walks everything reachable again.
template <class Node>
class scc_walker {
public:
    /// True when a walk has reached `n`.
    bool walked(Node n) const { return index_.count(n) != 0; }

    /// Walks the nodes reachable from `start` that no walk reached before.
    /// `degree(n)` is the number of `n`'s successors and `successor(n, k)`
    /// the k-th (either may change for a node once its component is out);
    /// `component(std::span<const Node>)` is called for each component,
    /// sinks first, its nodes in the order Tarjan's stack gives them back
    /// (the last reached first).
    template <class Degree, class Successor, class Component>
    void walk(Node start, Degree&& degree, Successor&& successor, Component&& component) {
        if (walked(start)) return;
        enter(start);
        std::vector<Node> members;
        while (!dfs_.empty()) {
            frame& top = dfs_.back();
            const Node n = top.n;
            if (top.next < degree(n)) {
                const Node s = successor(n, top.next++);
                if (!walked(s)) enter(s);
                else if (on_stack_.count(s)) low_[n] = std::min(low_[n], index_[s]);
                continue;
            }
            dfs_.pop_back();
            if (!dfs_.empty()) low_[dfs_.back().n] = std::min(low_[dfs_.back().n], low_[n]);
            if (low_[n] != index_[n]) continue;
            members.clear();
            Node m;
            do {
                m = stack_.back();
                stack_.pop_back();
                on_stack_.erase(m);
                members.push_back(m);
            } while (m != n);
            component(std::span<const Node>(members));
        }
    }

private:
    struct frame {
        Node n;
        std::size_t next;  // the next successor of n to look at
    };
    ::llvm::DenseMap<Node, std::uint32_t> index_, low_;
    ::llvm::DenseSet<Node> on_stack_;
    std::vector<Node> stack_;
    std::vector<frame> dfs_;
    std::uint32_t counter_ = 0;

    void enter(Node n) {
        index_[n] = low_[n] = counter_++;
        stack_.push_back(n);
        on_stack_.insert(n);
        dfs_.push_back({n, 0});
    }
};

} // namespace weir::llvm::detail
