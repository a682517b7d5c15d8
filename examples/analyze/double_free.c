/* For examples/llvm_double_free.cpp: a buffer freed twice through a helper,
   and a clean reallocation. */
#include <stdlib.h>
#include <string.h>

struct conn { char *buf; };

static void conn_close(struct conn *c) { free(c->buf); }

int main(int argc, char **argv) {
  struct conn c;
  c.buf = malloc(64);
  strcpy(c.buf, "hello");
  conn_close(&c);
  if (argc > 1) free(c.buf); /* double free: conn_close freed it */
  for (int i = 0; i < 2; ++i) {
    char *p = malloc(16); /* each round a new block, */
    free(p);              /* freed once: fine */
  }
  return 0;
}
