// weir-args: --entry main --entry other
/* Global constructors run before main (analyze.md, "Command") also when
   main is one of several --entry functions; the other entries start on
   their own, before any constructor. */
int source(void);
void sink(int);

int g;
__attribute__((constructor)) static void init(void) { g = source(); }

void other(void) { sink(g); }

int main(void) {
  sink(g); // expect-finding
  return 0;
}
