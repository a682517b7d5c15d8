/* Taint survives arithmetic, shifts, casts (trunc/ext/fp) and comparisons. */
int source(void);
void sink(int);
int sanitize(int);

int main(void) {
  int a = source();
  int b = a * 3 + 7;
  long c = (long)b << 2;
  char d = (char)c;
  sink(d); // expect-finding
  unsigned u = (unsigned)a;
  sink(u > 10u); // expect-finding
  double f = (double)a / 2.0;
  sink((int)f); // expect-finding
  int clean = 5 * 3;
  long wide = (long)clean << 4;
  sink((int)wide + 1);
  return 0;
}
