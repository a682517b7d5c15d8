/* Taint through recursive functions (returned values, parameters passed
   down), context-sensitively: the clean call of pass_down is clean. */
int source(void);
void sink(int);
int sanitize(int);

int pass_down(int n, int v) {
  if (n == 0)
    return v;
  return pass_down(n - 1, v);
}

int accumulate(int n) {
  if (n <= 0)
    return source();
  return n + accumulate(n - 1);
}

void deep_sink(int n, int v) {
  if (n == 0) {
    sink(v); // expect-finding
    return;
  }
  deep_sink(n - 1, v);
}

int main(void) {
  sink(pass_down(3, source())); // expect-finding
  sink(pass_down(3, 5));
  sink(accumulate(2)); // expect-finding
  deep_sink(2, source());
  return 0;
}
