/* t32_funcptr_types.c under unification-based points-to (the engine for
   large modules), where both handlers and the callback fall in one class of
   objects: the types alone keep the spurious targets out. */
// weir-args: --points-to unification
int source(void);
void sink(int);

struct handlers {
  void (*on_int)(int);
  void (*on_long)(long);
};

static void quiet_int(int v) { (void)v; }
static void leak_long(long v) {
  sink((int)v); /* never tainted: on_long only gets 7 */
}

struct context {
  int data;
};
static void leak_context(struct context *c) {
  sink(c->data); // expect-finding
}
typedef void (*callback)(void *);
static callback table[] = {(callback)leak_context}; /* called as void (void *) */

int main(void) {
  struct handlers h = {quiet_int, leak_long};
  h.on_int(source()); /* reaches quiet_int, not leak_long */
  h.on_long(7);
  struct context c;
  c.data = source();
  table[0](&c);
  return 0;
}
