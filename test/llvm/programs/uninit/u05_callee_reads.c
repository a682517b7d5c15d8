/* A defined callee that only reads through the pointer it receives leaves
   the caller's local uninitialized: the load in the callee is a finding,
   and so is the caller's later read. A callee that stores through its
   pointer initializes the caller's local. */
#include <stdio.h>

void show(const int *p) {
  if (*p > 0) // expect-finding
    puts("positive");
}

void set(int *p) { *p = 1; }

int main(void) {
  int x;
  show(&x);
  int y;
  set(&y);
  int r = y + 1;
  return r + x; // expect-finding
}
