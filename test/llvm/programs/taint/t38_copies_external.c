// mem2reg
/* memmove, strncpy, strncat and sprintf copy taint into their destination
   (the spec's list beside memcpy, strcpy, strcat and snprintf: t10, t11).
   A declared function with no tags (strlen, atoi, toupper) taints its
   result when an argument is tainted or points to a tainted object. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int source(void);
void sink(const char *);

int main(void) {
  char src[32], clean[32];
  snprintf(src, sizeof src, "%d", source());
  strcpy(clean, "constant");
  char a[32], b[32], c[32], d[32], e[32];
  memmove(a, src, sizeof a);
  sink(a); // expect-finding
  strncpy(b, src, sizeof b);
  sink(b); // expect-finding
  strcpy(c, "x");
  strncat(c, src, 8);
  sink(c); // expect-finding
  sprintf(d, "%s", src);
  sink(d); // expect-finding
  memmove(e, clean, sizeof e);
  sink(e);
  char g[4], h[4], k[4], m[4];
  g[0] = (char)strlen(src);
  sink(g); // expect-finding
  h[0] = (char)toupper(source());
  sink(h); // expect-finding
  k[0] = (char)atoi(src);
  sink(k); // expect-finding
  m[0] = (char)strlen(clean);
  sink(m);
  return 0;
}
