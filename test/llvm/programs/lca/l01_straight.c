/* Straight-line code: constants, copies, add/sub/mul by a constant, casts,
   and what is not linear (a product of two variables) is not a constant. */
int main(int argc, char **argv) {
  int x = 5; // expect: x=5
  int y = x + 3; // expect: x=5 y=8
  int z = 2 * y - 1; // expect: x=5 y=8 z=15
  long w = z; // expect: x=5 y=8 z=15 w=15
  int n = argc; // expect: x=5 y=8 z=15 w=15
  int p = n * x; // expect: x=5 y=8 z=15 w=15
  int q = 10 - x; // expect: x=5 y=8 z=15 w=15 q=5
  x = x * x; // expect: y=8 z=15 w=15 q=5
  return q; // expect: y=8 z=15 w=15 q=5
}
