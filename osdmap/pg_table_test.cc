#include "osdmap/pg_table.h"

#include <gtest/gtest.h>
