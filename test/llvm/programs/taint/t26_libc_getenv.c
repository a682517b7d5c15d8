// weir-args: --config libc
/* libc configuration: getenv's result is a source; system and the exec
   family are sinks. */
#include <stdlib.h>
#include <unistd.h>

int main(void) {
  char *cmd = getenv("USER_CMD");
  if (cmd)
    system(cmd); // expect-finding
  system("ls -l");
  char *prog = getenv("PROG");
  if (prog)
    execlp(prog, prog, (char *)0); // expect-finding
  execlp("true", "true", (char *)0);
  return 0;
}
