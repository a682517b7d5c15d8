// mem2reg
// weir-args: --config {dir}/t35_config_bodies.json
// A configuration's tags hold for functions with a body as for those
// without: read_input (`ret: source`), scrub (`sanitizer` parameter 0) and
// emit (`sink` parameter 0) are all defined here, and their bodies do not
// do what their tags say.
int read_input(void) { return 1; }
void scrub(char *buf) { (void)buf; }
void emit(const char *s) { (void)s; }
void fill(char *buf, int v) { buf[0] = (char)v; }

int main(void) {
  char a[8], b[8];
  fill(a, read_input());
  fill(b, 2);
  scrub(b);
  emit(a); // expect-finding
  emit(b);
  return 0;
}
