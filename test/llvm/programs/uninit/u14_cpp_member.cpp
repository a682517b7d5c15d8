// A constructor that does not initialize a member leaves the object (a
// local) uninitialized; a member function reading it is a finding.
struct Counter {
  int count;
  Counter() {}
  int peek() const {
    return count; // expect-finding
  }
};

struct Safe {
  int count;
  Safe() : count(0) {}
  int peek() const { return count; }
};

int main() {
  Counter c;
  Safe s;
  int a = s.peek();
  int b = c.peek();
  int d = a + 1;
  return d + b; // expect-finding
}
