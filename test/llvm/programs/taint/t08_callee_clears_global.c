/* Taint of a global goes through the callee: a callee's strong update of
   the global clears it for the caller, a callee's tainted store taints it. */
int source(void);
void sink(int);
int sanitize(int);

int g;

void clear_g(void) { g = 0; }
void taint_g(void) { g = source(); }

int main(void) {
  g = source();
  clear_g();
  sink(g);
  taint_g();
  sink(g); // expect-finding
  clear_g();
  sink(g);
  return 0;
}
