/* A sign extension widens the wrapped value, as the machine does: the linear
   functions keep an int's value unwrapped (exact modulo 2^32), so weir
   analyze settles each `sext` whose operand holds a constant outside int's
   range and solves again. In-range values widen as they are. (The unsigned
   arithmetic wraps without undefined behaviour; the conversions back to int
   wrap as clang defines them.) */
int main(void) {
  int k = 2147483647; // expect: k=2147483647
  k = (int)((unsigned)k + 1u); // expect: k=-2147483648
  long long L = k; // expect: k=-2147483648 L=-2147483648
  int m = 100000; // expect: k=-2147483648 L=-2147483648 m=100000
  m = (int)((unsigned)m * 100000u); // expect: k=-2147483648 L=-2147483648 m=1410065408
  long long M = m; // expect: k=-2147483648 L=-2147483648 m=1410065408 M=1410065408
  long long W = M + 1; // expect: k=-2147483648 L=-2147483648 m=1410065408 M=1410065408 W=1410065409
  int s = -5; // expect: k=-2147483648 L=-2147483648 m=1410065408 M=1410065408 W=1410065409 s=-5
  long long S = s; // expect: k=-2147483648 L=-2147483648 m=1410065408 M=1410065408 W=1410065409 s=-5 S=-5
  return 0; // expect: k=-2147483648 L=-2147483648 m=1410065408 M=1410065408 W=1410065409 s=-5 S=-5
}
