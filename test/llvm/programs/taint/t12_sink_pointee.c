/* A sink argument that points to a tainted object is a finding, also
   when it points into the middle of the object. */
int source(void);
void sink(char *);

int main(void) {
  char buf[8];
  buf[0] = (char)source();
  buf[1] = 0;
  sink(buf); // expect-finding
  char *p = buf + 1;
  sink(p); // expect-finding
  char ok[8];
  ok[0] = 'a';
  ok[1] = 0;
  sink(ok);
  return 0;
}
