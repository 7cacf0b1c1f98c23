#include "osdmap/pg_table.h"
