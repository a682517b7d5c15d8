// mem2reg
/* Taint flows through local variables (store/load of allocas at -O0,
   plain SSA values after mem2reg). */
int source(void);
void sink(int);
int sanitize(int);

int main(void) {
  int x = source();
  int y;
  y = x;
  int z = y;
  sink(z); // expect-finding
  int w = 7;
  int v = w;
  sink(v);
  return 0;
}
