/* Clean: globals are always initialized; locals are initialized before the
   calls that read them, or by a defined callee that stores through its
   parameter on every path. */
#include <stdio.h>

int counter;
static int table[4];

void init(int *p) { *p = 7; }

int sum(const int *p, int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += p[i];
  return s;
}

int main(void) {
  int a[4] = {1, 2, 3, 4};
  int total = sum(a, 4);
  int v;
  init(&v);
  counter += total + table[2] + v;
  int x;
  x = counter;
  printf("%d %d\n", total, x);
  return 0;
}
