/* An uninitialized returned value makes the call's result uninitialized;
   storing it is not a finding, using it is. */
int get(void) {
  int v;
  return v; // expect-finding
}

int get_ok(void) {
  int v = 2;
  return v;
}

int main(void) {
  int a = get();
  int b = get_ok();
  int c = b * 2;
  return c + a; // expect-finding
}
