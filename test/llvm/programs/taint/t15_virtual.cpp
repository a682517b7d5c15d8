// Virtual calls are resolved by points-to: a points only to an EnvReader,
// b only to a ConstReader; l only to a Quiet logger, m only to a Loud one.
int source();
void sink(int);
int sanitize(int);

struct Reader { virtual int read() const = 0; };
struct EnvReader : Reader { int read() const override { return source(); } };
struct ConstReader : Reader { int read() const override { return 4; } };

struct Logger { virtual void log(int v) = 0; };
struct Loud : Logger {
  void log(int v) override { sink(v); }
};
struct Quiet : Logger {
  void log(int v) override { (void)v; }
};

int main() {
  Reader *a = new EnvReader();
  Reader *b = new ConstReader();
  sink(a->read()); // expect-finding
  sink(b->read());
  Logger *l = new Quiet();
  Logger *m = new Loud();
  l->log(source());
  m->log(1);
  return 0;
}
