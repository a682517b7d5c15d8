/* A 64-bit unsigned variable reads as unsigned, past INT64_MAX too (big, h),
   and its arithmetic wraps as the machine's does (m is 2^64 - 1 + 2); a
   signed one reads as signed (s). */
unsigned long long big = 18446744073709551615ULL;

int main(void) {
  unsigned long long h = 9223372036854775808ULL; // expect: big=18446744073709551615 h=9223372036854775808
  unsigned long long m = big + 2; // expect: big=18446744073709551615 h=9223372036854775808 m=1
  long long s = -5; // expect: big=18446744073709551615 h=9223372036854775808 m=1 s=-5
  return 0; // expect: big=18446744073709551615 h=9223372036854775808 m=1 s=-5
}
