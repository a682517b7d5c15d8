// mem2reg
// What runs around main: a global initialized from a source (a global
// constructor); static objects' destructors, which C++ registers with
// __cxa_atexit and which run after main on their own object (Holder's
// member is tainted, Quiet's is not); a handler main registers with atexit;
// a function in llvm.global_dtors (__attribute__((destructor))).
#include <cstdlib>

int source();
void sink(int);

static int g_init = source();
int g_late;
int g_clean = 1;

struct Holder {
  int v;
  Holder() : v(source()) {}
  ~Holder() { sink(v); } // expect-finding
};
struct Quiet {
  int v;
  Quiet() : v(7) {}
  ~Quiet() { sink(v); }
};
static Holder holder;
static Quiet quiet;

static void at_exit_handler() { sink(g_late); } // expect-finding
__attribute__((destructor)) static void fini() { sink(g_clean); }

int main() {
  sink(g_init); // expect-finding
  g_late = source();
  std::atexit(at_exit_handler);
  return 0;
}
