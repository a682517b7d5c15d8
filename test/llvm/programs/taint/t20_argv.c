/* Under the default configuration main's argv, and the memory it points
   to, are tainted at entry: argv[1] is a tainted pointer. */
void sink(char *);

int main(int argc, char **argv) {
  if (argc > 1)
    sink(argv[1]); // expect-finding
  sink("constant");
  char local[4] = "abc";
  sink(local);
  return 0;
}
