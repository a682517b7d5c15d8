/* Taint through actual->formal parameters and through return values. */
int source(void);
void sink(int);
int sanitize(int);

int add_one(int v) { return v + 1; }
int constant(int v) { return 7; }
void consume(int v) {
  sink(v); // expect-finding
}
int produce(void) { return source(); }

int main(void) {
  sink(add_one(source())); // expect-finding
  sink(constant(source()));
  consume(source());
  consume(3);
  int p = produce();
  sink(p); // expect-finding
  sink(add_one(2));
  return 0;
}
