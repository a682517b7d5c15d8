/* Indirect calls only reach functions of their own type when a function's
   address keeps its type. Memory is field-insensitive, so `on_int` and
   `on_long` share the struct's one object; only their types tell their
   targets apart. A function whose address is cast stays a target of any
   call of a fitting arity (the table below: a
   callback cast to `void (*)(void *)`). Run under both points-to engines:
   under unification both handlers and the callback fall in one class. */
// mem2reg
// points-to: inclusion unification
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
