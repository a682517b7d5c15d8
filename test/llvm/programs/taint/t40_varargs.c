// mem2reg
// points-to: inclusion unification
/* Variadic functions: a call's extra arguments reach what va_arg reads in
   the callee (directly, through va_copy, and through a va_list passed to a
   function with a body, through recursion, through a function pointer),
   and vsnprintf copies them into its destination. A call with clean extra
   arguments stays clean, context by context. */
#include <stdarg.h>
#include <stdio.h>

int source(void);
void sink(int);

int first(int n, ...) {
  va_list ap;
  va_start(ap, n);
  int x = va_arg(ap, int);
  va_end(ap);
  return x;
}

int second_of_copy(int n, ...) {
  va_list ap, cp;
  va_start(ap, n);
  va_copy(cp, ap);
  (void)va_arg(cp, int);
  int y = va_arg(cp, int);
  va_end(cp);
  va_end(ap);
  return y;
}

int vsum(int n, va_list ap) {
  int s = 0;
  for (int i = 0; i < n; i++) s += va_arg(ap, int);
  return s;
}

int sum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  int s = vsum(n, ap);
  va_end(ap);
  return s;
}

void format(char *out, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out, 64, fmt, ap);
  va_end(ap);
}

/* Mutual recursion: the older frame of ping still reads its own extra
   arguments after pong, which calls ping again, returns. */
int pong(int n);
void ping(int n, ...) {
  va_list ap;
  va_start(ap, n);
  if (n > 0) {
    pong(n - 1);
    sink(va_arg(ap, int)); // expect-finding
  }
  va_end(ap);
}
int pong(int n) {
  ping(n, 5);
  return 0;
}

int main(void) {
  int (*fp)(int, ...) = first;
  sink(first(1, source())); // expect-finding
  sink(first(1, 7));
  sink(second_of_copy(2, 1, source())); // expect-finding
  sink(sum(2, 1, source())); // expect-finding
  sink(sum(2, 1, 2));
  char buf[64];
  format(buf, "%d", source());
  sink(buf[0]); // expect-finding
  ping(2, source());
  sink(fp(1, source())); // expect-finding
  return 0;
}
