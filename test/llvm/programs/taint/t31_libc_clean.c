// weir-args: --config libc
/* libc configuration, clean: untrusted data is only printed through a
   literal format or measured; the commands run are constants. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  const char *home = getenv("HOME");
  printf("home: %s\n", home ? home : "?");
  char line[64];
  if (fgets(line, sizeof line, stdin)) {
    size_t len = strlen(line);
    printf("%zu chars\n", len);
  }
  system("echo done");
  return 0;
}
