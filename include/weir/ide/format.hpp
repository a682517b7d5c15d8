#pragma once
/// \file weir/ide/format.hpp
/// The `.ide` format, version 1 (spec: ide-format.md): `load_problem<F>`
/// reads and `print_problem<F>` writes `ide 1 FAMILY` files with the `.ifds` loader (the same scan, the
/// same errors, in line order) extended by the family's edge functions
/// (`a>b=EF`, `gen:a,b=EF`) and seed values (`seed NODE FACT [VALUE]`).
/// `header_of` tells the two formats apart: the header decides, not the
/// file's name.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <vyre/core/result.hpp>

#include <weir/ide/problem.hpp>
#include <weir/ifds/format.hpp>

namespace weir::ide {

/// What a problem file's first statement says it is.
struct file_header {
    bool ide = false;      ///< `ide 1 ...` (else `.ifds`, or not a problem file: its loader says why)
    std::string family;    ///< the family an `ide` header names
};

/// Reads the first statement of `text` (after blank and comment lines).
inline file_header header_of(std::string_view text) {
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // CRLF, as the loader reads it
        ifds::detail::line_cursor c{line.data(), line.data() + line.size()};
        if (const std::string_view kw = c.next(); !kw.empty()) {
            file_header h;
            if (kw == "ide") {
                h.ide = true;
                (void)c.next();
                h.family = std::string(c.next());
            }
            return h;
        }
        if (nl == std::string_view::npos) break;
        text.remove_prefix(nl + 1);
    }
    return {};
}

namespace detail {

/// Keeps a family's edge functions and seed values as the loader reads them.
template <textual_edge_function_family F>
class term_reader final : public ifds::detail::term_extension {
public:
    std::string_view family() const override { return F::name; }
    void begin_statement() override {
        pending_.clear();
        value_.reset();
    }
    std::string edge_function(fact_id d, fact_id t, std::string_view ef) override {
        std::string why;
        auto f = F::parse_function(ef, why);
        if (!f) return why.empty() ? "malformed edge function '" + std::string(ef) + "'" : why;
        pending_.push_back({d, t, *f});
        return {};
    }
    std::string seed_value(std::string_view v) override {
        std::string why;
        auto x = F::parse_value(v, why);
        if (!x) return why.empty() ? "malformed seed value '" + std::string(v) + "'" : why;
        value_ = *x;
        return {};
    }
    void statement(ifds::detail::statement_kind kind, std::uint32_t a, std::uint32_t b,
                   const ifds::flow_function* f) override {
        using k = ifds::detail::statement_kind;
        const std::uint64_t key = std::uint64_t(a) << 32 | b;
        switch (kind) {
        case k::flow: flows[key] = joined(*f); break;
        case k::callflow: calls[key] = joined(*f); break;
        case k::retflow: returns[key] = joined(*f); break;
        case k::ctrflow: ctrs[key] = joined(*f); break;
        case k::seed: seeds[key] = value_.value_or(F::bottom_value()); break;
        case k::call: break;
        }
    }

    std::map<std::uint64_t, edge_terms<F>> flows, calls, returns, ctrs;  ///< by (FROM, TO), (SITE, CALLEE), SITE
    std::map<std::uint64_t, typename F::value> seeds;                     ///< by (NODE, FACT)

private:
    /// The statement's terms with functions, joined as the spec says (`detail::join_written_terms`).
    edge_terms<F> joined(const ifds::flow_function& f) {
        edge_terms<F> out = join_written_terms<F>(std::move(pending_), f);
        pending_.clear();
        return out;
    }

    edge_terms<F> pending_;
    std::optional<typename F::value> value_;
};

/// Writes a problem's edge functions and seed values for `ifds::print_problem`.
template <textual_edge_function_family F>
class term_writer final : public ifds::detail::term_printer {
public:
    explicit term_writer(const problem<F>& p) : p_(p) {}
    std::string header() const override { return "ide 1 " + std::string(F::name); }

