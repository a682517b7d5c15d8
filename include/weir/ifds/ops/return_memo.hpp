#pragma once
/// \file weir/ifds/ops/return_memo.hpp
/// A thread's memo of callee summaries already mapped back to a call site:
/// for a call edge `ce` and callee context `d3`, the exit row's bits that
/// were mapped (a snapshot) and the caller facts they map to. A call site's
/// expansion (`ifds_rows::expand_entry`) then maps only the exit bits that
/// are new since the snapshot and ORs the rest in from the memo, instead of
/// mapping the whole exit row through the return flow, fact by fact, for
/// every caller context that reaches the call. Exact because the path-edge
/// bitset only grows: the bits of the snapshot are still set, so what the
/// memo holds plus what the new bits map to is what the whole row maps to.
/// One per thread (no synchronisation); bounded: when its words would pass
/// `max_words`, it forgets everything and starts again.

#include <algorithm>
#include <cstdint>
#include <vector>

namespace weir::ops::ifds_rows {

/// See the file comment.
class return_memo {
public:
    /// The most words (snapshots and mapped rows together) a memo holds by
    /// default: 16 Mi words, 64 MiB per thread (and at most one record per
    /// 16 words: its index takes at most 32 MiB more).
    static constexpr std::uint64_t default_max_words = std::uint64_t{1} << 24;

    /// By default, the fewest facts an exit row holds before a call site
    /// makes a record of it: mapping a few facts directly costs less than a
    /// record (on SQLite's uninit problem, records for every row made the
    /// solve 19% slower and took 115 MB more).
    static constexpr std::uint32_t default_min_facts = 16;

    explicit return_memo(std::uint64_t max_words = default_max_words, std::uint32_t min_facts = default_min_facts)
        : max_words_(std::min<std::uint64_t>(max_words, ~std::uint32_t{0})), min_facts_(min_facts) {}

    /// The fewest facts of an exit row worth a record.
    std::uint32_t min_facts() const { return min_facts_; }

    /// The record of (ce, d3) that `insert` made for `site_facts` caller
    /// facts, laid out as `insert` says; nullptr when there is none, or when
    /// (ce, d3) was recorded with other `site_facts` (only malformed tables
    /// give one call edge two call sites).
    std::uint32_t* find(std::uint32_t ce, std::uint32_t d3, std::uint32_t site_facts) {
        if (slots_.empty()) return nullptr;
        const slot& s = slots_[probe(key_of(ce, d3))];
        return s.key == key_of(ce, d3) && s.site_facts == site_facts ? words_.data() + s.at : nullptr;
    }

    /// A new zeroed record of (ce, d3) for an exit row of `exit_facts` facts
    /// mapped to `site_facts` caller facts, after `find` found none:
    /// (exit_facts + 31) / 32 words of snapshot followed by (site_facts +
    /// 31) / 32 words of mapped caller facts. `exit_facts` must be a
    /// function of `ce` (the callee's facts). nullptr when one record alone
    /// would pass a quarter of the bound, or when (ce, d3) has a record
    /// already (other `site_facts`). When the bound is reached, the memo
    /// forgets every record first.
    std::uint32_t* insert(std::uint32_t ce, std::uint32_t d3, std::uint32_t exit_facts, std::uint32_t site_facts) {
        const std::uint64_t size = (std::uint64_t(exit_facts) + 31) / 32 + (std::uint64_t(site_facts) + 31) / 32;
        if (size > max_words_ / 4) return nullptr;
        const std::uint64_t key = key_of(ce, d3);
        if (slots_.empty()) {
            slots_.assign(initial_slots, slot{});
            words_.reserve(max_words_);  // address space only: pages come as records fill them
        }
        std::size_t i = probe(key);
        if (slots_[i].key == key) return nullptr;
        if (words_.size() + size > max_words_ || count_ + 1 > max_words_ / 16) {  // full: forget everything
            clear();
            i = probe(key);
        } else if (2 * (count_ + 1) > slots_.size()) {
            grow();
            i = probe(key);
        }
        slots_[i] = {key, static_cast<std::uint32_t>(words_.size()), site_facts};
        ++count_;
        words_.resize(words_.size() + size, 0u);
        return words_.data() + slots_[i].at;
    }

    /// Records held.
    std::size_t size() const { return count_; }

private:
    struct slot {
        std::uint64_t key = empty;
        std::uint32_t at = 0;          ///< the record's first word in words_
        std::uint32_t site_facts = 0;  ///< the caller facts it was recorded with
    };
    static constexpr std::uint64_t empty = ~std::uint64_t{0};
    static std::uint64_t key_of(std::uint32_t ce, std::uint32_t d3) { return (std::uint64_t(ce) << 32) | d3; }
    static constexpr std::size_t initial_slots = 1024;

    /// The slot of `key`, or the empty slot where it would go (linear probing).
    std::size_t probe(std::uint64_t key) const {
        const std::size_t mask = slots_.size() - 1;
        std::size_t i = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
        while (slots_[i].key != key && slots_[i].key != empty) i = (i + 1) & mask;
        return i;
    }
    void grow() {
        std::vector<slot> old(slots_.size() * 2);
        old.swap(slots_);
        for (const slot& s : old)
            if (s.key != empty) slots_[probe(s.key)] = s;
    }
    void clear() {
        std::fill(slots_.begin(), slots_.end(), slot{});
        words_.clear();
        count_ = 0;
    }

    std::uint64_t max_words_;
    std::uint32_t min_facts_;
    std::vector<slot> slots_;
    std::vector<std::uint32_t> words_;
    std::size_t count_ = 0;
};

} // namespace weir::ops::ifds_rows
