/* A callee that taints memory the caller can reach (*p) taints it for the
   caller after the return; objects the callee cannot reach keep their
   taint (or their cleanliness) across the call. */
int source(void);
void sink(int);
int sanitize(int);

void fill(int *p) { *p = source(); }
void noop(void) {}

int main(void) {
  int x = 0;
  sink(x);
  fill(&x);
  sink(x); // expect-finding
  int kept = source();
  noop();
  sink(kept); // expect-finding
  int other = 0;
  noop();
  sink(other);
  return 0;
}
