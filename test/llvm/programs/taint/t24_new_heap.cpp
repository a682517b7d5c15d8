// operator new and new[] are heap allocation sites, one object per site.
int source();
void sink(int);
int sanitize(int);

struct Box { int value; };

int main() {
  int *p = new int(source());
  sink(*p); // expect-finding
  int *q = new int(3);
  sink(*q);
  Box *b = new Box{source()};
  sink(b->value); // expect-finding
  Box *c = new Box{1};
  sink(c->value);
  int *arr = new int[4];
  arr[0] = source();
  sink(arr[0]); // expect-finding
  delete p;
  delete q;
  delete b;
  delete c;
  delete[] arr;
  return 0;
}
