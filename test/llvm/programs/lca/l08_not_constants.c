/* Values as the machine has them, and nothing that is not a constant: an
   entry's parameter is not one (y after the branch, z); casts of a variable
   are linear (i, c; more in l13_casts.c); unsigned arithmetic wraps
   (u * 65536 is 0) and an unsigned variable reads as unsigned (uc); a part
   of a variable written through a narrower pointer (x), an array (a) and an
   atomic update (t) end a constant; clang folds a builtin of a constant
   (bits); a static local counts in its own function only (calls, which is 1:
   counter runs once). */
#include <stdatomic.h>

int counter(void) {
  static int calls = 0;
  calls = calls + 1; // expect: calls=1
  return calls; // expect: calls=1
}

int main(int argc, char **argv) {
  int y = 5; // expect: y=5
  if (argc > 1)
    y = argc;
  int z = y;
  int bits = __builtin_popcount(12); // expect: bits=2
  unsigned char uc = 200; // expect: bits=2 uc=200
  int i = uc; // expect: bits=2 uc=200 i=200
  int w = 300; // expect: bits=2 uc=200 i=200 w=300
  char c = w; // expect: bits=2 uc=200 i=200 w=300 c=44
  unsigned u = 65536; // expect: bits=2 uc=200 i=200 w=300 c=44 u=65536
  u = u * 65536; // expect: bits=2 uc=200 i=200 w=300 c=44 u=0
  int x = 256; // expect: bits=2 uc=200 i=200 w=300 c=44 u=0 x=256
  *(char *)&x = 1; // expect: bits=2 uc=200 i=200 w=300 c=44 u=0
  int a[2] = {1, 2}; // expect: bits=2 uc=200 i=200 w=300 c=44 u=0
  atomic_int t = 0; // expect: bits=2 uc=200 i=200 w=300 c=44 u=0 t=0
  t++; // expect: bits=2 uc=200 i=200 w=300 c=44 u=0
  return z + bits + i + c + (int)u + x + a[1] + t + counter(); // expect: bits=2 uc=200 i=200 w=300 c=44 u=0
}
