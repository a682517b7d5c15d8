// mem2reg
// weir-args: --config {dir}/t35_config_bodies.json
// A configuration's tags hold for functions with a body as for those
// without: read_input (`ret: source`), scrub (`sanitizer` parameter 0) and
// emit (`sink` parameter 0) are all defined here, and their bodies do not
// do what their tags say. A call that may reach the sanitizer scrub_ext
// (declared) or keep_buf (defined, leaves its buffer alone) sanitizes
// nothing: d stays tainted through keep_buf.
int read_input(void) { return 1; }
void scrub_ext(char *buf);
void keep_buf(char *buf) { (void)buf; }
void scrub(char *buf) { (void)buf; }
void emit(const char *s) { (void)s; }
void fill(char *buf, int v) { buf[0] = (char)v; }

int choose;

int main(void) {
  char a[8], b[8], d[8];
  fill(a, read_input());
  fill(b, 2);
  scrub(b);
  emit(a); // expect-finding
  emit(b);
  fill(d, 3);
  void (*s)(char *) = choose ? scrub_ext : keep_buf;
  s(d);
  emit(d); // expect-finding
  return 0;
}
