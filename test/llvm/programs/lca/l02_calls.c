/* Constants through calls: arguments to parameters, returned values to the
   call's result, a callee used in two contexts keeps them apart. */
int inc(int a) {
  int r = a + 1;
  return r;
}

int seven(void) { return 7; }

int main(void) {
  int x = inc(1); // expect: x=2
  int y = inc(10); // expect: x=2 y=11
  int s = seven(); // expect: x=2 y=11 s=7
  return x + y + s; // expect: x=2 y=11 s=7
}
