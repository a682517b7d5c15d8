/* A clean program: loops, calls, globals, a sanitized source and a strong
   update; nothing tainted reaches a sink. */
int source(void);
void sink(int);
int sanitize(int);

int total;

int square(int v) { return v * v; }

int main(void) {
  int a[5] = {0};
  for (int i = 0; i < 5; i++)
    a[i] = square(i);
  for (int i = 0; i < 5; i++)
    total += a[i];
  sink(total);
  int s = source();
  int t = sanitize(s);
  sink(t);
  s = 0;
  sink(s);
  sink(square(3));
  return 0;
}
