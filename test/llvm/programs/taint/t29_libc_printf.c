// weir-args: --config libc
/* libc configuration: the format argument of the printf family is a sink;
   a tainted non-format argument is not. */
#include <stdio.h>

#pragma clang diagnostic ignored "-Wformat-security"

int main(void) {
  char buf[100];
  if (fgets(buf, sizeof buf, stdin) == NULL)
    return 1;
  printf(buf); // expect-finding
  printf("%s", buf);
  fprintf(stderr, buf); // expect-finding
  fprintf(stderr, "%s\n", buf);
  puts(buf);
  return 0;
}
