/* A store through a pointer that may address a local initializes it; a
   load through a pointer to an uninitialized local is a finding. */
int main(void) {
  int x;
  int *p = &x;
  *p = 5;
  int a = x;
  int b = *p;
  int z;
  int *q = &z;
  int c = *q; // expect-finding
  return a + b + c; // expect-finding
}
