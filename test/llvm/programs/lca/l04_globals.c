/* Globals: their initial values, updates in a callee seen by the caller. */
int g = 3;
int h;

void bump(void) {
  g = g + 10; // expect: g=13 h=0
} // expect: g=13 h=0

int main(void) {
  int before = g; // expect: g=3 h=0 before=3
  bump(); // expect: g=13 h=0 before=3
  int after = g; // expect: g=13 h=0 before=3 after=13
  h = after - before; // expect: g=13 before=3 after=13
  return h; // expect: g=13 before=3 after=13
}
