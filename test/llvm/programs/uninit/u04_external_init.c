/* A call to a function without a body that receives a local's address
   (directly, or through a pointer that points to it) initializes it. */
#include <stdio.h>
#include <string.h>

int main(void) {
  int x;
  if (scanf("%d", &x) != 1)
    x = 0;
  char buf[16];
  memset(buf, 0, sizeof buf);
  int y;
  int *py = &y;
  sscanf("42", "%d", py);
  int r = x + buf[3] + y;
  int u;
  return r + u; // expect-finding
}
