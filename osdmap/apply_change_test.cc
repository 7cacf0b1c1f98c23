#include "osdmap/apply_change.h"

#include <gtest/gtest.h>
