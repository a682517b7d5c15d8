/* sanitize() returns an untainted value whatever its argument; the
   argument itself stays tainted. */
int source(void);
void sink(int);
int sanitize(int);

int main(void) {
  int x = source();
  int y = sanitize(x);
  sink(y);
  sink(sanitize(x) + 1);
  sink(x); // expect-finding
  sink(sanitize(x) + x); // expect-finding
  return 0;
}
