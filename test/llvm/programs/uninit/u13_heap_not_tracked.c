/* Only allocas start uninitialized: memory from malloc is not tracked, so
   reading it is not a finding. */
#include <stdlib.h>

int main(void) {
  int *p = malloc(sizeof *p);
  if (!p)
    return 1;
  int v = *p;
  free(p);
  return v;
}
