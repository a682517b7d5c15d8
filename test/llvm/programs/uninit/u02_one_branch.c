/* A variable initialized on one branch only is uninitialized at the merge
   (both branches are feasible); one initialized on both branches is not. */
#include <stdlib.h>

int main(void) {
  int c = rand();
  int x;
  if (c % 2)
    x = 1;
  int y;
  if (c % 3)
    y = 1;
  else
    y = 2;
  int r = y * 2;
  return r + x; // expect-finding
}
