// mem2reg
// An indirect call whose targets differ in what they touch: set() stores to
// the variable through its parameter, leave() does not touch it. After the
// call it may still be uninitialized (through leave()); after a call that
// can only reach set_other() it is initialized.
void set(int *p) { *p = 42; }
void leave(int *p) { (void)p; }
void set_other(int *p) { *p = 7; }

int main(int argc, char **argv) {
  (void)argv;
  int a, b;
  void (*f)(int *) = argc > 1 ? set : leave;
  void (*h)(int *) = set_other;
  f(&a);
  h(&b);
  int x = a; // expect-finding
  return x + b; // expect-finding
}
