/* The copying functions copy taint from their source objects and from every
   tainted argument (a size, a bound) into the destination (analyze.md,
   "Propagation"): a tainted size taints what memcpy, strncpy and snprintf
   write; clean arguments keep the destination clean. */
#include <stdio.h>
#include <string.h>

int source(void);
void sink(const char *);

int main(void) {
  const char s[8] = "abcdefg";
  char a[8], b[8], c[8], d[8];
  memcpy(a, s, (size_t)source() & 7);
  sink(a); // expect-finding
  strncpy(b, s, (size_t)source() & 7);
  sink(b); // expect-finding
  snprintf(c, (size_t)source() & 7, "abc");
  sink(c); // expect-finding
  memcpy(d, s, 4);
  sink(d);
  return 0;
}