    /// The relation `f` with every pair that carries a function taken out of
    /// `id` (a `kill:`), `gen:` and the plain pairs, then each such pair as
    /// `d>t=EF`: no other term relates it, so loading gives back exactly EF.
    void terms(std::string& out, ifds::detail::statement_kind kind, std::size_t index,
               const ifds::flow_function& f) const override {
        const edge_terms<F>* t = terms_of(kind, index);
        if (!t || t->empty()) {
            ifds::detail::print_terms(out, p_.graph, f);
            return;
        }
        ifds::flow_function g = f;
        for (const auto& e : *t) {
            if (e.from == e.to && ifds::identity_keeps(g, e.from)) g.kill.push_back(e.from);
            if (e.from == zero_fact) std::erase(g.gen, e.to);
            std::erase(g.pairs, std::pair<fact_id, fact_id>(e.from, e.to));
        }
        ifds::detail::canonicalize(g);
        ifds::detail::print_terms(out, p_.graph, g);
        for (const auto& e : *t) {
            out += ' ';
            out += p_.graph.fact_name(e.from);
            out += '>';
            out += p_.graph.fact_name(e.to);
            out += '=';
            out += checked(F::print_function(e.f), [&](std::string_view s, std::string& why) {
                auto back = F::parse_function(s, why);
                return back && *back == e.f;
            });
        }
    }
    bool has_functions(ifds::detail::statement_kind kind, std::size_t index) const override {
        const edge_terms<F>* t = terms_of(kind, index);
        return t && !t->empty();
    }
    std::vector<node_id> ctr_sites() const override {
        std::vector<node_id> out;
        for (const auto& [site, t] : p_.ctr_functions)
            if (!t.empty()) out.push_back(site);
        return out;
    }
    void seed_value(std::string& out, std::size_t i) const override {
        if (p_.graph.seeds[i].fact == zero_fact) return;
        const auto& v = p_.seed_values[i];
        out += ' ';
        out += checked(F::print_value(v), [&](std::string_view s, std::string& why) {
            auto back = F::parse_value(s, why);
            return back && *back == v;
        });
    }

private:
    const edge_terms<F>* terms_of(ifds::detail::statement_kind kind, std::size_t index) const {
        using k = ifds::detail::statement_kind;
        switch (kind) {
        case k::flow: return &p_.flow_functions[index];
        case k::callflow: return &p_.call_functions[index];
        case k::retflow: return &p_.return_functions[index];
        case k::ctrflow: {
            auto it = p_.ctr_functions.find(static_cast<node_id>(index));
            return it == p_.ctr_functions.end() ? nullptr : &it->second;
        }
        default: return nullptr;
        }
    }
    /// `text`, when the family's parser reads it back to what was printed.
    template <class ReadsBack>
    static std::string checked(std::string text, ReadsBack reads_back) {
        std::string why;
        if (!reads_back(text, why))
            throw std::invalid_argument("ide::print_problem: '" + text + "' has no text form in `.ide` version 1" +
                                        (why.empty() ? std::string() : " (" + why + ")"));
        return text;
    }
    const problem<F>& p_;
};

} // namespace detail

/// Writes `p` as `.ide` text (`ide 1 FAMILY`), the `.ifds` printer's layout
/// with each edge function on its own `d>t=EF` term and seed values; loading
/// it gives the same relations, functions and values (the flow functions'
/// terms may be written differently: printing that again gives the same text).
/// Throws `std::invalid_argument` for a function or value that version 1
/// cannot write (for `linear`: `A*x+B` with B = -2⁶³, and `top`).
template <textual_edge_function_family F>
std::string print_problem(const problem<F>& p) {
    const detail::term_writer<F> w(p);
    return ifds::print_problem(p.graph, &w);
}

/// Loads an `ide 1 FAMILY` problem of family `F` from `text`; `file_name`
/// names it in errors. Every error of the `.ifds` format, plus the `.ide`
/// ones (a malformed edge function or seed value, `id=EF`, `kill:a=EF`, a
/// header naming another family), with its line; never a partial problem.
template <textual_edge_function_family F>
vyre::result<problem<F>, ifds::load_error> load_problem(std::string_view text, std::string_view file_name = "<input>") {
    detail::term_reader<F> terms;
    auto g = ifds::detail::loader(text, file_name, &terms).run();
    if (!g) return vyre::make_unexpected(g.error());
    problem<F> p;
    p.graph = std::move(*g);
    p.fill_defaults();
    auto take = [](auto& from, std::uint64_t key) {
        auto it = from.find(key);
        return it == from.end() ? edge_terms<F>{} : std::move(it->second);
    };
    for (std::size_t i = 0; i < p.graph.flows.size(); ++i)
        p.flow_functions[i] = take(terms.flows, std::uint64_t(p.graph.flows[i].from) << 32 | p.graph.flows[i].to);
    for (std::size_t i = 0; i < p.graph.calls.size(); ++i) {
        const std::uint64_t key = std::uint64_t(p.graph.calls[i].site) << 32 | p.graph.calls[i].callee;
        p.call_functions[i] = take(terms.calls, key);
        p.return_functions[i] = take(terms.returns, key);
    }
    for (auto& [site, t] : terms.ctrs)
        if (!t.empty()) p.ctr_functions[static_cast<node_id>(site >> 32)] = std::move(t);
    for (std::size_t i = 0; i < p.graph.seeds.size(); ++i) {
        const auto& s = p.graph.seeds[i];
        auto it = terms.seeds.find(std::uint64_t(s.node) << 32 | s.fact);
        p.seed_values[i] = s.fact == zero_fact || it == terms.seeds.end() ? F::bottom_value() : it->second;
    }
    return p;
}

/// Reads the file at `path` (`ifds::read_file_text`: once, so a pipe works)
/// and loads it (errors name the file as given); an unreadable file is a
/// `load_error` with line 0.
template <textual_edge_function_family F>
vyre::result<problem<F>, ifds::load_error> load_problem_file(const std::filesystem::path& path) {
    auto text = ifds::read_file_text(path);
    if (!text) return vyre::make_unexpected(std::move(text.error()));
    return load_problem<F>(text->view(), path.string());
}

} // namespace weir::ide
