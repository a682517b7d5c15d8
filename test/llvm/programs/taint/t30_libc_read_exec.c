// weir-args: --config libc
/* libc configuration: read taints the buffer it fills; execv is a sink. */
#include <unistd.h>

int main(void) {
  char buf[256];
  ssize_t n = read(0, buf, sizeof buf - 1);
  if (n <= 0)
    return 1;
  buf[n] = '\0';
  char *args[] = {buf, 0};
  execv(buf, args); // expect-finding
  char *clean_args[] = {"/bin/true", 0};
  execv("/bin/true", clean_args);
  return 0;
}
