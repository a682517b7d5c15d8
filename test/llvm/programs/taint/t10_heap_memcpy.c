/* Heap objects (one per malloc call site): a tainted cell, copied with
   memcpy into another heap object, reaches the sink; a separate clean heap
   object does not. */
#include <stdlib.h>
#include <string.h>

int source(void);
void sink(int);
int sanitize(int);

int main(void) {
  int *buf = malloc(4 * sizeof(int));
  buf[0] = source();
  int *copy = malloc(4 * sizeof(int));
  memcpy(copy, buf, 4 * sizeof(int));
  sink(copy[0]); // expect-finding
  int *clean = malloc(4 * sizeof(int));
  clean[0] = 1;
  sink(clean[0]);
  free(buf);
  free(copy);
  free(clean);
  return 0;
}
