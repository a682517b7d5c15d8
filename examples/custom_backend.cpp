// A user-written backend: it checks itself against vyre's concepts with
// static_assert, and generic vyre code (dispatch_into, dispatch_timed, the
// device profile) works with it unchanged. This one forwards the work to the
// reference interpreter and counts dispatches; a real one would run the
// program on its own device.

#include <cstdio>
#include <cstring>

#include <vyre/vyre.hpp>

namespace my {

class counting_backend {
public:
    static constexpr auto capabilities = boost::hana::tuple_t<vyre::cap::f16>;

    std::string_view id() const { return "counting"; }
    std::string_view version() const { return "0.1"; }
    vyre::device_limits limits() const { return {}; }

    vyre::result<std::vector<vyre::bytes>> dispatch(const vyre::ir::program& p,
                                                    std::span<const vyre::bytes_view> inputs,
                                                    const vyre::dispatch_config& c = {}) {
        ++dispatches_;
        return inner_.dispatch(p, inputs, c);
    }
    int dispatches() const { return dispatches_; }

private:
    vyre::cpu_ref inner_;
    int dispatches_ = 0;
};

// Fails to compile, naming the missing operation, if the backend is incomplete.
static_assert(vyre::check_dispatch_backend<counting_backend>());
static_assert(!vyre::resident_backend<counting_backend>);
static_assert(vyre::has_capability_v<counting_backend, vyre::cap::f16>);

} // namespace my

int main() {
    using namespace vyre::ir::dsl;
    auto p = vyre::ir::program("square")
                 .workgroup(32)
                 .buffer("x", 0, vyre::ir::access::read_write, vyre::ir::scalar_type::i32)
                 .add(let("i", gid()),
                      if_(lt(var("i"), len("x")), {store("x", var("i"), mul(load("x", var("i")), load("x", var("i"))))}));
    my::counting_backend b;
    std::int32_t v[3] = {-3, 4, 5};
    vyre::bytes in(sizeof v);
    std::memcpy(in.data(), v, sizeof v);
    std::vector<vyre::bytes_view> views{in};
    vyre::bytes out(sizeof v);
    std::vector<vyre::mutable_bytes_view> outs{out};
    if (auto r = vyre::dispatch_into(b, p, views, outs); !r) {
        std::fprintf(stderr, "%s\n", r.error().what());
        return 1;
    }
    auto t = vyre::dispatch_timed(b, p, views).value();
    std::int32_t r[3];
    std::memcpy(r, out.data(), sizeof r);
    std::printf("%s: %d %d %d after %d dispatches (last took %llu ns)\n", std::string(b.id()).c_str(), r[0], r[1], r[2],
                b.dispatches(), static_cast<unsigned long long>(t.time.wall_ns));
    std::printf("%s", vyre::get_device_profile(b).to_string().c_str());
    return (r[0] == 9 && r[1] == 16 && r[2] == 25 && b.dispatches() == 2) ? 0 : 1;
}
