// mem2reg
// weir-args: --config {dir}/t42_config_param_back.json
// A parameter tagged `source` of a function with a body makes what it points
// to tainted at the function's entry, and a callee that taints an object its
// caller can reach taints it for the caller after the return: after
// fill(&v), v is tainted in main, at every call of fill (from the call's own
// argument), while w, which fill never sees, stays clean. A store of a
// constant through the parameter is a weak update: the taint stays.
void sinki(int v);

void fill(int *p) { *p = 1; }

void twice(int *q) {
  fill(q);
  sinki(*q); // expect-finding
}

int main(void) {
  int v = 0;
  int w = 0;
  int u = 0;
  sinki(v);
  fill(&v);
  sinki(v); // expect-finding
  sinki(w);
  twice(&u);
  sinki(u); // expect-finding
  return 0;
}
