/* Context sensitivity (realizable paths): identity() is called with a
   tainted and with a clean argument; only the tainted result is tainted. */
int source(void);
void sink(int);
int sanitize(int);

int identity(int v) { return v; }
int wrap(int v) { return identity(v); }

int main(void) {
  int t = identity(source());
  int c = identity(10);
  sink(t); // expect-finding
  sink(c);
  int wt = wrap(source());
  int wc = wrap(1);
  sink(wc);
  sink(wt); // expect-finding
  return 0;
}
