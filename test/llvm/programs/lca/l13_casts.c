/* Casts between integer types are linear: a truncation keeps the value
   modulo the narrower width (c, s, back), a zero extension widens the
   unsigned reading (i, U, and w in the callee), a sign extension the signed
   one, also of a value that a truncation left unreduced (uc's operand). */
int widen(unsigned char b) {
  unsigned w = b; // expect: b=200 w=200
  return (int)w; // expect: b=200 w=200
}

int main(void) {
  int n = 300; // expect: n=300
  char c = n; // expect: n=300 c=44
  short s = n * 1000; // expect: n=300 c=44 s=-27680
  unsigned char uc = c - 100; // expect: n=300 c=44 s=-27680 uc=200
  int i = uc; // expect: n=300 c=44 s=-27680 uc=200 i=200
  unsigned u = 4294967295u; // expect: n=300 c=44 s=-27680 uc=200 i=200 u=4294967295
  unsigned long long U = u; // expect: n=300 c=44 s=-27680 uc=200 i=200 u=4294967295 U=4294967295
  int back = (int)U; // expect: n=300 c=44 s=-27680 uc=200 i=200 u=4294967295 U=4294967295 back=-1
  int r = widen(uc); // expect: n=300 c=44 s=-27680 uc=200 i=200 u=4294967295 U=4294967295 back=-1 r=200
  return r + s + back; // expect: n=300 c=44 s=-27680 uc=200 i=200 u=4294967295 U=4294967295 back=-1 r=200
}
