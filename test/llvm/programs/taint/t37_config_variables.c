// mem2reg
// weir-args: --config {dir}/t37_config_variables.json
// Variables tagged `source` in the configuration are tainted from the start
// of their scope: the global g_secret (at every entry) and main's local key;
// g_public and plain are not tagged. A parameter tagged `source` of a
// function with a body (handle's req) is tainted at its entry, and so is
// what it points to; its other parameter is not.
void emit(int v);
void emit_str(const char *s);

int g_secret = 42;
int g_public = 7;

void handle(const char *req, int n) {
  emit_str(req); // expect-finding
  emit(req[0]); // expect-finding
  emit(n);
}

int main(void) {
  char key[16];
  char plain[16];
  char request[16];
  emit(g_secret); // expect-finding
  emit(g_public);
  emit_str(key); // expect-finding
  emit_str(plain);
  handle(request, 3);
  return 0;
}
