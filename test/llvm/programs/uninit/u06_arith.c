/* Uninitialized values propagate through arithmetic; each use is a
   finding. Arithmetic on initialized values is clean. */
int main(void) {
  int x;
  int y = x * 2 + 1; // expect-finding
  int z = y - 3; // expect-finding
  int a = 4;
  int b = a * 3;
  int c = b - a;
  return z > c; // expect-finding
}
