// mem2reg
/* A store of an untainted value directly to a local (alloca) or to a
   global is a strong update: it clears the taint. */
int source(void);
void sink(int);
int sanitize(int);

int g;

int main(void) {
  int x = source();
  sink(x); // expect-finding
  x = 0;
  sink(x);
  x = source();
  x = x + 1;
  sink(x); // expect-finding
  g = source();
  g = 1;
  sink(g);
  return 0;
}
