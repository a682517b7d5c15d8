// weir-args: --config libc
/* --config libc: the format argument of the whole printf family is a sink,
   asprintf and vasprintf and glibc's fortified forms (__printf_chk, what
   printf becomes under -D_FORTIFY_SOURCE) included. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int __printf_chk(int flag, const char *format, ...);
int __snprintf_chk(char *s, size_t n, int flag, size_t len, const char *format, ...);

void later(const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  char *out;
  vasprintf(&out, f, ap); // expect-finding
  va_end(ap);
}

int main(void) {
  const char *f = getenv("FORMAT");
  char *out;
  char buf[16];
  asprintf(&out, f); // expect-finding
  __printf_chk(1, f); // expect-finding
  __snprintf_chk(buf, sizeof buf, 1, sizeof buf, f); // expect-finding
  later(f);
  asprintf(&out, "%s", f);
  return 0;
}
