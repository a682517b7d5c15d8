// mem2reg
/* Clean: every local is initialized before the loops that read it. */
#include <stdio.h>

int main(void) {
  int sum = 0;
  int data[8] = {0};
  for (int i = 0; i < 8; i++)
    data[i] = i * i;
  for (int i = 0; i < 8; i++)
    sum += data[i];
  int n = 10;
  int fact = 1;
  while (n > 1) {
    fact *= n;
    n--;
  }
  printf("%d %d\n", sum, fact);
  return 0;
}
