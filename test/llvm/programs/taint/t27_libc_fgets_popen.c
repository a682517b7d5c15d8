// weir-args: --config libc
/* libc configuration: fgets taints the buffer it fills; popen is a sink. */
#include <stdio.h>

int main(void) {
  char line[128];
  if (!fgets(line, sizeof line, stdin))
    return 1;
  FILE *f = popen(line, "r"); // expect-finding
  if (f)
    pclose(f);
  FILE *g = popen("date", "r");
  if (g)
    pclose(g);
  return 0;
}
