// mem2reg
// An indirect call whose targets differ in what they touch: clear() updates
// the global strongly, keep() leaves it alone. After the call the taint of
// the global survives through keep(); a call that can only reach clear()
// removes it.
int source(void);
void sink(int);

int g;

void clear(void) { g = 0; }
void keep(void) {}

int main(int argc, char **argv) {
  (void)argv;
  void (*f)(void) = argc > 1 ? clear : keep;
  void (*h)(void) = clear;
  g = source();
  f();
  sink(g); // expect-finding
  h();
  sink(g);
  return 0;
}
