/* glibc's fortified copies (what -D_FORTIFY_SOURCE makes of strcpy, strcat,
   snprintf, ... under optimization) copy taint as the plain ones do: their
   extra flag and size arguments come after the destination and source. */
#include <stddef.h>

char *source(void);
void sink(const char *);
char *__strcat_chk(char *dest, const char *src, size_t destlen);
char *__strncpy_chk(char *dest, const char *src, size_t n, size_t destlen);
void *__memmove_chk(void *dest, const void *src, size_t n, size_t destlen);
int __snprintf_chk(char *s, size_t maxlen, int flag, size_t slen, const char *format, ...);

int main(void) {
  char *s = source();
  char a[16] = "x", b[16], c[16], d[16], e[16];
  __strcat_chk(a, s, sizeof a);
  sink(a); // expect-finding
  __strncpy_chk(b, s, sizeof b, sizeof b);
  sink(b); // expect-finding
  __memmove_chk(c, s, 8, sizeof c);
  sink(c); // expect-finding
  __snprintf_chk(d, sizeof d, 1, sizeof d, "%s", s);
  sink(d); // expect-finding
  __snprintf_chk(e, sizeof e, 1, sizeof e, "%s", "clean");
  sink(e);
  return 0;
}
