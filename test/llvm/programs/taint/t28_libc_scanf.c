// weir-args: --config libc
/* libc configuration: scanf taints the objects its pointer arguments
   address; snprintf carries the taint of its arguments into the buffer. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  char name[64];
  int count = 0;
  if (scanf("%63s %d", name, &count) != 2)
    return 1;
  system(name); // expect-finding
  char cmd[80];
  snprintf(cmd, sizeof cmd, "echo %d", count);
  system(cmd); // expect-finding
  system("true");
  return 0;
}
