// weir-args: --config libc
// points-to: inclusion unification
/* libc configuration: a scanf-like wrapper passes its variadic pointers on
   in a va_list; vscanf taints the objects those pointers address. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int read_fields(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vscanf(fmt, ap);
  va_end(ap);
  return n;
}

int main(void) {
  char name[64];
  char fixed[16] = "true";
  if (read_fields("%63s", name) != 1)
    return 1;
  system(name); // expect-finding
  system(fixed);
  return 0;
}
