/* A store through a pointer that may point to two variables is a weak
   update: each keeps its old value joined with the new one (a stays 1,
   b becomes bottom). The `?:` line branches, so it reports nothing. */
int main(int argc, char **argv) {
  int a = 1; // expect: a=1
  int b = 2; // expect: a=1 b=2
  int *p = argc > 1 ? &a : &b;
  *p = 1; // expect: a=1
  int c = a + 1; // expect: a=1 c=2
  return c; // expect: a=1 c=2
}
