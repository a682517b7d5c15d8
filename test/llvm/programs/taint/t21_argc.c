/* Under the default configuration main's parameters are tainted at entry,
   argc included. */
int source(void);
void sink(int);
int sanitize(int);

int main(int argc, char **argv) {
  (void)argv;
  sink(argc); // expect-finding
  int n = argc * 2;
  sink(n); // expect-finding
  n = 0;
  sink(n);
  sink(sanitize(argc));
  return 0;
}
