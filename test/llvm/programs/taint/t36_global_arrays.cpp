// mem2reg
// points-to: inclusion unification
// Global arrays and structs addressed by constant expressions (a constant
// GEP such as `&g_buf[4]`, no instruction computes the address): element
// stores taint the whole object, element loads and sinks on the buffer see
// it; a global nothing tainted stays clean.
int source();
void sink(int);
void sink(const char *);

int g_arr[4];
struct { int a, b; } g_s;
char g_buf[16];
char g_other[16];

int main() {
  g_arr[1] = source();
  sink(g_arr[3]); // expect-finding
  g_s.b = source();
  sink(g_s.a); // expect-finding
  g_buf[2] = (char)source();
  sink(g_buf); // expect-finding
  sink(&g_buf[4]); // expect-finding
  sink(g_other);
  sink(g_other[1]);
  return 0;
}
