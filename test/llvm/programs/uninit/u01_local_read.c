/* Reading an uninitialized local is a finding; copying it into y makes y
   uninitialized (the store itself is not a finding), so reading y is one
   too. Initialized locals are clean. */
int main(void) {
  int x;
  int y = x; // expect-finding
  int z = 3;
  int w = z + 1;
  int v = w;
  return y + v; // expect-finding
}
