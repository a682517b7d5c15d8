// A clean C++ program: a virtual call, operator new, a try/catch and a
// sanitized source; nothing tainted reaches a sink.
int source();
void sink(int);
int sanitize(int);

struct Shape {
  virtual ~Shape() = default;
  virtual int area() const = 0;
};
struct Square : Shape {
  int side;
  explicit Square(int s) : side(s) {}
  int area() const override { return side * side; }
};

int safe_div(int a, int b) {
  if (b == 0)
    throw b;
  return a / b;
}

int main() {
  Shape *sh = new Square(3);
  sink(sh->area());
  int t = sanitize(source());
  try {
    sink(safe_div(t, 2));
  } catch (int) {
    sink(0);
  }
  delete sh;
  return 0;
}
