/* A function without a body makes what it may modify not a constant;
   divisions of constants fold, division by zero does not. */
#include <stdio.h>

int main(void) {
  int v = 8; // expect: v=8
  int q = v / 2; // expect: v=8
  int k = 7 / 2; // expect: v=8 k=3
  int m = 7 % 3; // expect: v=8 k=3 m=1
  scanf("%d", &v); // expect: k=3 m=1
  int u = v + 1; // expect: k=3 m=1
  return u + q; // expect: k=3 m=1
}
