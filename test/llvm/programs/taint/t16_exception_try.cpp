// A call inside try may throw: the handler is reached through the invoke's
// unwind edge, with the taint the variables had at the call.
int source();
void sink(int);
int sanitize(int);

void check(int v) {
  if (v < 0)
    throw v;
}

int main() {
  int x = source();
  int c = 1;
  int y = 0;
  try {
    check(c);
    y = source();
    check(y);
  } catch (...) {
    sink(x); // expect-finding
    sink(y); // expect-finding
    sink(c);
  }
  sink(sanitize(y));
  return 0;
}
