/* A store through a pointer (not the alloca itself) is a weak update:
   an untainted store does not clear the taint. A tainted store through a
   pointer taints what it points to. */
int source(void);
void sink(int);
int sanitize(int);

void clear(int *p) { *p = 0; }

int main(void) {
  int x = source();
  int *p = &x;
  *p = 0;
  sink(x); // expect-finding
  int y = source();
  clear(&y);
  sink(y); // expect-finding
  int a[2];
  a[0] = source();
  a[0] = 0;
  sink(a[0]); // expect-finding
  int t = 0;
  int *r = &t;
  *r = source();
  sink(t); // expect-finding
  int z = 1;
  int *q = &z;
  *q = 2;
  sink(z);
  return 0;
}
