/* C++: a function-local static with a dynamic initializer comes with a
   guard variable that the compiler makes (not a source variable: never
   reported); an `extern` namespace-scope global that the module only
   declares is named by its demangled name. If compute throws, the static
   stays 0 on the landing pad's line (13). */
int compute(int);
namespace A {
extern int n;
}

int get() {
  static int cache = compute(3);
  return cache; // expect: A::n=2
} // expect: A::n=2 cache=0

int main() {
  A::n = 2; // expect: A::n=2
  int a = A::n + 1; // expect: A::n=2 a=3
  a = a + get(); // expect: A::n=2
  return a; // expect: A::n=2
}
