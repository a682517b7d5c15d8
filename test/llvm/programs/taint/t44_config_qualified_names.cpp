// weir-args: --config {dir}/t44_config_qualified_names.json
// A configuration's names match the IR name or the demangled name, with or
// without its parameter list (analyze.md, "Taint configuration"), not the
// bare base name: `fetch` and `put` tag nothing in namespace ns; `ns::get`
// and `ns::emit(int)` do.
namespace ns {
int fetch();
void put(int);
int get();
void emit(int);
} // namespace ns

int main() {
  int a = ns::fetch();
  ns::put(a);
  int b = ns::get();
  ns::put(b);
  ns::emit(b); // expect-finding
  ns::emit(a);
  return 0;
}
