// weir-args: --config libc
// A small report tool with a command injection: the directory name comes
// from the environment and reaches system() through snprintf. The archive
// name is checked first and is clean. `./run demo` analyzes this file:
//   weir analyze examples/analyze/command_injection.c --config libc --witness
// (the `expect-finding` mark is for the test that runs it: test/llvm/run_program.py)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_safe_name(const char *s) {
  for (; *s; ++s)
    if (!((*s >= 'a' && *s <= 'z') || *s == '_')) return 0;
  return 1;
}

static void archive(const char *dir) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "tar czf /tmp/report.tgz %s", dir);
  system(cmd); /* the finding: dir comes from REPORT_DIR */ // expect-finding
}

static void list_fixed(void) {
  char cmd[64];
  strcpy(cmd, "ls /var/reports");
  system(cmd); /* clean: a constant command */
}

int main(void) {
  const char *dir = getenv("REPORT_DIR");
  if (!dir) dir = "/var/reports";
  list_fixed();
  archive(dir);
  const char *name = "daily";
  if (is_safe_name(name)) archive(name);
  return 0;
}
