/* Recursion: the depth parameter takes many values (not a constant), the
   value passed along unchanged stays one. The header line reports nothing
   (the parameters' stores have no line); the `return` lines end with a
   jump to the shared return block, whose `ret` is on the closing brace. */
int down(int n, int k) {
  if (n <= 0)
    return k;
  int m = n - 1; // expect: k=42
  return down(m, k);
} // expect: k=42

int main(void) {
  int r = down(3, 42); // expect: r=42
  return r; // expect: r=42
}
