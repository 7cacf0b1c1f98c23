/* A C program that uses only crush/crushkit.h: maps inputs x through a rule
 * of a binary crush map and prints them as `crushtool --test --show-mappings`
 * does ("CRUSH rule R x X [a,b,c]").
 *
 *   map_rule MAP.bin RULE(name or id) NUM_REP MIN_X MAX_X
 *
 * Exit: 0 on success, 1 on a bad map or rule, 2 on bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crush/crushkit.h"

static unsigned char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  unsigned char* data = NULL;
  size_t cap = 0;
  *size = 0;
  if (f == NULL) return NULL;
  for (;;) {
    if (*size == cap) {
      unsigned char* grown;
      cap = cap ? cap * 2 : 65536;
      grown = realloc(data, cap);
      if (grown == NULL) break;
      data = grown;
    }
    {
      size_t got = fread(data + *size, 1, cap - *size, f);
      *size += got;
      if (got == 0) break;
    }
  }
  fclose(f);
  return data;
}

int main(int argc, char** argv) {
  size_t size = 0;
  unsigned char* bytes;
  char* error = NULL;
  crushkit_map* map;
  crushkit_workspace* ws;
  int32_t* out;
  int rule, num_rep;
  unsigned long x, min_x, max_x;
  char* end;

  if (argc != 6) {
    fprintf(stderr, "usage: %s MAP.bin RULE NUM_REP MIN_X MAX_X   (crushkit %s)\n", argv[0],
            crushkit_version());
    return 2;
  }
  bytes = read_file(argv[1], &size);
  if (bytes == NULL) {
    fprintf(stderr, "%s: cannot read\n", argv[1]);
    return 1;
  }
  map = crushkit_map_from_binary(bytes, size, &error);
  free(bytes);
  if (map == NULL) {
    fprintf(stderr, "%s: %s\n", argv[1], error != NULL ? error : "cannot decode");
    crushkit_free_string(error);
    return 1;
  }
  rule = (int)strtol(argv[2], &end, 10);
  if (*end != '\0') rule = crushkit_rule_by_name(map, argv[2]);
  num_rep = atoi(argv[3]);
  min_x = strtoul(argv[4], NULL, 10);
  max_x = strtoul(argv[5], NULL, 10);
  if (!crushkit_rule_exists(map, rule) || num_rep < 1 || num_rep > 1024) {
    fprintf(stderr, "%s: no rule %s, or num_rep %d out of 1..1024\n", argv[1], argv[2], num_rep);
    crushkit_map_free(map);
    return 1;
  }
  ws = crushkit_workspace_new(map, num_rep);
  out = malloc(sizeof(int32_t) * (size_t)num_rep);
  if (ws == NULL || out == NULL) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  for (x = min_x; x <= max_x; ++x) {
    int i, n = crushkit_do_rule(map, ws, rule, (uint32_t)x, out, num_rep, NULL, 0, 0);
    printf("CRUSH rule %d x %lu [", rule, x);
    for (i = 0; i < n; ++i) printf(i ? ",%d" : "%d", (int)out[i]);
    printf("]\n");
  }
  free(out);
  crushkit_workspace_free(ws);
  crushkit_map_free(map);
  return 0;
}
