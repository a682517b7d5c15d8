/* Joins: a variable given different constants on two branches is not a
   constant after them; the same constant on both stays one. Lines with a
   branch report nothing: `if (c)`, and `a = 2;`, whose jump to the join
   clang puts on that line (the else branch's jump has no line). */
int pick(int c) {
  int a = 1; // expect: a=1
  int b = 4; // expect: a=1 b=4
  if (c)
    a = 2;
  else
    b = 4; // expect: a=1 b=4
  int d = b * 2; // expect: b=4 d=8
  return d; // expect: b=4 d=8
}

int main(int argc, char **argv) {
  return pick(argc);
}
