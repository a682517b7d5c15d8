/* An uninitialized actual argument makes the formal parameter
   uninitialized in the callee (context-sensitively: the call with an
   initialized argument returns an initialized value). */
int twice(int v) {
  return v * 2; // expect-finding
}

int main(void) {
  int x;
  int y = 4;
  int s = twice(y);
  int r = twice(x); // expect-finding
  int t = s + 1;
  return r + t; // expect-finding
}
