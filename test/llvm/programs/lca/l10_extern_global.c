/* Integer globals are variables whether or not the module defines them: an
   `extern` one (no debug name of its own here) is named by its IR name. */
extern int E;
int T;

int main(void) {
  E = 4; // expect: E=4 T=0
  int d = E; // expect: E=4 T=0 d=4
  T = d + 4; // expect: E=4 T=8 d=4
  return 0; // expect: E=4 T=8 d=4
}
