/* Memory is field-insensitive: a struct is one cell, so writing one member
   initializes the whole struct. A struct never written is uninitialized. */
struct point {
  int x;
  int y;
};

int main(void) {
  struct point p;
  p.x = 1;
  int a = p.y;
  struct point q;
  int b = q.x; // expect-finding
  struct point r = {3, 4};
  int c = r.x + r.y;
  int d = a + c;
  return d + b; // expect-finding
}
