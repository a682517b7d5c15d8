/* A global tainted in one function reaches a sink in another. */
int source(void);
void sink(int);
int sanitize(int);

int secret;
int public_val = 5;

void set(void) { secret = source(); }

void use(void) {
  sink(secret); // expect-finding
  sink(public_val);
}

int main(void) {
  set();
  use();
  return 0;
}
