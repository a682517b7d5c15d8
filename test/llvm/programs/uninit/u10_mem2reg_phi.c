// mem2reg
/* After mem2reg a variable assigned on one branch only becomes a phi with
   an undef operand: the phi is not a finding, its use is. At -O0 the same
   line loads the uninitialized alloca. (x gets a non-constant value: a
   phi of a constant and undef would be folded to the constant.) */
#include <stdlib.h>

int pick(int c) {
  int x;
  if (c)
    x = c * 10;
  int y;
  if (c)
    y = 1;
  else
    y = 2;
  int r = y + 1;
  return r + x; // expect-finding
}

int main(void) {
  int c = rand() % 2;
  int v = pick(c);
  return v > 5; // expect-finding
}
