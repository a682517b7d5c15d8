// mem2reg
// The default configuration's tags apply to functions with a body too:
// a defined source() is a source whatever it returns, a defined sink() a
// sink, a defined sanitize() returns an untainted value whatever it returns.
int source(void) { return 0; }
void sink(int v) { (void)v; }
int sanitize(int v) { return v; }

int main(void) {
  int a = source();
  sink(a); // expect-finding
  int b = a + 1;
  sink(b); // expect-finding
  int c = sanitize(a);
  sink(c);
  sink(sanitize(source()));
  return 0;
}
