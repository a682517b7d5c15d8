/* Direct flow: the value returned by source() reaches sink(). */
int source(void);
void sink(int);
int sanitize(int);

int main(void) {
  sink(source()); // expect-finding
  sink(42);
  int x = source();
  sink(x); // expect-finding
  int y = 7;
  sink(y);
  return 0;
}
