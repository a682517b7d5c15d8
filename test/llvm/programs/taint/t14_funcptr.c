/* Indirect calls are resolved by points-to: f can only be from_source,
   g only constant, h only do_sink, k only do_nothing. */
int source(void);
void sink(int);
int sanitize(int);

static int from_source(int v) { return source() + v; }
static int constant(int v) { return v * 0 + 1; }
static void do_sink(int v) {
  sink(v);
}
static void do_nothing(int v) { (void)v; }

int main(void) {
  int (*f)(int) = from_source;
  int (*g)(int) = constant;
  sink(f(1)); // expect-finding
  sink(g(2));
  void (*h)(int) = do_sink;
  void (*k)(int) = do_nothing;
  k(source());
  h(3);
  return 0;
}
