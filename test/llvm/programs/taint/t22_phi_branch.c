// mem2reg
/* Both branches of an if are feasible: taint on one branch reaches the
   merge (a phi after mem2reg); strong updates on both branches clear it. */
#include <stdlib.h>

int source(void);
void sink(int);
int sanitize(int);

int main(void) {
  int c = rand();
  int x = 0;
  if (c > 5)
    x = source();
  sink(x); // expect-finding
  int y;
  if (c > 5)
    y = 1;
  else
    y = 2;
  sink(y);
  int z = source();
  if (c & 1)
    z = sanitize(z);
  sink(z); // expect-finding
  int w = source();
  if (c & 2)
    w = 0;
  else
    w = 1;
  sink(w);
  return 0;
}
