/* snprintf copies a tainted argument into its destination; strcpy and
   strcat copy taint between buffers; the sink takes a pointer and fires
   when the pointed-to object is tainted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int source(void);
void sink(char *);

int main(void) {
  char *num = malloc(16);
  snprintf(num, 16, "%d", source());
  char *dup = malloc(16);
  strcpy(dup, num);
  sink(dup); // expect-finding
  char local[32];
  strcpy(local, "prefix:");
  sink(local);
  strcat(local, dup);
  sink(local); // expect-finding
  char *safe = malloc(16);
  strcpy(safe, "constant");
  sink(safe);
  free(num);
  free(dup);
  free(safe);
  return 0;
}
