/* One object stands for every frame of a local variable. In a recursive
   function that passes a local's address on, a new frame must not make the
   older frames' copies (initialized, and read through `outer`)
   uninitialized. A local that never leaves its frame is still uninitialized
   in every new frame. */
// mem2reg
struct cursor {
  const char *at;
};

static int walk(int n, const struct cursor *outer) {
  struct cursor mine;
  if (outer)
    mine.at = outer->at + 1; /* an older frame's copy, initialized */
  else
    mine.at = "start";
  if (n > 0)
    return walk(n - 1, &mine);
  return mine.at[0];
}

/* The same through two functions (mutual recursion). */
static int descend(int n, const struct cursor *c);
static int walk_mutual(int n, const struct cursor *outer) {
  struct cursor mine;
  mine.at = outer ? outer->at + 1 : "start";
  return n > 0 ? descend(n, &mine) : mine.at[0];
}
static int descend(int n, const struct cursor *c) { return walk_mutual(n - 1, c); }

static int count(int n) {
  int r;
  if (n > 0)
    r = n * 2;
  if (n > 1)
    count(n - 1); /* the result unused: no use of it is a finding */
  return r; // expect-finding
}

int main(void) {
  count(2);
  return walk(3, 0) + walk_mutual(3, 0);
}
