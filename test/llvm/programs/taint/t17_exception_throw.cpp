// A thrown tainted value reaches the sink in the handler that catches it.
int source();
void sink(int);
int sanitize(int);

int main() {
  try {
    throw source();
  } catch (int e) {
    sink(e); // expect-finding
    sink(0);
  }
  return 0;
}
